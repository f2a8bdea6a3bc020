"""Tensor operators, methods and NumPy protocols stage the same computation NumPy runs."""

from __future__ import annotations

import copy
import operator

import numpy as np
import pytest

from runtime.ir.errors import StagingError
from runtime.tracing.tensor import Tensor
from tests.runtime.ops.staging import check, stage

RNG = np.random.default_rng(3)
F = RNG.uniform(-3, 3, (3, 4)).astype(np.float32)
I = RNG.integers(1, 6, (3, 4)).astype(np.int32)  # noqa: E741
BOOL = F > 0

BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
          operator.pow, operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]
BITWISE = [operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift]


@pytest.mark.parametrize("op", BINARY, ids=lambda o: o.__name__)
def test_binary_operators(op):
    check(op, F, F[0])
    check(op, I, F)
    check(op, I, I)
    check(lambda t: op(t, 2), I)
    check(lambda t: op(2, t), I)
    check(lambda t: op(t, 0.5), F)
    check(lambda t: op(1.5, t), I)
    check(lambda t, u: op(t, u), F, np.float64(2.0))
    check(lambda t, u: op(u, t), I, np.arange(4))


@pytest.mark.parametrize("op", BITWISE, ids=lambda o: o.__name__)
def test_bitwise_operators(op):
    check(op, I, I[::-1])
    check(lambda t: op(t, 1), I)
    check(lambda t: op(3, t), I)
    if op in (operator.and_, operator.or_, operator.xor):
        check(op, BOOL, BOOL[::-1])


def test_comparisons_return_bool_tensors_which_have_no_hash():
    graph, (eq, ne) = stage(lambda a, b: (a == b, a != b), [F, F])
    assert eq.dtype == np.bool_ and ne.dtype == np.bool_
    assert isinstance(eq, Tensor)
    # `==` stages, so a hash could only be the object's identity: a set or dict would
    # silently treat equal values as different (inside a trace: tests/guide/test_control_flow_errors.py)
    with pytest.raises(TypeError, match="leaked out of its trace.*used as a Python set member or dict key"):
        hash(eq)


def test_unary_operators():
    check(operator.neg, F)
    check(operator.pos, I)
    check(operator.invert, I)
    check(operator.invert, BOOL)
    check(abs, F)
    check(abs, I)
    check(lambda t: -t ** 2, F)
    with pytest.raises((StagingError, TypeError)):
        stage(operator.neg, [BOOL])


def test_matmul_operator():
    check(operator.matmul, F, F.T)
    check(operator.matmul, F[0], F.T)
    check(lambda a: a @ np.ones(4), F)
    check(lambda a: np.ones((2, 3)) @ a, I)
    with pytest.raises(StagingError, match="matmul"):
        stage(operator.matmul, [F, F])


def test_divmod():
    check(divmod, I, 3)
    check(lambda t: divmod(7, t), I)


def test_array_operand_on_the_left():
    check(lambda t: np.ones((3, 4)) + t, I)
    check(lambda t: np.float32(2) * t, I)
    check(lambda t: np.int8(3) - t, I)
    check(lambda t: np.arange(4) < t, F)


def test_methods():
    check(lambda t: t.reshape(4, 3), F)
    check(lambda t: t.reshape((2, -1)), F)
    check(lambda t: t.reshape(-1), F)
    check(lambda t: t.T, F)
    check(lambda t: t.transpose(), F)
    check(lambda t: t.transpose(1, 0), F)
    check(lambda t: t[None].transpose((2, 0, 1)), F)
    check(lambda t: t.flatten(), F)
    check(lambda t: t.ravel(), F)
    check(lambda t: t[None].squeeze(), F)
    check(lambda t: t[:, None].squeeze(1), F)
    check(lambda t: t.copy(), F)
    check(lambda t: t.astype(np.int16), F)
    check(lambda t: t.astype("float64"), I)
    check(lambda t: t.clip(0, 1), F)
    check(lambda t: t.round(1), F)
    check(lambda t: t.repeat(2), I)
    check(lambda t: t.take([0, 2]), I)
    check(lambda t: t.dot(t.T), F)
    check(lambda t: t.trace(), I)
    check(lambda t: t.swapaxes(0, 1), I)
    check(lambda t: t.conj(), F)
    check(lambda t: t.mT, F)
    check(lambda t: t.argsort(axis=0), F)
    check(lambda t: t.diagonal(), F)
    check(lambda t: t.real + t.imag, F)
    check(lambda t: t[0].searchsorted(0.5), F)
    graph, (t,) = stage(lambda t: t, [F])
    assert t.itemsize == 4


