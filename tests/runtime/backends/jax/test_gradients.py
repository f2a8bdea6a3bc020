"""Gradients under jit_compile=True: the gradient graph lowered to XLA agrees with the NumPy backend.

The programs are the gradient tests' own (every VJP rule's cases, the control-flow programs)
and the staged fuzzer's; each runs as `ag.grad(f)` on the NumPy backend and as
`ag.grad(ag.function(f, jit_compile=True))` on XLA.

Tolerance: rtol 1e-9 in float64. XLA's transcendental functions differ from NumPy's by an ulp or
so, it may reassociate sums and fuse multiply-adds, and the backward pass compounds such
differences through every iteration of a loop: a few hundred ulp, never more.
"""

from __future__ import annotations

import collections
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

pytest.importorskip("jax")

import autograph as ag  # noqa: E402
from runtime.backends.jax.lower import Lowering  # noqa: E402
from runtime.passes.gradient.grad_ops import GRAD_OPS  # noqa: E402
from tests.autograph.differential import _same_error, load, unload  # noqa: E402
from tests.autograph.fuzz_record import FailureLog, run_seed  # noqa: E402
from tests.autograph.staged_differential import TimedOut, names_user_line, run_quietly  # noqa: E402
from tests.autograph.staged_programs import staged_programs  # noqa: E402
from tests.runtime.backends.jax.test_differential import close_values, same_printed  # noqa: E402
from tests.runtime.passes.gradient import test_control_flow_gradients as control  # noqa: E402
from tests.runtime.passes.gradient.test_fuzzed_programs import _inputs, _loss  # noqa: E402
from tests.runtime.passes.gradient.test_vjp_rules import ARRAY_CASES, PRODUCTS  # noqa: E402
from tests.runtime.passes.gradient.test_vjp_updates import CASES as VJP_UPDATES  # noqa: E402

RTOL, ATOL = 1e-9, 1e-12
_SEED = run_seed()


def both(fn, *args, argnums=None):
    """(NumPy backend's gradients, XLA's) of `fn` w.r.t. `argnums` (default: every argument)."""
    argnums = tuple(range(len(args))) if argnums is None else argnums
    expected = ag.grad(fn, argnums=argnums)(*args)
    got = ag.grad(ag.function(fn, jit_compile=True), argnums=argnums)(*args)
    return expected, got


def assert_same_gradients(fn, *args, argnums=None):
    expected, got = both(fn, *args, argnums=argnums)
    for a, b in zip(expected, got):
        assert np.asarray(a).dtype == np.asarray(b).dtype and np.shape(a) == np.shape(b)
        np.testing.assert_allclose(b, a, rtol=RTOL, atol=ATOL)


def test_every_gradient_op_has_a_lowering():
    missing = [name for name in GRAD_OPS if not hasattr(Lowering, f"_op_{name}")]
    assert not missing


def test_grad_of_a_jit_function_runs_on_xla():
    g = ag.grad(ag.function(lambda x: np.sum(np.tanh(x) ** 2), jit_compile=True))
    assert g.get_concrete_function(np.zeros(3)).backend == "jax"
    np.testing.assert_allclose(g(np.array([0.1, 0.5, 2.0])),
                               ag.grad(lambda x: np.sum(np.tanh(x) ** 2))(np.array([0.1, 0.5, 2.0])), rtol=RTOL)


