"""Every VJP rule against central finite differences in float64, on random shapes and axes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.runtime.passes.gradient.checks import assert_gradient

FAST = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def arrays(shape, low=-2.0, high=2.0):
    return hnp.arrays(np.float64, shape, elements=st.floats(low, high, allow_nan=False, width=64))


shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4)

UNARY = {
    "tanh": (np.tanh, -2, 2), "exp": (np.exp, -2, 2), "log": (np.log, 0.5, 3), "sqrt": (np.sqrt, 0.5, 3),
    "sin": (np.sin, -2, 2), "cos": (np.cos, -2, 2), "tan": (np.tan, -1, 1), "arcsin": (np.arcsin, -0.8, 0.8),
    "arccos": (np.arccos, -0.8, 0.8), "arctan": (np.arctan, -2, 2), "sinh": (np.sinh, -2, 2),
    "cosh": (np.cosh, -2, 2), "arcsinh": (np.arcsinh, -2, 2), "arccosh": (np.arccosh, 1.5, 3),
    "arctanh": (np.arctanh, -0.8, 0.8), "log1p": (np.log1p, 0.1, 2), "expm1": (np.expm1, -2, 2),
    "log2": (np.log2, 0.5, 3), "log10": (np.log10, 0.5, 3), "square": (np.square, -2, 2),
    "reciprocal": (np.reciprocal, 0.5, 3), "cbrt": (np.cbrt, 0.5, 3), "exp2": (np.exp2, -2, 2),
    "negative": (np.negative, -2, 2), "abs": (np.abs, 0.1, 2),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@FAST
@given(data=st.data())
def test_unary(name, data):
    fn, low, high = UNARY[name]
    x = data.draw(arrays(data.draw(shapes), low, high))
    assert_gradient(lambda x: fn(x) * 1.5, x)


BINARY = {
    "add": (np.add, -2, 2), "subtract": (np.subtract, -2, 2), "multiply": (np.multiply, -2, 2),
    "divide": (np.divide, 0.5, 2), "power": (np.power, 0.5, 2), "maximum": (np.maximum, -2, 2),
    "minimum": (np.minimum, -2, 2), "arctan2": (np.arctan2, 0.5, 2), "hypot": (np.hypot, 0.5, 2),
    "logaddexp": (np.logaddexp, -2, 2),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@FAST
@given(data=st.data())
def test_binary_with_broadcasting(name, data):
    fn, low, high = BINARY[name]
    (sa, sb), _ = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3))
    a = data.draw(arrays(sa, low, high))
    b = data.draw(arrays(sb, low, high))
    if name in ("maximum", "minimum"):  # no ties: the derivative is undefined there
        assume(np.all(np.abs(np.subtract(a, b)) > 1e-3))
    assert_gradient(lambda a, b: fn(a, b) * 1.5, a, b)


def test_python_scalars_and_operators():
    x = np.array([0.5, 1.5, 2.5])
    assert_gradient(lambda x: 2.0 - x / 3.0 + 1.0 / x + x ** 2 + 2.0 ** x - (-x), x)


REDUCTIONS = {"sum": np.sum, "mean": np.mean, "prod": np.prod, "max": np.max, "min": np.min,
              "std": np.std, "var": np.var, "amax": np.amax, "nansum": np.nansum}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@FAST
@given(data=st.data())
def test_reductions_with_axis_and_keepdims(name, data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=4))
    order = data.draw(st.permutations(range(int(np.prod(shape)))))
    x = 0.5 + np.reshape(order, shape) / len(order)  # distinct values: max and min have no ties
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    keepdims = data.draw(st.booleans())
    fn = REDUCTIONS[name]
    assert_gradient(lambda x: fn(x, axis=axis, keepdims=keepdims) ** 2, x)


def test_reduction_methods_and_ufunc_reduce():
    x = np.arange(1.0, 7.0).reshape(2, 3) / 3
    assert_gradient(lambda x: x.sum(axis=1).sum() * x.mean() + x.max(axis=0).sum() + np.add.reduce(x, axis=0) ** 2, x)
    assert_gradient(lambda x: np.multiply.reduce(x, axis=1) + np.maximum.reduce(x, axis=0).sum(), x)


def test_ties_share_the_gradient_of_max():
    import autograph as ag

    got = ag.grad(lambda x: np.max(x))(np.array([1.0, 3.0, 3.0]))
    np.testing.assert_allclose(got, [0.0, 0.5, 0.5])


@FAST
@given(data=st.data())
def test_matmul_shapes(data):
    n, k, m = (data.draw(st.integers(1, 3)) for _ in range(3))
    lead = data.draw(st.sampled_from([(), (2,)]))
    kind = data.draw(st.sampled_from(["mm", "mv", "vm", "vv"]))
    sa = {"mm": (*lead, n, k), "mv": (*lead, n, k), "vm": (k,), "vv": (k,)}[kind]
    sb = {"mm": (k, m), "mv": (k,), "vm": (*lead, k, m), "vv": (k,)}[kind]
    a, b = data.draw(arrays(sa)), data.draw(arrays(sb))
    assert_gradient(lambda a, b: np.tanh(a @ b), a, b)


PRODUCTS = {
    "dot_mm": (lambda a, b: np.dot(a, b), (2, 3), (3, 4)),
    "dot_nd": (lambda a, b: np.dot(a, b), (2, 2, 3), (2, 3, 2)),
    "dot_mv": (lambda a, b: np.dot(a, b), (2, 3), (3,)),
    "dot_scalar": (lambda a, b: np.dot(a, b), (), (3,)),
    "inner": (lambda a, b: np.inner(a, b), (2, 3), (4, 3)),
    "outer": (lambda a, b: np.outer(a, b) ** 2, (3,), (2, 2)),
    "einsum_mm": (lambda a, b: np.einsum("ij,jk->ik", a, b), (2, 3), (3, 4)),
    "einsum_implicit": (lambda a, b: np.einsum("ij,jk", a, b) ** 2, (2, 3), (3, 2)),
    "einsum_sum_only": (lambda a, b: np.einsum("ij,k->i", a, b) ** 2, (2, 3), (4,)),
    "tensordot": (lambda a, b: np.tensordot(a, b, axes=([1, 2], [0, 1])), (2, 3, 2), (3, 2, 2)),
    "tensordot_int": (lambda a, b: np.tensordot(a, b, axes=1) ** 2, (2, 3), (3, 2)),
}


@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_products(name):
    fn, sa, sb = PRODUCTS[name]
    rng = np.random.default_rng(len(name))
    assert_gradient(fn, rng.normal(size=sa), rng.normal(size=sb))


rng = np.random.default_rng(7)
A = rng.normal(size=(3, 4))
V = rng.normal(size=(4,))
M = rng.normal(size=(3, 3)) + 3 * np.eye(3)
ARRAY_CASES = {
    "index_int": (lambda x: x[1] * x[2, 1:3].sum(), A),
    "index_negative_step": (lambda x: x[::-1, ::2] ** 2, A),
    "index_none_ellipsis": (lambda x: x[None, ..., 1] ** 2, A),
    "gather_repeated": (lambda x: x[:, np.array([0, 2, 2])] ** 2, A),
    "gather_2d": (lambda x: x[np.array([0, 2]), np.array([1, 1])] ** 2, A),
    "mask": (lambda x: x[x > 0] ** 2, A),
    "take": (lambda x: np.take(x, np.array([3, 0, 3]), axis=1) ** 2, A),
    "take_flat": (lambda x: np.take(x, np.array([5, 1])) ** 2, A),
    "reshape": (lambda x: x.reshape(4, 3)[0] ** 2, A),
    "ravel_squeeze_expand": (lambda x: np.expand_dims(np.ravel(x), 0).squeeze() ** 2, A),
    "transpose_axes": (lambda x: np.transpose(x[None], (2, 0, 1)) * np.arange(4.0)[:, None, None], A),
    "T": (lambda x: x.T @ np.arange(3.0), A),
    "swapaxes": (lambda x: np.swapaxes(x, 0, 1) * np.arange(3.0), A),
    "concatenate": (lambda x, v: np.concatenate([x, x * 2, v[None, :3].T.T.reshape(1, 3).T.T.reshape(3, 1) * x[:, :1]], axis=1) ** 2, A, V),
    "stack": (lambda x, v: np.stack([v, v ** 2, x[0]], axis=1) ** 2, A, V),
    "hstack_vstack": (lambda x, v: np.hstack([v, v]).sum() ** 2 + np.vstack([x, v]).sum(axis=0), A, V),
    "split": (lambda x: np.split(x, 2, axis=1)[1] ** 2, A),
    "where": (lambda x, v: np.where(x > 0, x ** 2, -v), A, V),
    "clip": (lambda x: np.clip(x, -0.5, 0.5) ** 2 + x.clip(0.1, None) * 2, A),
    "clip_tensor_bounds": (lambda x, v: np.clip(v, -x[0], x[1]) ** 2, A, V),
    "abs": (lambda x: np.abs(x) ** 3, A),
    "sort": (lambda x: np.sort(x, axis=1) * np.arange(4.0), A),
    "sort_flat": (lambda x: np.sort(x, axis=None) * np.arange(12.0), A),
    "cumsum": (lambda x: np.cumsum(x, axis=1) ** 2 + np.cumsum(x).sum() ** 2, A),
    "cumprod": (lambda x: np.cumprod(x, axis=0) ** 2, A),
    "flip_roll": (lambda x: np.flip(x, 0) * np.roll(x, 1, axis=1), A),
    "broadcast_to": (lambda v: np.broadcast_to(v, (3, 4)) * np.arange(12.0).reshape(3, 4), V),
    "inv": (lambda m: np.linalg.inv(m) ** 2, M),
    "solve_vector": (lambda m, v: np.linalg.solve(m, v[:3]) ** 2, M, V),
    "solve_matrix": (lambda m: np.linalg.solve(m, m.T + 1.0) ** 2, M),
    "det": (lambda m: np.linalg.det(m), M),
    "norm": (lambda x: np.linalg.norm(x) + np.linalg.norm(x, axis=1).sum() + np.linalg.norm(x, "fro"), A),
    "cast": (lambda x: x.astype(np.float64) * 2, A.astype(np.float32).astype(np.float64)),
}


@pytest.mark.parametrize("name", sorted(ARRAY_CASES))
def test_array_rules(name):
    fn, *args = ARRAY_CASES[name]
    assert_gradient(fn, *args)


def test_cumprod_with_zeros_is_exact():
    assert_gradient(lambda x: np.cumprod(x), np.array([2.0, 0.0, 3.0, 0.5]))
    assert_gradient(lambda x: np.prod(x), np.array([2.0, 0.0, 3.0]))
