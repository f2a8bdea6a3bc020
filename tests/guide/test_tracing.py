"""Guide section "Tracing": what tracing is, and the rules of the cache key."""

import collections

import numpy as np

import autograph as ag


def make_double():
    @ag.function
    def double(a):
        print("Tracing with", a)
        return a + a

    return double


def test_each_new_type_traces_then_runs(capsys):
    double = make_double()
    print(double(np.int32(1)))
    print()
    print(double(np.float32(1.1)))
    print()
    print(double(np.str_("a")))
    print()
    assert capsys.readouterr().out == (
        'Tracing with Tensor("a:0", shape=(), dtype=int32)\n'
        "2\n\n"
        'Tracing with Tensor("a:0", shape=(), dtype=float32)\n'
        "2.2\n\n"
        'Tracing with Tensor("a:0", shape=(), dtype=string)\n'
        "aa\n\n"
    )
    # The same type again reuses the trace: no "Tracing with".
    print(double(np.str_("b")))
    assert capsys.readouterr().out == "bb\n"
    assert double.experimental_get_tracing_count() == 3


def test_pretty_printed_concrete_signatures():
    double = make_double()
    double(np.int32(1))
    double(np.float32(1.1))
    double(np.str_("a"))
    assert double.pretty_printed_concrete_signatures() == (
        "double(a)\n  Args:\n    a: int32 Tensor, shape=()\n  Returns:\n    int32 Tensor, shape=()\n"
        "\n"
        "double(a)\n  Args:\n    a: float32 Tensor, shape=()\n  Returns:\n    float32 Tensor, shape=()\n"
        "\n"
        "double(a)\n  Args:\n    a: string Tensor, shape=()\n  Returns:\n    string Tensor, shape=()"
    )


# -- Rules of tracing ------------------------------------------------------
def count_traces(*calls):
    f = ag.function(lambda x: x)
    for value in calls:
        f(value)
    return f.experimental_get_tracing_count()


def test_tensor_key_is_shape_and_dtype():
    assert count_traces(np.zeros(3, np.float32), np.ones(3, np.float32)) == 1
    assert count_traces(np.zeros(3, np.float32), np.zeros(4, np.float32)) == 2
    assert count_traces(np.zeros(3, np.float32), np.zeros(3, np.float64)) == 2


def test_variable_key_is_its_identity():
    v, w = ag.Variable(1.0), ag.Variable(1.0)
    assert count_traces(v, v) == 1
    assert count_traces(v, w) == 2


def test_python_primitive_key_is_its_value():
    assert count_traces(1, 1, 2, 2) == 2
    assert count_traces("relu", "relu", "tanh") == 2
    assert count_traces(1, True, 1.0) == 3


def test_nested_structures_key_is_the_flattened_leaves():
    Pair = collections.namedtuple("Pair", "a b")
    x = np.zeros(2)
    assert count_traces([x, x], [x + 1, x - 1]) == 1
    assert count_traces([x, x], (x, x), {"a": x, "b": x}, Pair(x, x)) == 4
    assert count_traces([x, 1], [x, 2]) == 2


def test_dataclasses_are_structures_too():
    import dataclasses

    @dataclasses.dataclass
    class Batch:
        features: object
        labels: object

    @ag.function
    def total(batch):
        return batch.features.sum() + batch.labels.sum()

    assert total(Batch(np.ones(3), np.ones(2))) == 5.0
    assert total(Batch(np.zeros(3), np.ones(2))) == 2.0
    assert total.experimental_get_tracing_count() == 1
    total(Batch(np.zeros(4), np.ones(2)))
    assert total.experimental_get_tracing_count() == 2


def test_other_objects_key_is_their_identity():
    class Layer:
        pass

    one, two = Layer(), Layer()
    assert count_traces(one, one) == 1
    assert count_traces(one, two) == 2


def test_a_function_called_inside_another_trace_is_inlined_and_counts_no_trace(capsys):
    @ag.function
    def inner(x, n):
        print("tracing inner", n)
        return x * n

    @ag.function
    def outer(x):
        return inner(x, 2) + inner(x, 3)

    assert outer(np.float64(1.0)) == 5.0
    assert capsys.readouterr().out == "tracing inner 2\ntracing inner 3\n"
    assert outer.experimental_get_tracing_count() == 1
    assert inner.experimental_get_tracing_count() == 0  # recorded into outer's graph (differences.md)
