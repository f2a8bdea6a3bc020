"""Agreement with jax.grad where JAX can differentiate (skipped where JAX is not installed)."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


@pytest.fixture(autouse=True)
def _float64_jax():
    """JAX in float64 for these comparisons only: the user's (and other tests') setting is kept."""
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", previous)


rng = np.random.default_rng(11)
A, B, V = rng.normal(size=(3, 4)), rng.normal(size=(4, 3)), rng.normal(size=(4,))
CASES = {
    "mlp": (lambda np_: lambda a, b: np_.sum(np_.tanh(a @ b) ** 2), A, B),
    "softmax": (lambda np_: lambda a, v: np_.sum(np_.exp(a @ v) / np_.sum(np_.exp(a @ v))
                                               * np_.arange(3.0)), A, V),
    "reductions": (lambda np_: lambda a, v: np_.max(a, axis=1).sum() * np_.std(v) + np_.prod(np_.abs(v) + 1), A, V),
    "indexing": (lambda np_: lambda a, v: np_.sum(a[1:, ::2] ** 2) + (v[np_.array([0, 3, 3])] ** 3).sum(), A, V),
    "linalg": (lambda np_: lambda a, b: np_.linalg.det(a @ b + 3 * np_.eye(3)) + np_.linalg.norm(a), A, B),
    "where_clip": (lambda np_: lambda a, v: np_.sum(np_.where(a > 0, a, 0.1 * a) * np_.clip(v, -0.5, 0.5)), A, V),
    "decompositions": (lambda np_: lambda a, b: (
        np_.sum(np_.linalg.eigvalsh(a @ a.T) * np_.arange(3.0)) + np_.sum(np_.linalg.svd(b, compute_uv=False))
        + np_.sum(np_.linalg.cholesky(a @ a.T + 3 * np_.eye(3)) ** 2) + np_.sum(np_.abs(np_.linalg.qr(b)[1]))
        + np_.linalg.slogdet(a @ b + 3 * np_.eye(3))[1] + np_.sum(np_.linalg.pinv(a) ** 2)
        + np_.sum(np_.linalg.lstsq(b, a[0], rcond=None)[0] ** 2)
    ), A, B),
    "fft": (lambda np_: lambda a, v: (
        np_.sum(np_.abs(np_.fft.fft(v)) ** 2 * np_.arange(4.0)) + np_.sum(np_.fft.irfft(np_.fft.rfft(v) * (1 + 2j)) * v)
        + np_.sum(np_.abs(np_.fft.fft2(a, s=(2, 5))))
    ), A, V),
}


# JAX compiles each primitive on first use (seconds per case): the cases with many
# distinct primitives run with the slow tests
SLOW = {"linalg", "indexing", "reductions", "decompositions", "fft"}


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in sorted(CASES)]
)
def test_agrees_with_jax_grad(name):
    make, *args = CASES[name]
    ours = ag.grad(make(np), argnums=tuple(range(len(args))))(*args)
    theirs = jax.grad(make(jnp), argnums=tuple(range(len(args))))(*(jnp.asarray(a) for a in args))
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-10, atol=1e-12)


def test_agrees_with_jax_on_a_scanned_rnn():
    xs, w, u = rng.normal(size=(50, 4)), rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(4, 4)) * 0.5

    def ours_fn(w, u):
        state = np.zeros(4)
        for x_t in xs:
            state = np.tanh(x_t @ w + state @ u)
        return np.sum(state)

    def jax_fn(w, u):
        def body(state, x_t):
            return jnp.tanh(x_t @ w + state @ u), None

        return jnp.sum(jax.lax.scan(body, jnp.zeros(4), xs)[0])

    ours = ag.grad(ours_fn, argnums=(0, 1))(w, u)
    theirs = jax.grad(jax_fn, argnums=(0, 1))(w, u)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-10, atol=1e-12)
