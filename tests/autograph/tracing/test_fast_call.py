"""The fast call of a trace answers exactly as the general call path would."""

import functools
import gc
import threading
import traceback
import warnings

import numpy as np
import pytest

import autograph as ag
from autograph.errors import FailedPreconditionError, InvalidArgumentError
from autograph.tracing.fast_call import never
from autograph.tracing.function import Function
from autograph.tracing.retracing import RetracingWarning
from runtime.tracing.trace_context import STEP_ASIDE


def counted(func):
    """An ag.function that counts its traces in `fn.traces`."""

    @functools.wraps(func)
    def body(*args):
        wrapper.traces += 1
        return func(*args)

    wrapper = ag.function(body, autograph=False)
    wrapper.traces = 0
    return wrapper


class General:
    """Stands in for the caller of a fast call: says which arguments reached its general path."""

    def _general(self, args, kwargs):
        return ("general", args, kwargs)


def test_second_call_of_a_trace_takes_the_fast_call():
    f = counted(lambda x: x + 1)
    x = np.float32([1, 2, 3, 4])
    f(x)
    assert f._fast is never  # the first call traced: nothing is hot yet
    f(x)
    assert f._fast is f.get_concrete_function(x).fast
    np.testing.assert_array_equal(f(x), x + 1)
    assert f.traces == 1


def test_fast_call_returns_numpy_scalars_and_structures():
    f = ag.function(lambda x: (x * 2, {"n": x.sum(), "none": None}), autograph=False)
    x = np.int64([1, 2])
    for _ in range(3):
        doubled, rest = f(x)
        assert type(rest["n"]) is np.int64 and rest["none"] is None
        np.testing.assert_array_equal(doubled, [2, 4])
    g = ag.function(lambda n: n * 2, autograph=False)
    for _ in range(3):
        assert g(np.int64(3)) == 6 and type(g(np.int64(3))) is np.int64


def test_other_dtype_shape_or_arity_misses_and_traces():
    f = counted(lambda x: x * 2)
    f(np.float32([1, 2]))
    f(np.float32([1, 2]))
    f(np.float64([1, 2]))
    f(np.float32([1, 2, 3]))
    f(np.float32(1))
    assert f.traces == 4
    with pytest.raises(TypeError):
        f(np.float32([1, 2]), np.float32([1, 2]))


def test_numpy_scalar_and_0d_array_share_a_trace():
    f = counted(lambda n: n + 1)
    assert f(np.int64(1)) == 2 and f(np.int64(2)) == 3
    assert f(np.array(5, np.int64)) == 6 and type(f(np.array(5))) is np.int64
    assert f.traces == 1


def test_python_arguments_are_part_of_the_fast_key():
    f = counted(lambda x, n: x * n)
    x = np.float32([1, 2])
    for n in (2, 2, 2.0, 2.0, True, 3, float("nan"), float("nan"), "a" == "a"):
        f(x, n)
    assert f.traces == 5  # 2, 2.0, True, 3, nan
    assert f.experimental_get_tracing_count() == 5


def test_left_out_defaults_take_the_general_call():
    f = counted(lambda x, scale=3: x * scale)
    x = np.float32([1, 2])
    for _ in range(3):
        np.testing.assert_array_equal(f(x), [3, 6])
    np.testing.assert_array_equal(f(x, 3), [3, 6])
    assert f.traces == 1


def test_run_functions_eagerly_overrides_the_fast_call():
    f = counted(lambda x: x + 1)
    x = np.float32([1])
    f(x), f(x)
    try:
        ag.run_functions_eagerly(True)
        f(x)
        assert f.traces == 2
    finally:
        ag.run_functions_eagerly(False)


def test_called_while_tracing_it_is_inlined_not_run():
    inner = ag.function(lambda x: x + 1, autograph=False)
    x = np.float32([1])
    inner(x), inner(x)

    @ag.function(autograph=False)
    def outer(x):
        return inner(x) * 2

    np.testing.assert_array_equal(outer(x), [4])
    ops = [node.op for node in outer.get_concrete_function(x).graph.nodes]
    assert "add" in ops


def test_concrete_function_fast_call_and_its_errors():
    f = ag.function(lambda x: x + 1, autograph=False)
    cf = f.get_concrete_function(np.float32([1, 2]))
    other = np.float64([1, 2])
    assert cf.fast(General())(other) == ("general", (other,), {})
    np.testing.assert_array_equal(cf(np.float32([1, 2])), [2, 3])
    scalar = f.get_concrete_function(np.float32(1))
    assert scalar(1.5) == 2.5 and type(scalar(1.5)) is np.float32  # converted by the general path
    with pytest.raises(InvalidArgumentError):
        cf(np.float64([1, 2]))
    with pytest.raises(InvalidArgumentError):
        cf(np.float32([1, 2, 3]))


