"""What makes a Function trace again: dtypes and shapes, Python values, nesting, identity."""

import collections
import gc
import warnings
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph as ag
from autograph.tracing.retracing import RetracingWarning
from tests.autograph.tracing.plain import traced

Point = collections.namedtuple("Point", "x y")


def test_tensor_arguments_trace_once_per_dtype_and_shape(capsys):
    @traced
    def double(a):
        print("Tracing with", a)
        return a + a

    assert double(np.int64(1)) == 2
    assert double(np.int64(5)) == 10
    assert double(np.float64(1.5)) == 3.0
    assert capsys.readouterr().out == (
        'Tracing with Tensor("a:0", shape=(), dtype=int64)\n'
        'Tracing with Tensor("a:0", shape=(), dtype=float64)\n'
    )
    np.testing.assert_array_equal(double(np.arange(3)), [0, 2, 4])
    assert double.experimental_get_tracing_count() == 3


def test_python_values_key_by_type_and_value(capsys):
    @traced
    def f(x):
        print("trace", repr(x))
        return x

    with pytest.warns(RetracingWarning, match="'x'"):
        for value in (1, 1, True, 1.0, "1", None, 2):
            f(value)
    assert f.experimental_get_tracing_count() == 6
    assert f(True) is np.True_ or f(True) == True  # noqa: E712
    assert f(None) is None


def test_nesting_is_part_of_the_key():
    @traced
    def total(xs):
        return xs[0] + xs[1]

    total([np.int64(1), np.int64(2)])
    total([np.int64(3), np.int64(4)])
    assert total.experimental_get_tracing_count() == 1
    total((np.int64(3), np.int64(4)))
    total({0: np.int64(3), 1: np.int64(4)})
    assert total.experimental_get_tracing_count() == 3


def test_keyword_and_positional_calls_share_a_trace():
    @traced
    def f(a, b=2):
        return a * b

    assert f(np.int64(3)) == 6
    assert f(np.int64(3), 2) == 6
    assert f(a=np.int64(4), b=2) == 8
    assert f.experimental_get_tracing_count() == 1
    assert f(np.int64(3), b=3) == 9
    assert f.experimental_get_tracing_count() == 2


def test_objects_keyed_by_identity_and_not_kept_alive():
    class Model:
        def __init__(self, w):
            self.w = w

    @traced
    def evaluate(model, x):
        return model.w * x

    m1, m2 = Model(2.0), Model(3.0)
    assert evaluate(m1, np.float64(1)) == 2.0
    m1.w = 5.0  # same object: same key, the trace keeps the old value
    assert evaluate(m1, np.float64(1)) == 2.0
    assert evaluate(m2, np.float64(1)) == 3.0
    ref = weakref.ref(m1)
    del m1
    gc.collect()
    assert ref() is None


_PRIMITIVE_VALUES = st.one_of(
    st.booleans(), st.integers(-3, 3), st.sampled_from([0.0, 1.0, 2.5]), st.sampled_from(["a", "b"]),
    st.none(),
)


@settings(max_examples=30, deadline=None)
@given(st.lists(_PRIMITIVE_VALUES, min_size=1, max_size=8))
def test_one_trace_per_distinct_type_and_value(values):
    @traced
    def f(x):
        return x

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RetracingWarning)
        for value in values:
            out = f(value)
            assert out == value or (out is None and value is None)
    assert f.experimental_get_tracing_count() == len({(type(v), v) for v in values})


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["float32", "int64"]), st.integers(0, 3)), min_size=1, max_size=8))
def test_one_trace_per_distinct_dtype_and_shape(arrays):
    @traced
    def f(x):
        return x + x

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RetracingWarning)
        for dtype, size in arrays:
            np.testing.assert_array_equal(f(np.ones(size, dtype)), np.full(size, 2, dtype))
    assert f.experimental_get_tracing_count() == len(set(arrays))


def test_spec_and_array_calls_share_a_trace():
    @traced
    def f(x):
        return x + 1

    cf = f.get_concrete_function(ag.TensorSpec([3], np.float64))
    f(np.zeros(3))
    assert f.experimental_get_tracing_count() == 1
    assert f.get_concrete_function(np.zeros(3)) is cf


