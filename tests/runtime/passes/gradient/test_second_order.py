"""Gradients of gradients through the helper ops a first gradient emits (products, indexing,
reductions, sorts, cumsum, concatenation, inv, TensorArrays, loops and conds), against central
finite differences of the first gradient; what has no second-order rule is refused, naming the line."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.runtime.passes.gradient.checks import numeric_gradient

rng = np.random.default_rng(5)
W = rng.normal(size=(3, 3))
M = rng.normal(size=(3, 3)) + 3 * np.eye(3)


def tensor_array_loop(x):
    arr = ag.TensorArray(np.float64, size=3)
    for i in ag.range(3):
        arr = arr.write(i, x[i] ** 2 * x[0])
    return np.sum(arr.stack() ** 2) + np.sum(arr.gather(np.array([2, 2])) * x[1])


def tensor_array_in_a_branch(x):
    arr = ag.TensorArray(np.float64, size=3)
    for i in ag.range(3):
        if x[i] > 0:
            arr = arr.write(i, x[i] ** 3)
        else:
            arr = arr.write(i, np.sin(x[i]) * x[0])
    return np.sum(arr.stack() ** 2)


def tanh_while(x):
    while np.max(x) < 3.0:
        x = x + 0.5 * np.tanh(x)
    return np.sum(x ** 2)


def loop_reading_items(x):
    s = x * 0.0
    for i in ag.range(3):
        s = s + np.tanh(x * s + x[i])
    return np.sum(s ** 2)


def branch(x):
    if np.sum(x) > 0:
        y = x ** 3
    else:
        y = np.sin(x)
    return np.sum(y * x)


def item_assignment(x):
    z = np.zeros(4)
    z[1:] = x ** 2
    return np.sum(z ** 2 * np.arange(4.0))


CASES = {
    "matmul": (lambda x: np.sum(np.tanh(x @ W) ** 2), rng.normal(size=(2, 3))),
    "matvec": (lambda x: np.sum(np.sin(W @ x) * x), rng.normal(size=3)),
    "dot": (lambda x: np.sum(np.dot(x, x.T) ** 2), rng.normal(size=(2, 3))),
    "einsum": (lambda x: np.sum(np.einsum("ij,jk->ik", x, x.T) ** 2), rng.normal(size=(2, 3))),
    "index": (lambda x: x[0] ** 3 + x[1] * x[2] ** 2, rng.normal(size=4)),
    "gather": (lambda x: np.sum(x[np.array([0, 0, 2])] ** 3), rng.normal(size=4)),
    "max": (lambda x: np.max(x ** 2, axis=0).sum() * np.sum(x), np.arange(1.0, 7.0).reshape(3, 2) / 3),
    "sort": (lambda x: np.sum(np.sort(x) ** 3 * np.arange(4.0)), np.array([0.3, -1.0, 2.0, 0.1])),
    "cumsum": (lambda x: np.sum(np.cumsum(x) ** 3), rng.normal(size=4)),
    "concatenate": (lambda x: np.sum(np.concatenate([x, x ** 2]) ** 2), rng.normal(size=3)),
    "inv": (lambda m: np.sum(np.linalg.inv(m) ** 2), M),
    "det": (lambda m: np.linalg.det(m) ** 2 + np.linalg.det(m[None] * np.array([1.0, 2.0])[:, None, None]).sum(), M),
    "solve": (lambda m: np.sum(np.linalg.solve(m, np.arange(1.0, 4.0)) ** 3)
              + np.sum(np.linalg.solve(m, m[:, :2] ** 2) ** 3), M),
    "norm": (lambda x: np.linalg.norm(x) ** 3 + np.sum(np.linalg.norm(np.outer(x, x), axis=1) ** 2), rng.normal(size=4)),
    "fft_padded": (lambda x: np.sum(np.abs(np.fft.fft(x, n=7, norm="ortho")) ** 3), rng.normal(size=5)),
    "rfft_irfft": (lambda x: np.sum(np.fft.irfft(np.fft.rfft(x, n=6) * (1 + 1j), n=5) ** 3), rng.normal(size=5)),
    "complex_filter": (lambda x: np.sum(np.real(np.fft.ifft(np.fft.fft(x) * np.exp(0.3j * np.arange(5.0)))) ** 3),
                       rng.normal(size=5)),
    "var_std": (lambda x: np.var(x) ** 2 + np.sum(np.std(x, axis=0, keepdims=True, ddof=1) * x), rng.normal(size=(3, 4))),
    "layer_norm": (lambda x: np.sum(((x - np.mean(x, axis=1, keepdims=True)) / np.std(x, axis=1, keepdims=True)) ** 3),
                   rng.normal(size=(3, 4))),
    "tensor_array_loop": (tensor_array_loop, np.array([0.3, -0.2, 0.5])),
    "tensor_array_in_a_branch": (tensor_array_in_a_branch, np.array([0.3, -0.2, 0.5])),
    "tanh_while": (tanh_while, np.array([0.3, 0.5])),
    "loop_reading_items": (loop_reading_items, np.array([0.3, -0.2, 0.5])),
    "branch": (branch, np.array([0.3, -0.2, 0.5])),
    "item_assignment": (item_assignment, np.array([0.3, -0.2, 0.5])),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_grad_of_grad(name):
    f, x = CASES[name]
    got = ag.grad(ag.grad(f))(x)
    np.testing.assert_allclose(got, numeric_gradient(lambda x: ag.grad(f)(x), [x], 0), rtol=1e-5, atol=1e-6)


def test_a_tape_inside_a_tape_gives_the_hessian_vector_product():
    x0 = rng.normal(size=(2, 3))

    @ag.function
    def hvp(x, v):
        with ag.GradientTape() as outer:
            outer.watch(x)
            with ag.GradientTape() as inner:
                inner.watch(x)
                y = np.sum(np.tanh(x @ W) ** 2) + np.max(x[:, 1])
            g = inner.gradient(y, x)
            gv = np.sum(g * v)
        return outer.gradient(gv, x)

    v = rng.normal(size=(2, 3))
    first = ag.grad(lambda x: np.sum(np.tanh(x @ W) ** 2) + np.max(x[:, 1]))
    expected = numeric_gradient(lambda x: np.sum(first(x) * v), [x0], 0)
    np.testing.assert_allclose(hvp(x0, v), expected, rtol=1e-5, atol=1e-6)

    with ag.GradientTape() as outer:  # outside a Function, recorded eagerly
        x = outer.watch(x0)
        with ag.GradientTape() as inner:
            inner.watch(x)
            y = np.sum(np.tanh(x @ W) ** 2) + np.max(x[:, 1])
        gv = np.sum(inner.gradient(y, x) * v)
    np.testing.assert_allclose(outer.gradient(gv, x), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, f, x", [
    ("svd_grad", lambda m: np.sum(np.linalg.svd(m, compute_uv=False) ** 2), M),
    ("reduce_grad", lambda x: np.prod(x), np.array([1.0, 2.0, 3.0])),
    ("cumprod_grad", lambda x: np.sum(np.cumprod(x)), np.array([1.0, 2.0, 3.0])),
    ("eigh_grad", lambda m: np.sum(np.linalg.eigvalsh(m) ** 2), np.diag([1.0, 2.0, 3.0])),
])
def test_helpers_without_a_second_order_rule_are_refused(name, f, x):
    with pytest.raises(ag.errors.StagingError, match=rf"test_second_order.py:\d+.*'{name}'"):
        ag.grad(ag.grad(f))(x)
