"""np.linalg decompositions staged: types equal NumPy's (hypothesis over shapes and dtypes), values too."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.ir.errors import StagingError
from tests.runtime.ops.staging import check, stage

DTYPES = st.sampled_from([np.float64, np.float32, np.complex128])
SQUARE = st.tuples(st.lists(st.integers(1, 3), max_size=2), st.integers(1, 4))
MATRIX = st.tuples(st.lists(st.integers(1, 3), max_size=1), st.integers(1, 4), st.integers(1, 4))


def _random(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.normal(size=shape)
    return a.astype(dtype)


def _spd(batch, n, dtype, seed):
    """A Hermitian positive-definite stack (for eigh and cholesky)."""
    a = _random((*batch, n, n), dtype, seed)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def _unknowns(a):
    return [(), (0,), tuple((0, k) for k in range(a.ndim - 2, a.ndim))]


@settings(max_examples=25, deadline=None)
@given(SQUARE, DTYPES, st.integers(0, 2**16))
def test_hermitian_and_square_functions_match_numpy(case, dtype, seed):
    batch, n = case
    a = _spd(batch, n, dtype, seed)
    for unknown in _unknowns(a):
        check(np.linalg.eigh, a, unknown=unknown)
        check(lambda x: np.linalg.eigh(x, UPLO="U"), a, unknown=unknown)
        check(np.linalg.eigvalsh, a, unknown=unknown)
        check(np.linalg.cholesky, a, unknown=unknown)
        check(np.linalg.slogdet, a, unknown=unknown)
        check(lambda x: np.linalg.matrix_power(x, 3), a, unknown=unknown)
        check(lambda x: np.linalg.matrix_power(x, -1), a, unknown=unknown)
        check(lambda x: np.linalg.matrix_power(x, 0), a, unknown=unknown)


@settings(max_examples=25, deadline=None)
@given(MATRIX, DTYPES, st.integers(0, 2**16), st.booleans())
def test_rectangular_functions_match_numpy(case, dtype, seed, full):
    batch, m, n = case
    a = _random((*batch, m, n), dtype, seed)
    for unknown in _unknowns(a):
        check(lambda x: np.linalg.svd(x, full_matrices=full), a, unknown=unknown)
        check(lambda x: np.linalg.svd(x, compute_uv=False), a, unknown=unknown)
        check(lambda x: np.linalg.qr(x, mode="complete" if full else "reduced"), a, unknown=unknown)
        check(lambda x: np.linalg.qr(x, mode="r"), a, unknown=unknown)
        check(np.linalg.pinv, a, unknown=unknown)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 5), st.integers(1, 4), st.one_of(st.none(), st.integers(1, 3)), st.integers(0, 2**16))
def test_lstsq_matches_numpy(m, n, k, seed):
    a = _random((m, n), np.float64, seed)
    b = _random((m,) if k is None else (m, k), np.float64, seed + 1)
    # the residuals' length depends on the rank, a value: staged as unknown (None,)
    check(np.linalg.lstsq, a, b, exact=False)
    check(np.linalg.lstsq, a, b, unknown=(0, 1))


def test_results_are_numpys_named_tuples_of_tensors():
    graph, leaves = stage(lambda x: np.linalg.svd(x).S, [np.eye(3)])
    assert leaves[0].shape == (3,)
    graph, leaves = stage(lambda x: np.linalg.eigh(x).eigenvectors, [np.eye(3)])
    assert leaves[0].shape == (3, 3)


def test_emitted_code_names_the_numpy_function():
    from runtime.backends.numpy.codegen import generate_source

    graph, leaves = stage(lambda x: np.linalg.svd(x, full_matrices=False), [np.ones((4, 3))])
    graph.set_outputs([leaf.node for leaf in leaves])
    graph.finish()
    source = generate_source(graph).source
    assert "np.linalg.svd(" in source and "full_matrices=False)[0]" in source


def test_tracing_does_not_decompose_full_matrices():
    graph, leaves = stage(np.linalg.svd, [np.zeros((3000, 3000))])
    assert [leaf.shape for leaf in leaves] == [(3000, 3000), (3000,), (3000, 3000)]


def test_errors_name_the_function():
    with pytest.raises(StagingError, match="np.linalg.eigh: last 2 dimensions .* square, got 2x3"):
        stage(np.linalg.eigh, [np.ones((2, 3))])
    with pytest.raises(StagingError, match="np.linalg.svd: 1-dimensional array given"):
        stage(np.linalg.svd, [np.ones(3)])
    with pytest.raises(StagingError, match="lstsq: incompatible dimensions"):
        stage(np.linalg.lstsq, [np.ones((3, 2)), np.ones(4)])
    with pytest.raises(StagingError, match="mode='raw'"):
        stage(lambda x: np.linalg.qr(x, mode="raw"), [np.ones((3, 2))])
    with pytest.raises(StagingError, match="must be a Python"):
        stage(np.linalg.matrix_power, [np.ones((2, 2)), np.int64(2)])