def test_zero_and_negative_zero_trace_separately():
    """arctan2(0.0, -1) is pi and arctan2(-0.0, -1) is -pi: one shared trace would return one of them twice."""
    f = ag.function(lambda x, c: np.arctan2(c, x))
    x = np.float64(-1.0)
    for _ in range(3):  # the fast call, once hot, must tell them apart too
        assert f(x, 0.0) == np.pi
        assert f(x, -0.0) == -np.pi
    assert f.experimental_get_tracing_count() == 2


def test_a_nan_argument_traces_once():
    f = ag.function(lambda x, c: x + c)
    for _ in range(6):
        assert np.isnan(f(np.float64(1.0), float("nan")))
    assert f.experimental_get_tracing_count() == 1


def test_concrete_function_keeps_a_negative_zero_default_and_refuses_positive_zero():
    f = ag.function(lambda x, c: np.arctan2(c, x))
    cf = f.get_concrete_function(ag.TensorSpec((), np.float64), -0.0)
    assert cf(np.float64(-1.0)) == -np.pi  # the left-out Python argument keeps its traced value
    assert cf(np.float64(-1.0), -0.0) == -np.pi
    with pytest.raises(TypeError, match="float value -0.0 .* called with float value 0.0"):
        cf(np.float64(-1.0), 0.0)


def test_a_big_endian_array_runs_the_native_trace_with_numpys_result():
    f = ag.function(lambda x: np.sum(x * 2) + x[0])
    big = np.array([1.5, 2.0, -3.0], dtype=">f4")
    native = big.astype(np.float32)
    for value in (big, native, big, native):  # the general call, then the fast call once hot
        out = f(value)
        assert out == np.sum(native * 2) + native[0] and out.dtype == np.float32
    assert f.experimental_get_tracing_count() == 1
    nested = ag.function(lambda pair: pair[0] + pair[1])
    np.testing.assert_array_equal(nested([big, native]), native + native)


def test_a_big_endian_array_fits_a_concrete_function_and_an_input_signature():
    f = ag.function(lambda x: x * 2)
    cf = f.get_concrete_function(ag.TensorSpec((3,), np.float32))
    big = np.array([1.0, 2.0, 3.0], dtype=">f4")
    for _ in range(2):
        np.testing.assert_array_equal(cf(big), [2.0, 4.0, 6.0])
    signed = ag.function(lambda x: x * 2, input_signature=[ag.TensorSpec((None,), np.float32)])
    np.testing.assert_array_equal(signed(big), [2.0, 4.0, 6.0])
    assert ag.TensorSpec((3,), ">f4") == ag.TensorSpec((3,), np.float32)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix itself
def test_a_masked_array_or_matrix_is_refused_before_tracing():
    calls = []

    def total(x):
        calls.append(1)
        return np.sum(x)

    f = ag.function(total)
    masked = np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    with pytest.raises(TypeError, match=r"MaskedArray.*x\.filled\(value\).*np\.asarray\(x\)"):
        f(masked)
    with pytest.raises(TypeError, match="MaskedArray"):
        f([masked])  # nested in a list
    with pytest.raises(TypeError, match=r"matrix.*x @ y"):
        f(np.matrix([[1.0, 2.0]]))
    assert calls == []  # refused at the key, not after a trace
    assert f(masked.filled(0.0)) == 4.0


def test_a_masked_array_is_refused_by_concrete_functions_and_input_signatures():
    masked = np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    cf = ag.function(lambda x: np.sum(x)).get_concrete_function(ag.TensorSpec((3,), np.float64))
    with pytest.raises(TypeError, match="MaskedArray"):
        cf(masked)
    signed = ag.function(lambda x: np.sum(x), input_signature=[ag.TensorSpec((3,), np.float64)])
    with pytest.raises(TypeError, match="MaskedArray"):
        signed(masked)


def test_a_memmap_is_accepted_as_plain_data(tmp_path):
    f = ag.function(lambda x: np.sum(x))
    mm = np.memmap(tmp_path / "data.bin", dtype=np.float64, mode="w+", shape=(3,))
    mm[:] = [1.0, 2.0, 3.0]
    assert f(mm) == 6.0 and f(np.arange(3.0)) == 3.0
    assert f.experimental_get_tracing_count() == 1
