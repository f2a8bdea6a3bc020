import numpy as np
import pytest

from autograph.tracing.spec import TensorSpec


def test_defaults_and_repr():
    spec = TensorSpec([None])
    assert spec.dtype == np.float32
    assert spec.shape == (None,)
    assert repr(spec) == "TensorSpec(shape=(None,), dtype=float32, name=None)"
    assert repr(TensorSpec(None, np.int64, "a")) == "TensorSpec(shape=None, dtype=int64, name='a')"


@pytest.mark.parametrize(
    ("spec", "value", "fits"),
    [
        (TensorSpec([None], np.int32), np.array([1, 2], np.int32), True),
        (TensorSpec([None], np.int32), np.array([[1, 2]], np.int32), False),
        (TensorSpec([None], np.int32), np.array([1.0, 2.0]), False),
        (TensorSpec(None, np.float64), np.zeros((2, 3, 4)), True),
        (TensorSpec([2, None]), np.zeros((2, 7), np.float32), True),
        (TensorSpec([2, None]), np.zeros((3, 7), np.float32), False),
        (TensorSpec([], np.int64), np.int64(3), True),
    ],
)
def test_is_compatible_with(spec, value, fits):
    assert spec.is_compatible_with(value) is fits


def test_spec_compatibility_and_common():
    wide = TensorSpec([None, 3])
    assert wide.is_compatible_with(TensorSpec([5, 3]))
    assert not TensorSpec([5, 3]).is_compatible_with(wide)
    assert not wide.is_compatible_with(TensorSpec(None))
    assert TensorSpec([2, 3]).most_specific_common(TensorSpec([4, 3])) == TensorSpec([None, 3])


def test_equality_and_hash():
    assert TensorSpec([1], np.int32) == TensorSpec((1,), "int32")
    assert len({TensorSpec([1]), TensorSpec([1]), TensorSpec([2])}) == 2
    assert TensorSpec.from_value(np.zeros((2,), np.int8)) == TensorSpec([2], np.int8)


def test_text_dtypes_print_as_string_and_bytes_whatever_their_length():
    from autograph.tracing.spec import dtype_label

    assert dtype_label(np.dtype("<U3")) == "string"
    assert dtype_label(np.dtype("S7")) == "bytes"
    assert dtype_label(np.dtype(np.float32)) == "float32"
    assert "dtype=string," in repr(TensorSpec((), np.dtype("<U5")))
