"""Random op chains: every step's inferred type, impl and emitted code agree with NumPy.

A chain starts from one or two random arrays and applies random ops (ufuncs
with tensors or Python scalars, reductions, layout ops, indexing, casts).
Steps NumPy rejects on dtype grounds must be rejected while staging too. The
short run is part of the suite; `make fuzz` runs the long one.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runtime.ir.errors import StagingError
from tests.runtime.ops.staging import check, stage

DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.int64, np.float16, np.float32, np.float64, np.complex64]
UNARY = [np.negative, np.absolute, np.sqrt, np.exp, np.tanh, np.sign, np.floor, np.isnan, np.logical_not,
         np.square, np.invert, np.reciprocal, np.conjugate]
BINARY = [np.add, np.subtract, np.multiply, np.divide, np.floor_divide, np.maximum, np.minimum, np.less,
          np.equal, np.logical_and, np.arctan2, np.bitwise_and, np.power, np.remainder, np.hypot]
SCALARS = [0, 1, -3, 2.5, True, 1e300, 1j]
pytestmark = [
    pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning"),
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),
]


@st.composite
def arrays(draw):
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    shape = tuple(draw(st.lists(st.integers(1, 4), max_size=3)))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    values = rng.integers(-4, 5, shape) if dtype.kind != "c" else rng.integers(-4, 5, shape) + 1j
    return np.asarray(values).astype(dtype)


@st.composite
def steps(draw):
    kind = draw(st.sampled_from(["unary", "binary", "scalar", "reduce", "layout", "index", "cast", "where", "misc"]))
    if kind == "misc":
        op = draw(st.sampled_from(["matmul", "clip", "sort", "take", "squeeze", "dot", "roll", "maximum.reduce"]))
        return {
            "matmul": lambda x, y: x @ y, "clip": lambda x, y: np.clip(x, 0, 2),
            "sort": lambda x, y: np.sort(x, axis=None), "take": lambda x, y: np.take(x, [0, -1]),
            "squeeze": lambda x, y: np.squeeze(x[None], axis=0), "dot": lambda x, y: np.dot(x, y),
            "roll": lambda x, y: np.roll(x, 1), "maximum.reduce": lambda x, y: np.maximum.reduce(x, axis=None),
        }[op]
    if kind == "unary":
        f = draw(st.sampled_from(UNARY))
        return lambda x, y: f(x)
    if kind == "binary":
        f = draw(st.sampled_from(BINARY))
        return lambda x, y: f(x, y)
    if kind == "scalar":
        f, s, left = draw(st.sampled_from(BINARY)), draw(st.sampled_from(SCALARS)), draw(st.booleans())
        return (lambda x, y: f(s, x)) if left else (lambda x, y: f(x, s))
    if kind == "reduce":
        name = draw(st.sampled_from(["sum", "mean", "max", "prod", "any", "argmax", "std", "cumsum"]))
        axis, keep = draw(st.sampled_from([None, 0, -1])), draw(st.booleans())
        if name in ("cumsum", "argmax"):
            return lambda x, y: getattr(np, name)(x, axis=axis)
        return lambda x, y: getattr(np, name)(x, axis=axis, keepdims=keep)
    if kind == "layout":
        op = draw(st.sampled_from(["T", "ravel", "expand", "flip", "stack", "concat", "reshape"]))
        return {
            "T": lambda x, y: x.T, "ravel": lambda x, y: x.ravel(), "expand": lambda x, y: np.expand_dims(x, 0),
            "flip": lambda x, y: np.flip(x), "stack": lambda x, y: np.stack([x, x], axis=-1),
            "concat": lambda x, y: np.concatenate([np.atleast_1d(x), np.atleast_1d(x)]),
            "reshape": lambda x, y: x.reshape(-1, 1),
        }[op]
    if kind == "index":
        key = draw(st.sampled_from([0, -1, slice(None, None, -1), (Ellipsis, 0), None, slice(1, None), (None, Ellipsis)]))
        return lambda x, y: x[key]
    if kind == "cast":
        dtype = draw(st.sampled_from(DTYPES))
        return lambda x, y: x.astype(dtype)
    return lambda x, y: np.where(x > 0 if x.dtype.kind != "c" else x.real > 0, x, y)


def numpy_outcome(fn, *values):
    try:
        with np.errstate(all="ignore"):
            return "ok", fn(*values)
    except TypeError:
        return "type", None
    except (ValueError, IndexError, OverflowError):
        return "value", None


def run_chain(x, y, chain, unknown, unknown_rank=()):
    def program(a, b):
        for step in chain:
            a = step(a, b)
        return a

    prefix = []
    for step in chain:
        prefix.append(step)
        fn = lambda a, b, p=tuple(prefix): _apply(p, a, b)  # noqa: E731
        outcome, _ = numpy_outcome(fn, x, y)
        if outcome == "type":
            with pytest.raises((StagingError, TypeError)):
                stage(fn, [x, y])
            return
        if outcome == "value":
            return
        vague = bool(unknown or unknown_rank)
        check(fn, x, y, unknown=unknown, unknown_rank=unknown_rank, exact=False if vague else None)


def _apply(chain, a, b):
    for step in chain:
        a = step(a, b)
    return a


def fuzz(examples, derandomize):
    @settings(max_examples=examples, deadline=None, derandomize=derandomize, suppress_health_check=list(HealthCheck))
    @given(arrays(), arrays(), st.lists(steps(), min_size=1, max_size=4),
           st.sampled_from([(), (0,), (0, 1)]), st.sampled_from([(), (1,)]))
    def test(x, y, chain, unknown, unknown_rank):
        run_chain(x, y, chain, unknown, unknown_rank)

    return test


test_random_chains = fuzz(60, derandomize=True)
test_random_chains_long = pytest.mark.slow(fuzz(3000, derandomize=False))