def test_unknown_dims_are_fast_for_the_concrete_function_only():
    f = ag.function(lambda x: x + 1, autograph=False)
    cf = f.get_concrete_function(ag.TensorSpec([None, 2], np.float32))
    assert not cf.exact and cf.fast is not never
    np.testing.assert_array_equal(cf(np.zeros((3, 2), np.float32)), np.ones((3, 2)))
    other = np.zeros((3, 3), np.float32)
    assert cf.fast(General())(other) == ("general", (other,), {})
    with pytest.raises(InvalidArgumentError):
        cf(np.zeros((3, 3), np.float32))
    assert f.get_concrete_function(ag.TensorSpec(None, np.float32)).fast is never
    g = ag.function(lambda x, obj: x, autograph=False)
    assert g.get_concrete_function(np.float32([1]), object()).fast is never


def test_relaxed_traces_are_not_taken_without_the_key():
    f = ag.function(lambda x: x * 2, autograph=False, reduce_retracing=True)
    for size in (1, 2, 3, 3, 3):
        np.testing.assert_array_equal(f(np.ones(size, np.float32)), 2 * np.ones(size))
    assert f.experimental_get_tracing_count() == 2
    assert f._fast is never


def test_input_signature_function_takes_its_trace_fast_call():
    f = ag.function(
        lambda x: x * 2, input_signature=[ag.TensorSpec([None], np.float32)], autograph=False
    )
    for size in (1, 2, 5):
        np.testing.assert_array_equal(f(np.ones(size, np.float32)), 2 * np.ones(size))
    assert f._fast is f.get_concrete_function().fast
    np.testing.assert_array_equal(f([1.0, 2.0]), [2, 4])  # converted by the general path
    with pytest.raises(ValueError, match="input_signature"):
        f(np.ones(2, np.float64))
    with pytest.raises(ValueError, match="input_signature"):
        f(np.ones((2, 2), np.float32))
    assert f.experimental_get_tracing_count() == 1


def test_a_hit_between_traces_still_ends_the_retrace_streak():
    f = ag.function(lambda x: x + 1, autograph=False)
    hot = np.float32([1])
    f(hot), f(hot)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RetracingWarning)
        for size in range(2, 6):
            f(np.zeros(size, np.float32))
        f(hot)  # a cache hit: the streak of traces is broken
        f(np.zeros(6, np.float32))


def test_a_numpy_error_in_the_fast_call_gets_the_users_line():
    @ag.function
    def solve(a, b):
        return np.linalg.solve(a, b)  # <- the solve

    solve(np.eye(2), np.ones(2)), solve(np.eye(2), np.ones(2))
    assert solve._fast is not never
    with pytest.raises(np.linalg.LinAlgError) as caught:
        solve(np.zeros((2, 2)), np.ones(2))
    (note,) = caught.value.__notes__
    assert "np.linalg.solve(a, b)  # <- the solve" in note
    cf = solve.get_concrete_function(np.eye(2), np.ones(2))
    with pytest.raises(np.linalg.LinAlgError) as caught:
        cf(np.zeros((2, 2)), np.ones(2))
    assert len(caught.value.__notes__) == 1


def test_fast_call_reads_variables_weakly():
    holder = [ag.Variable(np.float32(2.0))]

    @ag.function(autograph=False)
    def scale(x):
        return x * holder[0]

    x = np.float32([1, 2])
    scale(x)
    np.testing.assert_array_equal(scale(x), [2, 4])
    holder[0].assign(np.float32(3.0))
    np.testing.assert_array_equal(scale(x), [3, 6])
    holder.clear()
    gc.collect()
    with pytest.raises(FailedPreconditionError):
        scale(x)


def test_staged_assert_fails_in_the_fast_call_with_the_user_line():
    @ag.function
    def checked_sqrt(x):
        assert x >= 0, "x must be non-negative"  # <- the user's assert
        return np.sqrt(x)

    assert checked_sqrt(np.float64(4.0)) == 2.0
    assert checked_sqrt(np.float64(9.0)) == 3.0
    with pytest.raises(InvalidArgumentError, match="x must be non-negative") as info:
        checked_sqrt(np.float64(-1.0))
    assert "the user's assert" in str(info.value)


def test_input_signature_with_defaults_keeps_the_general_call():
    def scale(x, factor=float("nan")):
        return x * 2

    f = ag.function(scale, input_signature=[ag.TensorSpec([None], np.float32)], autograph=False)
    f(np.ones(2, np.float32)), f(np.ones(2, np.float32))
    assert f._fast is never
    with pytest.raises(ValueError, match="keep its default"):
        f(np.ones(2, np.float32), float("nan"))


def test_threads_alternating_shapes_get_their_own_results():
    f = ag.function(lambda x: x * 2, autograph=False)
    inputs = [np.arange(n, dtype=np.float32) for n in (2, 3)]
    errors = []

    def work(offset):
        for i in range(300):
            x = inputs[(i + offset) % 2]
            if not np.array_equal(f(x), x * 2):
                errors.append(x.shape)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and f.experimental_get_tracing_count() == 2


