"""np.linalg and np.fft under jit_compile=True agree with the NumPy backend.

They lower by their op's path to jax.numpy (a decomposition's op takes one of its results by
index). Tolerance: float64 rtol 1e-10, float32 1e-5. On the CPU XLA calls the same LAPACK
routines as NumPy (eigenvector signs included) and a pocketfft-derived FFT, but its BLAS blocks
products differently, and JAX solves lstsq through an SVD where NumPy calls gelsd: the results
differ in the last few bits (measured up to 5e-15 relative), never more.
"""

import numpy as np
import pytest

import autograph as ag

pytest.importorskip("jax")

rng = np.random.default_rng(5)
A = rng.normal(size=(4, 4))
S = A @ A.T + 4 * np.eye(4)
B = rng.normal(size=(5, 3))
C = rng.normal(size=(2, 3, 3)) + 3 * np.eye(3)
V = rng.normal(size=8)
CASES = {
    "inv": (lambda a: np.linalg.inv(a), A),
    "solve": (lambda a, b: np.linalg.solve(a, b[:4]), A, B),
    "det_slogdet_batched": (lambda c: (np.linalg.det(c), np.linalg.slogdet(c)), C),
    "norms": (lambda a: (np.linalg.norm(a), np.linalg.norm(a, axis=1), np.linalg.norm(a, 1),
                         np.linalg.norm(a, np.inf), np.linalg.norm(a, 2), np.linalg.norm(a, "nuc")), A),
    "pinv_matrix_power": (lambda a, b: (np.linalg.pinv(b), np.linalg.matrix_power(a, 3)), A, B),
    "cholesky": (lambda s: np.linalg.cholesky(s), S),
    "eigh": (lambda s: np.linalg.eigh(s), S),
    "eigh_upper_eigvalsh": (lambda s: (np.linalg.eigh(s, UPLO="U").eigenvectors, np.linalg.eigvalsh(s)), S),
    "svd": (lambda b: np.linalg.svd(b), B),
    "svd_thin_values": (lambda b, c: (np.linalg.svd(b, full_matrices=False), np.linalg.svd(c, compute_uv=False)), B, C),
    "qr": (lambda b: (np.linalg.qr(b), np.linalg.qr(b, mode="complete"), np.linalg.qr(b, mode="r")), B),
    "lstsq_solution_rank_values": (lambda b, y: [np.linalg.lstsq(b, y, rcond=None)[i] for i in (0, 2, 3)], B, V[:5]),
    "fft_ifft": (lambda x: (np.fft.fft(x), np.fft.ifft(x), np.fft.fft(x, n=12), np.fft.fft(x, norm="ortho")), V),
    "rfft_irfft": (lambda x: (np.fft.rfft(x), np.fft.irfft(np.fft.rfft(x)), np.fft.rfft(x, n=5)), V),
    "fft2_fftn": (lambda a, c: (np.fft.fft2(a), np.fft.ifft2(a), np.fft.fftn(c, axes=(1, 2)), np.fft.ifftn(c)), A, C),
    "shifts_freq": (lambda x, a: (np.fft.fftshift(x), np.fft.ifftshift(a, axes=0), np.fft.fftfreq(8, d=x[0])), V, A),
    "fft_float32": (lambda x: np.fft.fft(x.astype(np.float32)), V),
}


def close(a, b):
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            close(x, y)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    rtol = 1e-5 if a.dtype in (np.float32, np.complex64) else 1e-10
    np.testing.assert_allclose(b, a, rtol=rtol, atol=rtol * 1e-3)


@pytest.mark.parametrize("name", sorted(CASES))
def test_agrees_with_the_numpy_backend(name):
    fn, *args = CASES[name]
    close(ag.function(fn)(*args), ag.function(fn, jit_compile=True)(*args))


def test_lstsq_residuals_are_refused_naming_the_line():
    """Their length depends on the rank of `a`: [] on NumPy for a rank-deficient `a`."""
    def f(a, y):
        return np.linalg.lstsq(a, y, rcond=None)[1]

    deficient = B.copy()
    deficient[:, 2] = deficient[:, 1]
    assert ag.function(f)(deficient, V[:5]).shape == (0,)
    with pytest.raises(ag.errors.StagingError, match=r"test_linalg_fft.py:\d+.*np.sum\(\(a @ x - b\) \*\* 2"):
        ag.function(f, jit_compile=True)(deficient, V[:5])
