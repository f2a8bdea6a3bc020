"""Products and np.linalg: shape rules with unknown sizes, NumPy's dtypes, alignment errors."""

from __future__ import annotations

import numpy as np
import pytest

from runtime.ir.errors import StagingError
from runtime.ops.linalg import dot_shape, einsum_shape, inner_shape, outer_shape
from tests.runtime.ops.staging import check, stage

RNG = np.random.default_rng(4)
SHAPES = [((), (3,)), ((3,), ()), ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
          ((5, 2, 3), (3, 4)), ((2, 3), (6, 3, 4)), ((5, 2, 3), (6, 3, 4))]


@pytest.mark.parametrize("sa, sb", SHAPES)
@pytest.mark.parametrize("dtypes", [(np.float32, np.float32), (np.int8, np.int64), (np.bool_, np.float16)])
def test_dot_matches_numpy(sa, sb, dtypes):
    a = RNG.integers(0, 3, sa).astype(dtypes[0])
    b = RNG.integers(0, 3, sb).astype(dtypes[1])
    check(np.dot, a, b)
    check(np.dot, a, b, unknown=(0,))
    check(np.dot, a, b, unknown=(1,))


@pytest.mark.parametrize("sa, sb", [((3,), (3,)), ((2, 3), (4, 3)), ((5, 2, 3), (3,)), ((), (2, 2))])
def test_inner_and_outer(sa, sb):
    a, b = RNG.uniform(size=sa), RNG.integers(0, 4, sb)
    check(np.inner, a, b)
    check(np.inner, a, b, unknown=(0,))
    check(np.outer, a, b)
    check(np.outer, a, b, unknown=(1,))


def test_shape_rules_with_unknown_sizes():
    assert dot_shape((None, 3), (3, None)) == (None, None)
    assert dot_shape((2, None), (None, 4)) == (2, 4)
    assert dot_shape(None, (3,)) is None
    assert inner_shape((2, None), (None,)) == (2,)
    assert outer_shape((2, None), (3,)) == (None, 3)
    with pytest.raises(StagingError, match="not aligned"):
        dot_shape((2, 3), (4, 5))
    with pytest.raises(StagingError, match="not aligned"):
        inner_shape((2, 3), (4,))


def test_tracing_does_not_multiply_full_matrices():
    graph, (out,) = stage(np.dot, [np.zeros((3000, 3000), np.float32), np.zeros((3000, 2), np.float32)])
    assert out.shape == (3000, 2)


def test_linalg():
    m = RNG.uniform(size=(3, 3)) + 3 * np.eye(3)
    check(np.linalg.inv, m)
    check(np.linalg.det, m)
    check(lambda x: np.linalg.solve(x, x[0]), m)
    check(lambda x: np.linalg.norm(x, axis=0), m)
    check(np.linalg.inv, m, unknown=(0,))
    with pytest.raises(StagingError, match="axis= argument"):
        stage(lambda x, k: np.linalg.norm(x, axis=k), [m, np.int64(0)])


EINSUMS = [("ij,jk->ik", (2, 3), (3, 4)), ("ij,jk", (2, 3), (3, 4)), ("ii", (3, 3)), ("ij->ji", (2, 3)),
           ("i,i->", (3,), (3,)), ("bij,bjk->bik", (5, 2, 3), (5, 3, 4)), ("ij,ij->ij", (2, 1), (2, 4)),
           ("...ij,jk->...ik", (5, 2, 3), (3, 4)), ("i,j->ij", (2,), (3,)), ("ji", (2, 3))]


@pytest.mark.parametrize("case", EINSUMS, ids=lambda c: c[0])
def test_einsum(case):
    subscripts, *shapes = case
    arrays = [RNG.integers(0, 3, s).astype(np.float32) for s in shapes]
    check(lambda *xs: np.einsum(subscripts, *xs), *arrays)
    check(lambda *xs: np.einsum(subscripts, *xs), *arrays, unknown=(0,))


def test_einsum_shape_rule():
    assert einsum_shape("ij,jk->ik", [(None, 3), (3, None)]) == (None, None)
    assert einsum_shape("ij,jk->ik", [(2, None), (None, 4)]) == (2, 4)
    assert einsum_shape("ij,jk->ik", [(2, None), (3, 4)]) == (2, 4)
    assert einsum_shape("ij,ij->ij", [(None, 1), (2, 4)]) == (2, 4)
    with pytest.raises(StagingError, match="sizes 3 and 4"):
        einsum_shape("ij,jk->ik", [(2, 3), (4, 5)])


@pytest.mark.parametrize("sa, sb, axes", [((2, 3, 4), (3, 4, 5), 2), ((2, 3), (3, 4), 1), ((2, 3), (4, 5), 0),
                                          ((2, 3, 4), (4, 3), ([1, 2], [1, 0])), ((3, 2), (3,), (0, 0))])
def test_tensordot(sa, sb, axes):
    a, b = RNG.uniform(size=sa), RNG.integers(0, 3, sb)
    check(lambda x, y: np.tensordot(x, y, axes=axes), a, b)
    check(lambda x, y: np.tensordot(x, y, axes=axes), a, b, unknown=(0,))


def test_big_einsum_traces_without_computing():
    graph, (out,) = stage(lambda a, b: np.einsum("ij,jk->ik", a, b), [np.zeros((2000, 2000)), np.zeros((2000, 3))])
    assert out.shape == (2000, 3)