# -- every VJP rule's cases (the gradient-only ops among them) ---------------------------------
REDUCTIONS = {
    "sum_axis": lambda x: np.sum(x, axis=1) ** 2,
    "mean_keepdims": lambda x: np.mean(x, axis=0, keepdims=True) ** 2,
    "prod_axes": lambda x: np.prod(x, axis=(0, 1)) + np.prod(x, axis=1).sum(),
    "prod_with_zero": lambda x: np.prod(x * np.array([1.0, 0.0, 1.0, 1.0])),
    "max_min_ties": lambda x: np.max(np.round(x), axis=1).sum() + np.min(x),
    "var_std": lambda x: np.var(x, axis=1, ddof=1).sum() + np.std(x),
    "broadcast_sum_to": lambda x: np.sum((x[:1] * x[:, :1] + np.ones((2, 3, 4))) ** 2),
    "cumprod_zeros": lambda x: np.cumprod(x[0] * np.array([1.0, 0.0, 1.0, 1.0])) + np.cumprod(x, axis=None)[-1],
}
_S = np.random.default_rng(9).normal(size=(3, 3))
_SPD = _S @ _S.T + 3 * np.eye(3)
STAPLES = {  # the linear-algebra and FFT rules (their NumPy functions run on the host under XLA)
    "eigh": (lambda a: np.linalg.eigh(a @ a.T)[0].sum() + np.sum(np.linalg.eigh(a + a.T)[1][:, 0] ** 2), _S),
    "svd_qr": (lambda a: np.linalg.svd(a, compute_uv=False).sum() + np.sum(np.linalg.qr(a)[1] ** 2), _S),
    "cholesky_pinv": (lambda a: np.sum(np.linalg.cholesky(a @ a.T + np.eye(3))) + np.sum(np.linalg.pinv(a)), _S),
    "lstsq": (lambda a, b: np.sum(np.linalg.lstsq(a, b, rcond=None)[0] ** 2), _SPD, _S[0]),
    "fft": (lambda x: np.sum(np.abs(np.fft.fft(x)) ** 2) + np.sum(np.abs(np.fft.rfft(x, n=7))), _S[0]),
}
UPDATES = {k: v for k, v in VJP_UPDATES.items() if k != "ta_split"}  # unequal pieces: refused on XLA
CASES = {**{f"array_{k}": v for k, v in ARRAY_CASES.items()},
         **{f"staple_{k}": v for k, v in STAPLES.items()},
         **{f"update_{k}": v for k, v in UPDATES.items()},
         **{f"product_{k}": v for k, v in PRODUCTS.items()},
         **{f"reduce_{k}": (v, ARRAY_CASES["abs"][1]) for k, v in REDUCTIONS.items()}}
