"""Gradients of the staged fuzzer's converted programs (nested if/while/for, break, continue,
return, ag.print) against central differences of the same program run as plain Python.

A program is kept when plain Python runs it to a finite float result; ag.grad must then either
agree with central differences or refuse with a StagingError (an op it cannot differentiate).
Where central differences themselves are unstable (a kink or a branch within eps) the example
is discarded.
"""

from __future__ import annotations

import collections

import numpy as np
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

import autograph as ag
from runtime.ir.errors import AutographError
from runtime.ir.structure import flatten
from tests.autograph.differential import load, unload
from tests.autograph.staged_programs import staged_programs

TALLY: collections.Counter = collections.Counter()


def _inputs(kinds: tuple[str, ...], seed: int) -> tuple:
    """Generic values (no ties with the programs' constants): 3-vectors, floats, small ints."""
    rng = np.random.default_rng(seed)
    values = []
    for kind in kinds:
        if kind == "int":
            values.append(np.array(rng.integers(0, 4), dtype=np.int64))
        elif kind == "float":
            values.append(np.array(rng.uniform(-2, 2), dtype=np.float64))
        else:
            values.append(rng.uniform(-2, 2, size=3))
    return tuple(values)


def _loss(f):
    def loss(*args):
        leaves = [v for v in flatten(f(*args))[0] if np.asarray(v).dtype.kind == "f"]
        total = 0.0
        for leaf in leaves:
            total = total + np.sum(leaf)
        return total

    return loss


def _numeric(loss, args, index, eps):
    x = np.array(args[index], dtype=np.float64)
    grad = np.zeros_like(x)
    for position in np.ndindex(x.shape):
        values = []
        for sign in (1, -1):
            shifted = x.copy()
            shifted[position] += sign * eps
            call = [np.copy(a) for a in args]  # a program may change its arguments in place
            call[index] = shifted
            values.append(float(loss(*call)))
        grad[position] = (values[0] - values[1]) / (2 * eps)
    return grad


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    return tmp_path_factory.mktemp("gradient_programs")


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                 HealthCheck.function_scoped_fixture])
@given(program=staged_programs(), seed=st.integers(0, 2**16))
def test_fuzzed_program_gradients(program, seed, directory, capsys):
    f = load(program.source, directory)
    try:
        args = _inputs(program.kinds, seed)
        loss = _loss(f)
        with np.errstate(all="ignore"):
            try:
                value = loss(*[np.copy(a) for a in args])
            except Exception:
                reject()
            if not np.isfinite(value) or np.asarray(value).dtype.kind != "f":
                reject()
            wrt = tuple(i for i, kind in enumerate(program.kinds) if kind != "int")
            try:
                staged = ag.grad(loss, argnums=wrt)(*[np.copy(a) for a in args])
            except AutographError as error:
                TALLY[type(error).__name__] += 1
                reject()
            for index, got in zip(wrt, staged):
                coarse, fine = _numeric(loss, args, index, 1e-4), _numeric(loss, args, index, 1e-6)
                if not np.allclose(coarse, fine, rtol=1e-3, atol=1e-3):
                    reject()  # a kink or a branch within eps: central differences say nothing
                np.testing.assert_allclose(got, fine, rtol=1e-4, atol=1e-4,
                                           err_msg=f"argument {index} of\n{program.source}\ninputs {args}")
            TALLY["agreed"] += 1
    finally:
        unload(f)
        capsys.readouterr()