def test_a_cache_hit_runs_in_the_one_frame_of_the_fast_call():
    @ag.function
    def solve(a, b):
        return np.linalg.solve(a, b)

    solve(np.eye(2), np.ones(2)), solve(np.eye(2), np.ones(2))
    assert isinstance(solve, Function) and type(solve)._fast is solve._fast is not never
    with pytest.raises(np.linalg.LinAlgError) as caught:
        solve(np.zeros((2, 2)), np.ones(2))
    files = [entry.filename for entry in traceback.extract_tb(caught.value.__traceback__)]
    assert not any(name.endswith(("function.py", "concrete.py", "bound.py")) for name in files)


def test_keywords_bind_like_the_users_parameters():
    def scaled(a, n, /, b, scale=2.0):
        return a * n + b * scale

    f = counted(scaled)
    x = np.float32([1, 2])
    f(x, 3, x), f(x, 3, x)
    assert f._fast is not never
    np.testing.assert_array_equal(f(x, 3, b=x), [5, 10])
    np.testing.assert_array_equal(f(x, 3, scale=2.0, b=x), [5, 10])
    np.testing.assert_array_equal(f(x, 3, x, scale=1.0), [4, 8])  # another key: traces
    np.testing.assert_array_equal(f(x, 3, b=x), [5, 10])  # left out: the default, general path
    assert f.traces == 2
    bad_calls = [lambda: f(x, n=3, b=x), lambda: f(x, 3, c=x), lambda: f(x, 3, x, 2.0, 5), lambda: f(x)]
    for bad in bad_calls:
        with pytest.raises(TypeError):
            bad()


def test_a_users_name_that_the_graph_uses_falls_back_to_positional_parameters():
    @ag.function(autograph=False)
    def shadow(x, add):
        return x + 1 + add

    x = np.float32([1, 2])
    for _ in range(3):
        np.testing.assert_array_equal(shadow(x, 1), [3, 4])
        np.testing.assert_array_equal(shadow(x, add=1), [3, 4])
    assert shadow._fast is not never and shadow.experimental_get_tracing_count() == 1


def test_methods_and_functions_without_arguments_take_the_fast_call():
    class Model:
        @ag.function(autograph=False)
        def double(self, x):
            return x * 2

    model, x = Model(), np.float32([1, 2])
    for _ in range(3):
        np.testing.assert_array_equal(model.double(x), [2, 4])
    assert model.double.__func__._fast is not never
    constant = ag.function(lambda: np.float32(3), autograph=False)
    assert constant() == 3 and constant() == 3 and constant._fast is not never
    with pytest.raises(TypeError):
        constant(1)


def test_eager_mode_counts_once_however_often_it_is_switched_on():
    f = counted(lambda x: x + 1)
    x = np.float32([1])
    f(x), f(x)
    try:
        ag.run_functions_eagerly(True)
        ag.run_functions_eagerly(True)
    finally:
        ag.run_functions_eagerly(False)
    f(x)
    assert STEP_ASIDE[0] == 0 and f.traces == 1


def test_a_hot_function_called_with_an_array_while_tracing_is_inlined():
    inner = counted(lambda x: x + 1)
    constant = np.float32([1])
    inner(constant), inner(constant)

    @ag.function(autograph=False)
    def outer(x):
        return inner(constant) * x

    np.testing.assert_array_equal(outer(np.float32([3])), [6])
    assert inner.traces == 2  # its Python ran again, into outer's graph


def test_calls_while_another_thread_traces_get_their_results():
    f = ag.function(lambda x: x * 2, autograph=False)
    x = np.float32([1, 2])
    f(x), f(x)
    started, release = threading.Event(), threading.Event()

    @ag.function(autograph=False)
    def slow(y):
        started.set()
        release.wait(10)
        return y

    tracer = threading.Thread(target=slow, args=(x,))
    tracer.start()
    started.wait(10)
    try:
        assert STEP_ASIDE[0] > 0
        np.testing.assert_array_equal(f(x), [2, 4])  # the general path runs the same trace
    finally:
        release.set()
        tracer.join()
    assert STEP_ASIDE[0] == 0 and f.experimental_get_tracing_count() == 1


def test_alternating_shapes_keep_one_hot_trace_and_a_lasting_change_takes_over():
    f = ag.function(lambda x: x * 2, autograph=False)
    a, b = np.float32([1, 2]), np.float32([1, 2, 3])
    f(a), f(a), f(b), f(b)
    hot_b = f._fast
    assert hot_b is f.get_concrete_function(b).fast
    for _ in range(2):  # a few general hits of the other trace: the class stays
        np.testing.assert_array_equal(f(a), [2, 4])
        np.testing.assert_array_equal(f(b), [2, 4, 6])
    assert f._fast is hot_b
    for _ in range(10):
        np.testing.assert_array_equal(f(a), [2, 4])
    assert f._fast is f.get_concrete_function(a).fast
    assert f.experimental_get_tracing_count() == 2