REFUSED = {  # what XLA cannot compile, the forward pass included
    "array_mask": "boolean mask",  # a shape that depends on the data
    "update_ta_concat": "need one shape",  # elements of different lengths
    "update_ta_scatter_in_loop": "slice whose bounds are tensors",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_rules_agree(name):
    fn, *args = CASES[name]
    if name.startswith("product_"):
        rng = np.random.default_rng(len(name))
        args = [rng.normal(size=s) for s in args]
    if name in REFUSED:
        with pytest.raises(ag.errors.StagingError, match=REFUSED[name]):
            both(fn, *args)
        return
    assert_same_gradients(fn, *args)


# -- control flow --------------------------------------------------------------------------
# loops whose trip count depends on the data: their stacks need a bound under XLA
UNBOUNDED = {"while_break", "while_no_break", "tanh_while", "dynamic_tensor_array"}


@pytest.mark.parametrize("name", sorted(control.PROGRAMS))
def test_control_flow_programs_agree(name):
    fn, *args = control.PROGRAMS[name]
    if name in UNBOUNDED:
        with pytest.raises(ag.errors.StagingError, match="maximum_iterations") as caught:
            both(fn, *args)
        assert f"{control.__file__}:" in str(caught.value)
        return
    assert_same_gradients(fn, *args)


def tanh_while(x):
    while np.sum(x) < 5.0:
        x = np.tanh(x) + x
    return x


def bounded_tanh_while(x):
    while np.sum(x) < 5.0:
        ag.set_loop_options(maximum_iterations=20)
        x = np.tanh(x) + x
    return x


def test_unbounded_loop_is_refused_naming_its_line_and_the_fix():
    line = tanh_while.__code__.co_firstlineno + 1
    with pytest.raises(ag.errors.StagingError) as caught:
        ag.grad(ag.function(tanh_while, jit_compile=True))(np.array([0.3, 0.2]))
    message = str(caught.value)
    assert f"{__file__}:{line}" in message and "ag.set_loop_options(maximum_iterations=" in message
    assert "while np.sum(x) < 5.0" in message
    assert caught.value.__cause__ is None and "jax._src" not in message
    assert not [entry for entry in caught.traceback if "site-packages/jax" in str(entry.path)]


def break_in_a_range(x):
    for t in ag.range(4):
        if x < t:
            x = x * 0.0 + 0.5
            break
        x = x * 2.0
    return x + 0.5


@pytest.mark.parametrize("x", [-0.75, 0.5, 2.5, 10.0])
def test_loop_saving_an_int_counter_and_a_float_keeps_each_stack_its_dtype(x):
    """The taped loop stacks the counter (int64) and x (float64) on two TensorArrays made alike:
    merged into one, XLA stacked x as an int64 and the backward pass took the other branch (the
    staged fuzzer's seed 3648123794)."""
    assert_same_gradients(break_in_a_range, np.float64(x))


def masked_fill(x, y):
    z = x * 1.0
    z[z < 1.0] = y
    return np.sum(z)


def test_refusal_in_a_gradient_names_the_line_of_its_op():
    """`z[mask] = y` runs on XLA (a `where`), but y's gradient indexes by the mask: the refusal names
    the assignment's line, not the line that asked for the gradient (the staged fuzzer's seed 12345)."""
    line = masked_fill.__code__.co_firstlineno + 2
    with pytest.raises(ag.errors.StagingError) as caught:
        ag.grad(ag.function(masked_fill, jit_compile=True), argnums=1)(np.array([0.5, 2.0]), np.float64(3.0))
    message = str(caught.value)
    assert message.startswith(f"{__file__}:{line}: indexing with a boolean mask"), message
    assert "z[z < 1.0] = y" in message and "np.where(mask, x, fill)" in message
    assert ag.grad(ag.function(masked_fill, jit_compile=True), argnums=0)(np.array([0.5, 2.0]), np.float64(3.0)).tolist() == [0.0, 1.0]


@pytest.mark.parametrize("x", [np.array([0.3, 0.2]), np.array([2.0, 2.5]), np.array([-3.0, -2.0])])
def test_bounded_loop_preallocates_and_agrees(x):
    """Trip counts 0 to the bound from one trace; the bound stops the loop as on NumPy (x = -3, -2)."""
    assert_same_gradients(lambda x: np.sum(bounded_tanh_while(x)), x)


def test_break_in_a_bounded_range_needs_no_bound():
    def f(x):
        for i in ag.range(8):
            x = np.sin(x) * 1.7 + 0.1 * i
            if np.max(x) > 1.2:
                break
        return np.sum(x ** 2)

    for x in (np.array([0.1, 0.2]), np.array([1.0, 1.1]), np.array([-0.5, -0.1])):
        assert_same_gradients(f, x)


def test_nested_loop_bounded_by_the_outer_counter():
    def f(x):
        total = 0.0 * x
        for i in ag.range(4):
            j = 0
            while j < i:
                total = total + np.cos(x * (j + 1))
                j += 1
        return np.sum(total)

    assert_same_gradients(f, np.array([0.3, -0.4, 1.0]))


def test_training_step_with_variables_agrees():
    def make(jit):
        rng = np.random.default_rng(1)
        w1, w2 = ag.Variable(rng.normal(size=(4, 8)) * 0.3), ag.Variable(rng.normal(size=(8, 1)) * 0.3)

        @ag.function(jit_compile=jit)
        def step(x, y):
            with ag.GradientTape() as tape:
                h = x
                for _ in ag.range(2):
                    h = np.tanh(h @ w1 @ np.transpose(w1))
                loss = np.mean((np.tanh(h @ w1) @ w2 - y) ** 2)
            g1, g2 = tape.gradient(loss, [w1, w2])
            w1.assign_sub(0.1 * g1)
            w2.assign_sub(0.1 * g2)
            return loss

        return step, (w1, w2)

    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(5, 4)), rng.normal(size=(5, 1))
    (numpy_step, numpy_vars), (xla_step, xla_vars) = make(False), make(True)
    for _ in range(3):
        np.testing.assert_allclose(xla_step(x, y), numpy_step(x, y), rtol=RTOL)
    for a, b in zip(numpy_vars, xla_vars):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=RTOL)


