import gc
import weakref

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from autograph.tracing.keys import Identity, is_tensor_like, is_variable, key_is_alive, leaf_key
from autograph.tracing.spec import TensorSpec


class Thing:
    pass


def test_arrays_keyed_by_dtype_and_shape():
    assert leaf_key(np.zeros(3, np.float32)) == leaf_key(np.ones(3, np.float32))
    assert leaf_key(np.zeros(3, np.float32)) != leaf_key(np.zeros(4, np.float32))
    assert leaf_key(np.zeros(3, np.float32)) != leaf_key(np.zeros(3, np.float64))
    assert leaf_key(np.int64(1)) == leaf_key(np.int64(7)) == leaf_key(np.array(2))
    assert leaf_key(TensorSpec([3])) == leaf_key(np.zeros(3, np.float32))


def test_python_values_keyed_by_type_and_value():
    keys = {leaf_key(1), leaf_key(True), leaf_key(1.0), leaf_key("1"), leaf_key(None)}
    assert len(keys) == 5
    assert leaf_key(2) == leaf_key(2)
    assert leaf_key(2) != leaf_key(3)


def test_objects_keyed_by_identity_weakly():
    a, b = Thing(), Thing()
    assert leaf_key(a) == leaf_key(a)
    assert leaf_key(a) != leaf_key(b)
    key = (None, (leaf_key(a),))
    ref = weakref.ref(a)
    del a
    gc.collect()
    assert ref() is None
    assert not key_is_alive(key)
    assert key_is_alive((None, (leaf_key(b),)))


def test_unweakrefable_objects_still_keyed():
    part = Identity([1, 2])
    assert part == part
    assert part.ref() == [1, 2]


def test_classification():
    assert is_tensor_like(np.zeros(2)) and is_tensor_like(np.float32(1))
    assert not is_tensor_like(1.0)

    class FakeVariable:
        def __autograph_tensor__(self):
            raise AssertionError

    assert is_variable(FakeVariable())
    assert not is_variable(Thing())


def test_flat_parts_one_pass_or_none_for_containers():
    from autograph.tracing.keys import flat_parts

    x = np.zeros(2, np.float32)
    assert flat_parts((x, 1.0, None)) == ((x.dtype, (2,)), (float, 1.0), (type(None), None))
    assert flat_parts((x, [1])) is None
    assert flat_parts(({"a": 1},)) is None


def test_nan_keys_equal():
    assert leaf_key(float("nan")) == leaf_key(float("nan"))
    from autograph.tracing.keys import flat_parts

    assert flat_parts((float("nan"),)) == flat_parts((float("nan"),))


def test_as_tensor_value_turns_python_numbers_into_arrays():
    from autograph.tracing.keys import as_tensor_value

    assert isinstance(as_tensor_value(3), np.ndarray)
    assert as_tensor_value([1, 2]).shape == (2,)
    thing = Thing()
    assert as_tensor_value(thing) is thing
    assert as_tensor_value("s") == "s"
    assert as_tensor_value([]) == []


def test_signed_zeros_key_apart_and_nans_key_alike():
    """`0.0 == -0.0`, but NumPy tells them apart (arctan2, copysign, 1/x): each is its own trace."""
    from autograph.tracing.keys import flat_parts

    assert leaf_key(0.0) != leaf_key(-0.0)
    assert flat_parts((0.0,)) != flat_parts((-0.0,))
    assert leaf_key(-0.0) == leaf_key(-0.0) and hash(leaf_key(-0.0)) == hash(leaf_key(-0.0))
    assert leaf_key(float("nan")) != leaf_key(-float("nan"))  # np.signbit tells them apart
    assert leaf_key(complex(1.0, 0.0)) != leaf_key(complex(1.0, -0.0))
    assert leaf_key(complex(float("nan"), 1.0)) != leaf_key(complex(float("nan"), 2.0))
    assert leaf_key(complex(float("nan"), 1.0)) == leaf_key(complex(float("nan"), 1.0))
    assert leaf_key(1.5) == (float, 1.5) and leaf_key(0) == leaf_key(0)
    assert leaf_key(0.0) != leaf_key(0) and leaf_key(0.0) != leaf_key(False)


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True), st.floats(allow_nan=True, allow_infinity=True))
def test_float_keys_are_equal_exactly_when_the_bits_are(a, b):
    import struct

    same_bits = struct.pack("<d", a) == struct.pack("<d", b)
    assert (leaf_key(a) == leaf_key(b)) == same_bits
    if same_bits:
        assert hash(leaf_key(a)) == hash(leaf_key(b))
