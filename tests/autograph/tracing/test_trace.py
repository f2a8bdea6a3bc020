import numpy as np
import pytest

import autograph as ag
from autograph.tracing.concrete import Static
from autograph.tracing.signature import Signature
from autograph.tracing.spec import TensorSpec
from autograph.tracing.trace import trace_function
from runtime.ir.structure import flatten


def trace(fn, *values):
    leaves, tree = flatten(tuple(values))
    specs = [
        v if isinstance(v, TensorSpec) else TensorSpec.from_value(v) if isinstance(v, np.ndarray) else None
        for v in leaves
    ]
    return trace_function(fn, fn.__name__, Signature.of(fn), tree, leaves, specs)


def test_inputs_named_after_parameters_and_python_values_baked_in():
    def scale(x, factor):
        return x * factor

    cf = trace(scale, TensorSpec([3], np.float64), 2.0)
    assert [n.name for n in cf.graph.inputs] == ["x"]
    assert cf.in_plan[1] == (float, 2.0)
    np.testing.assert_array_equal(cf.run([np.ones(3)]), [2.0, 2.0, 2.0])


def test_nested_inputs_get_unique_names():
    def total(pair):
        return pair[0] + pair[1]

    cf = trace(total, [TensorSpec([], np.int64), TensorSpec([], np.int64)])
    assert [n.name for n in cf.graph.inputs] == ["pair", "pair_1"]
    assert cf.run([np.int64(2), np.int64(3)]) == 5


def test_outputs_numbers_become_graph_outputs_objects_stay_static():
    marker = object()

    def f(x):
        return x, 1, None, marker, "s"

    cf = trace(f, TensorSpec([], np.int64))
    assert isinstance(cf.out_plan[2], Static) and isinstance(cf.out_plan[3], Static)
    out = cf.run([np.int64(7)])
    assert out[0] == 7 and out[1] == 1 and isinstance(out[1], np.int64)
    assert out[2] is None and out[3] is marker and out[4] == "s"


def test_returned_variable_reads_its_value_at_each_run():
    v = ag.Variable(1.0)

    def f():
        return v

    cf = trace(f)
    assert cf.run([]) == 1.0
    v.assign(4.0)
    assert cf.run([]) == 4.0


def test_leaked_tensor_in_outputs_is_a_type_error():
    leaked = trace(lambda x: x + 1, TensorSpec([], np.int64)).structured_outputs

    def g(y):
        return leaked

    with pytest.raises(TypeError, match="leaked"):
        trace(g, TensorSpec([], np.int64))
