"""Central finite differences in float64, the reference every gradient test compares with."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

import autograph as ag

__all__ = ["numeric_gradient", "assert_gradient"]


def numeric_gradient(f: Callable, args: Sequence[np.ndarray], index: int, eps: float = 1e-6) -> np.ndarray:
    """d sum(f(*args)) / d args[index] by central differences, element by element."""
    x = np.array(args[index], dtype=np.float64)
    grad = np.zeros_like(x)
    for position in np.ndindex(x.shape):
        for sign in (1, -1):
            shifted = x.copy()
            shifted[position] += sign * eps
            values = list(args)
            values[index] = shifted if x.ndim else shifted[()]
            grad[position] += sign * np.sum(f(*values))
    return grad / (2 * eps)


def assert_gradient(f: Callable, *args: np.ndarray, wrt: Sequence[int] | None = None,
                    rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """ag.grad(f) agrees with central differences of the plain function for every argument in `wrt`."""
    wrt = tuple(range(len(args))) if wrt is None else tuple(wrt)
    staged = ag.grad(f, argnums=wrt)(*args)
    for position, got in zip(wrt, staged):
        expected = numeric_gradient(f, args, position)
        assert np.shape(got) == np.shape(args[position])
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, err_msg=f"argument {position}")
