"""The trace layer: `ag.function`, its cache of ConcreteFunctions, TensorSpec.

    function.py         Function and the decorator: cache lookup, tracing on a miss
    conversion.py       the converted callable a Function traces
    bound.py            Function methods looked up on instances
    keys.py             cache keys (the guide's rules)
    signature.py        parameters bound once per function
    spec.py             TensorSpec
    input_signature.py  checking calls against an input_signature
    trace.py            running a function on symbolic inputs into a Graph
    concrete.py         ConcreteFunction: a compiled trace and its signature
    retracing.py        reduce_retracing and the retracing warning
    variable_policy.py  Variables may be created only by the first trace
    report.py           "in user code:" error reports
    unknown_dims.py     a dimension unknown while tracing used as a number
"""

__all__: list[str] = []
