"""input_arrays: which ndarrays a graph input takes as they are, converts, or refuses."""

import numpy as np
import pytest

from runtime.ir.input_arrays import native_dtype, plain_array


def test_plain_native_arrays_pass_through_untouched():
    x = np.arange(3.0)
    assert plain_array(x) is x


@pytest.mark.parametrize("dtype", [">f4", ">i8", ">c16", "<f4", "=u2"])
def test_any_byte_order_becomes_native_with_the_same_values(dtype):
    x = np.array([1, 2, 3], dtype=dtype)
    out = plain_array(x)
    assert out.dtype.isnative and out.dtype == native_dtype(x.dtype)
    np.testing.assert_array_equal(out, x)


def test_a_memmap_is_used_as_the_plain_data_it_views(tmp_path):
    mm = np.memmap(tmp_path / "data.bin", dtype=">f8", mode="w+", shape=(2, 2))
    mm[:] = [[1, 2], [3, 4]]
    out = plain_array(mm)
    assert type(out) is np.ndarray and out.dtype.isnative
    np.testing.assert_array_equal(out, [[1, 2], [3, 4]])


class Tagged(np.ndarray):
    pass


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix itself
@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda: np.ma.masked_array([1.0, 2.0], mask=[0, 1]), r"MaskedArray.*x\.filled\(value\).*np\.asarray\(x\)"),
        (lambda: np.matrix([[1.0, 2.0]]), r"matrix.*`\*`.*np\.asarray\(x\).*x @ y"),
        (lambda: np.zeros(2).view(Tagged), r"Tagged.*np\.asarray\(x\)"),
        (lambda: np.rec.array([(1, 2.0)], dtype=[("a", "i8"), ("b", "f8")]), r"recarray.*np\.asarray\(x\)"),
    ],
)
def test_subclasses_whose_meaning_a_graph_would_drop_are_refused_with_the_fix(make, says):
    with pytest.raises(TypeError, match=says):
        plain_array(make())
