"""The gradients of np.linalg's decompositions, np.fft, item assignment, TensorArray gather/scatter/
concat/split, the functional forms and ag.random, against central finite differences in float64.

Inputs keep the derivatives well defined and well conditioned: eigenvalues
and singular values well apart, SPD matrices for cholesky, tall full-rank
matrices for QR and lstsq. Functions of eigen- and singular vectors are
invariant to each vector's sign (squares, products of pairs).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograph as ag
from autograph import errors
from tests.runtime.passes.gradient.checks import assert_gradient, numeric_gradient

FAST = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _spread(rng: np.random.Generator, n: int, low: float = 1.0) -> np.ndarray:
    """n values at least 0.5 apart."""
    return low + np.cumsum(0.5 + rng.random(n))


def _orthogonal(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.linalg.qr(rng.normal(size=(n, n)))[0]


def _with_singular_values(rng, m: int, n: int) -> np.ndarray:
    k = min(m, n)
    u, v = _orthogonal(rng, m)[:, :k], _orthogonal(rng, n)[:, :k]
    return u @ np.diag(_spread(rng, k)) @ v.T


seeds = st.integers(0, 2**32 - 1)
batch = st.sampled_from([(), (2,)])


@FAST
@given(seed=seeds, n=st.integers(1, 4), lead=batch, upper=st.booleans())
def test_eigh_reads_one_triangle(seed, n, lead, upper):
    rng = np.random.default_rng(seed)
    q = _orthogonal(rng, n)
    a = q @ np.diag(_spread(rng, n, -2.0)) @ q.T + (np.triu if not upper else np.tril)(rng.normal(size=(n, n)), 1 if not upper else -1)
    a = np.broadcast_to(a, (*lead, n, n)).copy()
    w_weights, v_weights = rng.normal(size=n), rng.normal(size=(n, n))
    uplo = "U" if upper else "L"

    def f(a):
        w, v = np.linalg.eigh(a, UPLO=uplo)
        return np.sum(w * w_weights) + np.sum(v ** 2 * v_weights) + np.sum(np.linalg.eigvalsh(a, UPLO=uplo) ** 2)

    assert_gradient(f, a)


@FAST
@given(seed=seeds, m=st.integers(1, 4), n=st.integers(1, 4), lead=batch)
def test_svd(seed, m, n, lead):
    rng = np.random.default_rng(seed)
    a = np.broadcast_to(_with_singular_values(rng, m, n), (*lead, m, n)).copy()
    k = min(m, n)
    wu, ws, wv = rng.normal(size=(m, k)), rng.normal(size=k), rng.normal(size=(k, n))

    def f(a):
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        return np.sum(u ** 2 * wu) + np.sum(s * ws) + np.sum(vh ** 2 * wv) + np.sum(np.linalg.svd(a, compute_uv=False))

    assert_gradient(f, a)


def test_svd_full_matrices_of_a_square_matrix():
    rng = np.random.default_rng(3)
    a = _with_singular_values(rng, 3, 3)
    assert_gradient(lambda a: np.linalg.svd(a)[0][:, 0] * np.linalg.svd(a)[2][0], a)


@FAST
@given(seed=seeds, n=st.integers(1, 3), extra=st.integers(0, 2), lead=batch)
def test_qr_of_tall_matrices(seed, n, extra, lead):
    rng = np.random.default_rng(seed)
    a = np.broadcast_to(_with_singular_values(rng, n + extra, n), (*lead, n + extra, n)).copy()
    wq, wr = rng.normal(size=(n + extra, n)), rng.normal(size=(n, n))

    def f(a):
        q, r = np.linalg.qr(a)
        return np.sum(q * wq) + np.sum(r * wr) + np.sum(np.linalg.qr(a, mode="r") ** 2)

    assert_gradient(f, a)


@FAST
@given(seed=seeds, n=st.integers(1, 4), lead=batch, upper=st.booleans())
def test_cholesky_of_spd_matrices(seed, n, lead, upper):
    rng = np.random.default_rng(seed)
    b = rng.normal(size=(n, n))
    other = (np.triu if not upper else np.tril)(rng.normal(size=(n, n)), 1 if not upper else -1)
    a = np.broadcast_to(b @ b.T + n * np.eye(n) + other, (*lead, n, n)).copy()
    w = rng.normal(size=(n, n))
    assert_gradient(lambda a: np.linalg.cholesky(a, upper=upper) * w, a)


@FAST
@given(seed=seeds, m=st.integers(1, 5), n=st.integers(1, 4), columns=st.sampled_from([None, 2]))
def test_lstsq_solution_and_residuals(seed, m, n, columns):
    rng = np.random.default_rng(seed)
    a = _with_singular_values(rng, m, n)
    b = rng.normal(size=(m,) if columns is None else (m, columns))

    def f(a, b):
        x, residuals, _, sv = np.linalg.lstsq(a, b)
        return np.sum(x ** 2) + np.sum(residuals) + np.sum(sv)

    assert_gradient(f, a, b)


@FAST
@given(seed=seeds, m=st.integers(1, 4), n=st.integers(1, 4), lead=batch)
def test_pinv_slogdet_matrix_power(seed, m, n, lead):
    rng = np.random.default_rng(seed)
    a = np.broadcast_to(_with_singular_values(rng, m, n), (*lead, m, n)).copy()
    assert_gradient(lambda a: np.linalg.pinv(a) ** 2, a)
    square = np.broadcast_to(_with_singular_values(rng, n, n), (*lead, n, n)).copy()
    assert_gradient(lambda a: np.linalg.slogdet(a)[1] + np.linalg.slogdet(a)[0], square)
    power = int(rng.integers(-2, 4))
    assert_gradient(lambda a: np.linalg.matrix_power(a, power) * np.arange(n * n).reshape(n, n), square)


def test_decompositions_refuse_what_has_no_gradient():
    a = np.random.default_rng(0).normal(size=(3, 2))
    with pytest.raises(errors.StagingError, match="full_matrices=False"):
        ag.grad(lambda a: np.sum(np.linalg.svd(a)[0]))(a)
    with pytest.raises(errors.StagingError, match="fewer rows than columns"):
        ag.grad(lambda a: np.sum(np.linalg.qr(a.T)[0]))(a)
    with pytest.raises(errors.StagingError, match="complete QR"):
        ag.grad(lambda a: np.sum(np.linalg.qr(a, mode="complete")[0]))(a)
    with pytest.raises(errors.StagingError, match="test_vjp_staples.py"):
        ag.grad(lambda a: np.sum(np.linalg.svd(a, hermitian=True)[1]))(a @ a.T)


FFTS = {
    "fft": lambda x: np.abs(np.fft.fft(x)) ** 2,
    "fft_padded_ortho": lambda x: np.abs(np.fft.fft(x, n=9, norm="ortho")),
    "fft_cropped": lambda x: np.real(np.fft.fft(x, n=3)) + 2 * np.imag(np.fft.fft(x, n=3)),
    "filter": lambda x: np.real(np.fft.ifft(np.fft.fft(x) * np.exp(0.3j * np.arange(x.shape[-1])))),
    "ifft_forward": lambda x: np.abs(np.fft.ifft(x * (1 + 2j), norm="forward")),
    "rfft": lambda x: np.abs(np.fft.rfft(x)) * np.arange(x.shape[-1] // 2 + 1),
    "rfft_n": lambda x: np.abs(np.fft.rfft(x, n=7, norm="forward")),
    "irfft": lambda x: np.fft.irfft(np.fft.rfft(x) * (1 + np.arange(x.shape[-1] // 2 + 1))),
    "irfft_n_odd": lambda x: np.fft.irfft(np.fft.rfft(x) * 1j, n=5, norm="ortho") ** 2,
    "fft2": lambda x: np.abs(np.fft.fft2(x[None] * np.ones((3, 1)), s=(2, 4))),
    "ifft2": lambda x: np.real(np.fft.ifft2(np.outer(x, x) * (1 - 1j))),
    "fftn": lambda x: np.abs(np.fft.fftn(np.outer(x, x), axes=(0,))),
    "ifftn_s": lambda x: np.imag(np.fft.ifftn(np.outer(x, x) * 1j, s=(4, 2), axes=(0, 1))),
    "shifts": lambda x: np.fft.fftshift(x) * np.arange(x.shape[-1]) + np.fft.ifftshift(x ** 2),
}


@pytest.mark.parametrize("name", sorted(FFTS))
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds, n=st.integers(2, 6))
def test_fft(name, seed, n):
    x = np.random.default_rng(seed).normal(size=n)

    def f(x):
        y = FFTS[name](x)
        return y * (1.0 + np.arange(np.size(y)).reshape(np.shape(y)))  # every element weighed differently

    assert_gradient(f, x)


def test_complex_products_use_the_conjugate():
    """sum(|h * x|^2) for a complex h: the gradient with respect to a real x is 2 |h|^2 x."""
    h = np.array([1 + 2j, -0.5j, 3.0])
    x = np.array([0.3, -1.2, 2.0])
    got = ag.grad(lambda x: np.sum(np.abs(h * x) ** 2))(x)
    np.testing.assert_allclose(got, 2 * np.abs(h) ** 2 * x)
    assert got.dtype == np.float64


def test_a_complex_source_gets_dl_dre_plus_i_dl_dim():
    rng = np.random.default_rng(2)
    z = rng.normal(size=4) + 1j * rng.normal(size=4)
    h = rng.normal(size=4) + 1j * rng.normal(size=4)

    def loss(z):
        w = np.fft.fft(z) * h + np.exp(z) / (z + 3.0)
        return (np.sum(np.abs(w) ** 2) + np.sum(np.real(z * z)) + np.sum(np.imag(np.conj(z) ** 3))
                + np.var(z * h) + np.std(z) + np.linalg.norm(z - h))

    got = ag.grad(loss)(z)
    d_re = numeric_gradient(lambda re: loss(re + 1j * z.imag), [z.real], 0)
    d_im = numeric_gradient(lambda im: loss(z.real + 1j * im), [z.imag], 0)
    np.testing.assert_allclose(got, d_re + 1j * d_im, rtol=1e-5, atol=1e-6)


def test_the_sign_of_a_complex_value_is_not_piecewise_constant():
    z = np.array([1.0 + 1.0j, -2.0j])
    with pytest.raises(errors.StagingError, match="np.sign of a complex value"):
        ag.grad(lambda z: np.sum(np.real(np.sign(z))))(z)
    np.testing.assert_allclose(ag.grad(lambda x: np.sum(np.sign(x) * x))(np.array([1.0, -2.0])), [1.0, -1.0])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fft_with_random_axes_lengths_and_norms(data):
    """Random 2-d inputs, transformed along a random axis (or axes) with random n=/s= and norm=."""
    shape = (data.draw(st.integers(1, 4)), data.draw(st.integers(2, 4)))
    x = np.random.default_rng(data.draw(seeds)).normal(size=shape)
    norm = data.draw(st.sampled_from([None, "backward", "ortho", "forward"]))
    fn = data.draw(st.sampled_from(["fft", "ifft", "rfft", "irfft", "fftn", "ifftn", "fft2"]))
    if fn in ("fftn", "ifftn", "fft2"):
        axes = data.draw(st.sampled_from([(0,), (1,), (0, 1), (1, 0), (-1,)]))
        if fn == "fft2":
            axes = (0, 1)
        s = data.draw(st.none() | st.tuples(*[st.integers(1, 5) for _ in axes]))
        kwargs = {"axes": axes, "s": s}
    else:
        lengths = st.integers(2, 6) if fn == "irfft" else st.none() | st.integers(2, 6)  # irfft of 1 bin: n=0
        kwargs = {"axis": data.draw(st.sampled_from([0, 1, -1])), "n": data.draw(lengths)}
    transform = getattr(np.fft, fn)
    made_complex = fn == "irfft" or (fn != "rfft" and data.draw(st.booleans()))

    def f(x):
        z = x * (1.0 + 0.5j) if made_complex else x
        y = transform(z, norm=norm, **kwargs)
        return np.abs(y + 0.1) * (1.0 + np.arange(np.size(y)).reshape(np.shape(y)))

    assert_gradient(f, x)
