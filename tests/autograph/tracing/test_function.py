"""ag.function end to end: decorating, outputs, inlining, recursion, eager mode, threads.

Cache keys through calls: test_function_keys.py; methods: test_function_methods.py.
"""

import collections
import threading

import numpy as np
import pytest

import autograph as ag
from autograph.errors import StagingError
from tests.autograph.tracing.plain import traced

Point = collections.namedtuple("Point", "x y")


def test_decorator_bare_and_with_arguments():
    @ag.function
    def bare(x):
        return x * 2

    @ag.function(autograph=False)
    def called(x):
        return x * 3

    assert bare.__autograph_function__ and called.__autograph_function__
    assert bare(np.int64(2)) == 4
    assert called(np.int64(2)) == 6
    assert bare.python_function.__name__ == "bare"
    assert bare.__name__ == "bare"


def test_outputs_are_numpy_values():
    @traced
    def f(a):
        return a + 1, [a * 2, None], {"k": 3}, Point(a, 1.5)

    out = f(np.int64(1))
    assert out == (2, [2, None], {"k": 3}, Point(1, 1.5))
    assert isinstance(out[0], np.int64) and isinstance(out[2]["k"], np.int64)
    assert isinstance(out[3].y, np.float64)
    assert isinstance(out[1], list) and isinstance(out[3], Point)

    @traced
    def array(a):
        return a * 2

    result = array(np.ones((2, 2), np.float32))
    assert isinstance(result, np.ndarray) and result.dtype == np.float32


def test_nested_functions_are_inlined():
    @traced
    def add(a, b):
        return a + b

    @traced
    def dense(x, w, b):
        return add(np.matmul(x, w), b)

    out = dense(np.ones((3, 2), np.float32), np.ones((2, 2), np.float32), np.ones(2, np.float32))
    np.testing.assert_array_equal(out, np.full((3, 2), 3.0, np.float32))
    assert add.experimental_get_tracing_count() == 0
    nodes = [n.op for n in dense.get_concrete_function(
        np.ones((3, 2), np.float32), np.ones((2, 2), np.float32), np.ones(2, np.float32)
    ).graph.as_graph_def().node]
    assert "add" in nodes


def test_recursion_on_tensors_is_a_staging_error():
    @traced
    def forever(n):
        return forever(n - 1)

    with pytest.raises(StagingError, match="calls itself"):
        forever(np.int64(5))


def test_recursion_on_python_values_terminates(capsys):
    @traced
    def countdown(n):
        if n > 0:
            print("tracing")
            return countdown(n - 1)
        return 1

    assert countdown(5) == 1
    assert capsys.readouterr().out == "tracing\n" * 5


def test_run_functions_eagerly(capsys):
    @traced
    def f(x):
        print("python", x)
        return x

    try:
        ag.run_functions_eagerly(True)
        assert ag.functions_run_eagerly()
        assert f(1) == 1 and f(1) == 1
        assert f.experimental_get_tracing_count() == 0
    finally:
        ag.run_functions_eagerly(False)
    assert capsys.readouterr().out == "python 1\npython 1\n"
    assert not ag.functions_run_eagerly()


def test_separate_functions_do_not_share_traces(capsys):
    def f():
        print("Tracing!")

    traced(f)()
    traced(f)()
    assert capsys.readouterr().out == "Tracing!\nTracing!\n"


def test_leaked_tensor_is_a_type_error():
    leaked = []

    @traced
    def leak(a):
        leaked.append(a + 1)
        return a + 2

    assert leak(np.int64(1)) == 3

    @traced
    def use(b):
        return b + leaked[0]

    with pytest.raises(TypeError, match="leaked"):
        use(np.int64(2))
    with pytest.raises(TypeError, match="leaked"):
        use(leaked[0])


def test_a_nonlocal_set_by_a_nested_function_called_by_name_in_a_staged_loop_is_carried():
    @ag.function
    def total_of(xs):
        total = np.float64(0)

        def add(v):
            nonlocal total
            total = total + v

        for v in xs:
            add(v)
        return total

    assert total_of(np.ones(2)) == 2.0


def test_a_nonlocal_set_by_a_nested_function_called_out_of_sight_in_a_staged_loop_is_told_as_a_leak():
    @ag.function
    def total_of(xs):
        total = np.float64(0)

        def add(v):
            nonlocal total
            total = total + v

        steps = {"add": add}
        for v in xs:
            steps["add"](v)
        return total

    with pytest.raises(TypeError, match=r"made at .*test_function.py:\d+, belongs to .* a nonlocal that a nested"):
        total_of(np.ones(2))


def test_threads_trace_each_signature_once():
    calls = []
    barrier = threading.Barrier(4)

    @traced
    def f(x):
        calls.append(x.shape)
        return x + 1

    def worker(n):
        barrier.wait()
        for _ in range(50):
            np.testing.assert_array_equal(f(np.zeros(n)), np.ones(n))

    threads = [threading.Thread(target=worker, args=(n,)) for n in (1, 2, 1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(calls) == [(1,), (2,)]
    assert f.experimental_get_tracing_count() == 2


def test_follow_type_hints_converts_annotated_arguments():
    @traced(follow_type_hints=True)
    def f(x: ag.Tensor, n: ag.Tensor, scale):
        return x * n * scale

    for n in range(4):
        assert f(np.float64(1), n, 2) == 2 * n
    assert f.experimental_get_tracing_count() == 1
    f(np.float64(1), 1, 3)
    assert f.experimental_get_tracing_count() == 2




def test_partials_callable_objects_and_builtins():
    import functools

    def scale(x, k):
        if x > 0:
            return x * k
        return x

    class AddOne:
        def __call__(self, x):
            return x + 1

    assert ag.function(functools.partial(scale, k=3))(np.int64(2)) == 6
    assert ag.function(AddOne())(np.int64(2)) == 3
    assert ag.function(np.tanh)(np.float64(0.0)) == 0.0