def test_list_operands_are_arrays():
    check(lambda t: t + [1, 2, 3, 4], I)
    check(lambda t: t * [[0.5], [1.5], [2.0]], F)
    check(lambda t: [1, 2, 3, 4] - t, F)
    check(lambda t: t == [1, 2, 3, 4], I)
    check(lambda t: np.clip(t, a_min=0, a_max=t[0]), F)


def test_introspection():
    graph, (t,) = stage(lambda t: t, [F])
    assert (t.ndim, t.size, t.shape, len(t)) == (2, 12, (3, 4), 3)
    graph, (ndim, size) = stage(lambda t: (t.ndim, t.size), [F], unknown=[(0, 0)])
    assert ndim == 2 and isinstance(size, Tensor) and size.dtype == np.int64
    check(lambda t: t.size + np.int64(0), F, unknown=[(0, 0)], exact=False)


@pytest.mark.parametrize("use", [
    lambda t: t.item(), lambda t: t.tolist(), lambda t: bool(t), lambda t: int(t), lambda t: float(t),
    lambda t: list(t), lambda t: np.asarray(t), lambda t: t.__setitem__(0, 1), lambda t: [1, 2][t],
])
def test_concrete_uses_are_staging_errors(use):
    with pytest.raises(StagingError, match="known only when the graph runs"):
        stage(use, [np.int64(1)])


@pytest.mark.parametrize(("use", "fix"), [
    (lambda t: np.float64(t), "was used as a NumPy array at"),
    (lambda t: np.asarray(t, np.int64), "write .astype(np.int64) on it"),
    (lambda t: int(t), "Cast with t.astype(np.int64)"),
    (lambda t: float(t), "np.sqrt, not math.sqrt"),
])
def test_casts_by_numpy_or_python_say_to_cast_with_astype(use, fix):
    """np.float64(t) and np.asarray(t, dtype) cannot stage: the error points to t.astype."""
    with pytest.raises(StagingError) as info:
        stage(use, [np.int64(1)])
    assert fix in str(info.value) and "Python NumPy" not in str(info.value)


def test_round_of_a_scalar_tensor_is_rounded_as_a_numpy_scalar():
    check(lambda t: (round(t), round(t, 1), round(t * 100, -1)), np.float64(2.56))
    check(lambda t: round(t), np.float32(3.5))
    with pytest.raises(TypeError, match="doesn't define __round__"):
        stage(round, [F])


def test_a_python_list_indexed_by_a_tensor_says_to_stack_it():
    with pytest.raises(StagingError, match=r"np\.stack\(the_list\)\[i\]"):
        stage(lambda t: [1.0, 2.0][t], [np.int64(1)])


def test_concrete_use_shows_the_users_line():
    with pytest.raises(StagingError) as info:
        stage(lambda t: 1 if t else 0, [np.int64(1)])
    lines = str(info.value).splitlines()
    assert f"{__file__}:" in lines[0] and lines[1].endswith("stage(lambda t: 1 if t else 0, [np.int64(1)])")
    assert lines[-1].startswith("Put the condition in converted code")


def test_a_copy_of_a_tensor_is_the_tensor_itself():
    """A staged value never changes: copy.copy and copy.deepcopy (of a structure holding one, as
    `best = copy.deepcopy(params)`) keep it, rather than a copy of its graph that no trace owns."""
    def copies(t):
        params = {"w": t, "b": [t * 2]}
        best = copy.deepcopy(params)
        if isinstance(t, Tensor):  # check runs it on NumPy arrays too, which copy
            assert best["w"] is t and best["b"][0] is params["b"][0]
            assert copy.copy(t) is t
        return best["b"][0] + best["w"]

    check(copies, F)


def test_unsupported_ufunc_methods():
    with pytest.raises(StagingError, match="reduceat"):
        stage(lambda t: np.add.reduceat(t, [0, 2]), [I[0]])
    with pytest.raises(StagingError, match="at cannot"):
        stage(lambda t: np.add.at(t, [0], 1), [I[0]])


def test_unsupported_function_names_submodule():
    with pytest.raises(StagingError, match=r"np\.fft\.hfft cannot be applied"):
        stage(np.fft.hfft, [F])


def test_foreign_objects_are_rejected():
    with pytest.raises(StagingError, match="cannot stage an argument of type object"):
        stage(lambda t: np.where(t > 0, t, object()), [F])