def test_tensor_array_gradients_agree():
    def f(x, w):
        ta = ag.TensorArray(np.float64, size=4)
        for i in ag.range(4):
            ta = ta.write(i, np.tanh(x * w[i]))
        inputs = ag.TensorArray(np.float64, size=3).unstack(x.reshape(3, 1) * w[:3])
        total = 0.0
        for i in ag.range(3):
            total = total + np.sum(inputs.read(i) * ta.read(i + 1))
        return np.sum(ta.stack() ** 2) + total

    assert_same_gradients(f, np.array([0.3, -0.5, 0.8]), np.array([0.5, 1.5, -1.0, 2.0]))


def test_tensor_array_element_written_twice_raises_as_on_numpy():
    def f(x):
        ta = ag.TensorArray(np.float64, size=2)
        for i in ag.range(3):
            ta = ta.write(i % 2, x * i)
        return ta.stack()

    with pytest.raises(ag.errors.InvalidArgumentError, match="written twice"):
        ag.grad(ag.function(f, jit_compile=True))(np.array([0.3, 0.2]))


# -- the staged fuzzer's programs ---------------------------------------------------------
def _compare_program_gradients(program, seed, directory, tally) -> str | None:
    """How the two backends disagree on the gradient of `f` of `program.source`, or None."""
    wrt = tuple(i for i, kind in enumerate(program.kinds) if kind != "int")
    if not wrt:
        return None
    f = load(program.source, directory)
    first = program.source.count("\n", 0, program.source.find("\ndef f(") + 1) + 1
    lines = (f.__code__.co_filename, first, program.source.count("\n") + 1)
    try:
        args = _inputs(program.kinds, seed)
        loss = _loss(f)
        try:
            expected = run_quietly(ag.grad(loss, argnums=wrt), args, timeout=5.0)
        except TimedOut:
            return None
        if expected.error is not None and issubclass(expected.error, ag.errors.AutographError):
            tally["refused by the NumPy backend"] += 1
            return None
        actual = run_quietly(ag.grad(ag.function(loss, jit_compile=True), argnums=wrt), args, timeout=60.0)
        if actual.error is not None and issubclass(actual.error, ag.errors.AutographError):
            tally["refused by XLA: " + re.sub(r"\S*\.py:\d+", "<line>", actual.message.splitlines()[0])[:100]] += 1
            if expected.error is None and not names_user_line(actual.message, *lines):
                return f"a refusal that names no line of f: {actual.message}"
            return None
        tally["agreed" if expected.error is None else "raised both ways"] += 1
        if (actual.error is None) != (expected.error is None):
            problem = "one backend raised, the other returned"
        elif actual.error is not None:
            problem = None if _same_error(expected.error, actual.error) else "different exceptions"
        elif not close_values(expected.value, actual.value):
            problem = "different gradients"
        elif not same_printed(expected.stdout, actual.stdout):
            problem = "different printed output"
        else:
            problem = None
        if problem:
            return (f"{problem} for f{args!r}\n{program.source}\n  numpy: {expected.describe()}\n"
                    f"  jax:   {actual.describe()}")
        return None
    finally:
        unload(f)


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    return tmp_path_factory.mktemp("xla_gradient_programs")


TALLY: collections.Counter = collections.Counter()
FUZZ = dict(deadline=None, derandomize=True, database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                   HealthCheck.function_scoped_fixture])


@settings(max_examples=12, **FUZZ)
@given(program=staged_programs(), seed=st.integers(0, 2**16))
def test_fuzzed_program_gradients_agree(program, seed, directory):
    problem = _compare_program_gradients(program, seed, directory, TALLY)
    assert problem is None, problem


@pytest.mark.slow
@hypothesis_seed(_SEED)
@settings(max_examples=300, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                 HealthCheck.function_scoped_fixture])
@given(program=staged_programs(), seed=st.integers(0, 2**16))
def test_fuzzed_program_gradients_agree_long_run(program, seed, directory):
    """`make fuzz`: gradients of fresh programs on both backends; failures kept in .fuzz/seed-<seed>/."""
    problem = _compare_program_gradients(program, seed, directory, TALLY)
    if problem is not None:
        FailureLog(_SEED).record(f"XLA gradient differential: {problem}", program.source)
    assert problem is None, problem


def test_fuzzed_programs_reached_xla():
    """The fuzzed gradients above were compared, not all refused (run after them, in file order)."""
    if TALLY:
        assert TALLY["agreed"] >= 3, dict(TALLY)
