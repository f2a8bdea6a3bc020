"""Gradients: `ag.grad` of staged loops beside a hand-written NumPy backward pass (and JAX).

`python -m bench.gradients [--quick]` prints one table. Cases:

- tanh-while over 5 and 1,000 floats, whose trip count depends on x
  (`while np.max(x) < 3: x = x + 0.1 * np.tanh(x)`);
- a weighted RNN over 1,000 steps, `state = tanh(x_t @ W + state @ U + b)`,
  4x4 weights, gradient w.r.t. W, U and b;
- a training step of a two-layer network: forward, gradient and the
  Variable updates in one Function.

"limit" is the same forward and backward pass hand-written in NumPy (the
forward keeps what the backward needs). JAX, where importable, runs
`jax.jit(jax.grad(...))` over `lax.scan` with the trip count given (JAX
cannot reverse-differentiate a while loop), and ours runs again with
`jit_compile=True` (XLA): there the tanh-while loop, whose trip count
depends on x, is bounded by `ag.set_loop_options(maximum_iterations=100)`
(its stacks are preallocated to 100 entries; these inputs loop 49 times).
Targets (issue 23): ours within 2x of the limit on the NumPy backend; with
jit_compile=True within 1.5x of JAX's.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import autograph as ag

__all__ = ["CASES", "main"]

NUMPY_TARGET = 2.0


def best_times(fns: list[Callable[[], Any]], repeats: int, min_seconds: float = 0.05) -> list[float]:
    """The best per-call time of each of `fns`, their rounds interleaved: on a shared machine a
    change of load then weighs on every column of a row alike, and the ratios stay fair."""
    numbers = []
    for fn in fns:
        fn()
        number = 1
        while True:
            start = time.perf_counter()
            for _ in range(number):
                fn()
            if time.perf_counter() - start >= min_seconds or number >= 1 << 16:
                break
            number *= 2
        numbers.append(number)
    best = [float("inf")] * len(fns)
    for _ in range(repeats):
        for k, (fn, number) in enumerate(zip(fns, numbers)):
            start = time.perf_counter()
            for _ in range(number):
                fn()
            best[k] = min(best[k], (time.perf_counter() - start) / number)
    return best


def best_time(fn: Callable[[], Any], repeats: int, min_seconds: float = 0.05) -> float:
    """The best per-call time over `repeats` rounds, each long enough to time."""
    fn()
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds or number >= 1 << 16:
            break
        number *= 2
    best = elapsed / number
    for _ in range(repeats - 1):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


# -- tanh-while ------------------------------------------------------------------------
def tanh_while(x):
    while np.max(x) < 3.0:
        x = x + 0.1 * np.tanh(x)
    return np.sum(x)


TANH_BOUND = 100


def tanh_while_bounded(x):
    """tanh-while for XLA: the gradient's stacks need a bound on the trip count."""
    while np.max(x) < 3.0:
        ag.set_loop_options(maximum_iterations=TANH_BOUND)
        x = x + 0.1 * np.tanh(x)
    return np.sum(x)


def tanh_while_numpy_grad(x):
    xs = []
    while np.max(x) < 3.0:
        xs.append(x)
        x = x + 0.1 * np.tanh(x)
    g = np.ones_like(x)
    for saved in reversed(xs):
        t = np.tanh(saved)
        g = g * (1.0 + 0.1 * (1.0 - t * t))
    return g


def tanh_while_jax(x):
    import jax
    import jax.numpy as jnp

    steps = 0
    value = np.array(x)
    while np.max(value) < 3.0:
        value = value + 0.1 * np.tanh(value)
        steps += 1

    def scanned(x):
        def body(x, _):
            return x + 0.1 * jnp.tanh(x), None

        return jnp.sum(jax.lax.scan(body, x, None, length=steps)[0])

    grad = jax.jit(jax.grad(scanned))
    return lambda: grad(x).block_until_ready()


# -- weighted RNN -----------------------------------------------------------------------
def rnn(xs, w, u, b):
    state = np.zeros(4)
    for x_t in xs:
        state = np.tanh(x_t @ w + state @ u + b)
    return np.sum(state)


def rnn_numpy_grad(xs, w, u, b):
    states = [np.zeros(4)]
    for x_t in xs:
        states.append(np.tanh(x_t @ w + states[-1] @ u + b))
    gw, gu, gb = np.zeros_like(w), np.zeros_like(u), np.zeros_like(b)
    g = np.ones(4)
    for t in range(len(xs) - 1, -1, -1):
        gz = g * (1.0 - states[t + 1] ** 2)
        gw += np.outer(xs[t], gz)
        gu += np.outer(states[t], gz)
        gb += gz
        g = gz @ u.T
    return gw, gu, gb


def rnn_jax(xs, w, u, b):
    import jax
    import jax.numpy as jnp

    def scanned(w, u, b):
        def body(state, x_t):
            return jnp.tanh(x_t @ w + state @ u + b), None

        return jnp.sum(jax.lax.scan(body, jnp.zeros(4), xs)[0])

    grad = jax.jit(jax.grad(scanned, argnums=(0, 1, 2)))
    return lambda: jax.block_until_ready(grad(w, u, b))


# -- training step ----------------------------------------------------------------------
def make_training(x, y, jit_compile: bool = False):
    rng = np.random.default_rng(1)
    w1 = ag.Variable(rng.normal(size=(16, 32)) * 0.1)
    w2 = ag.Variable(rng.normal(size=(32, 1)) * 0.1)

    @ag.function(jit_compile=jit_compile)
    def train_step(x, y):
        with ag.GradientTape() as tape:
            hidden = np.tanh(x @ w1)
            loss = np.mean((hidden @ w2 - y) ** 2)
        g1, g2 = tape.gradient(loss, [w1, w2])
        w1.assign_sub(0.01 * g1)
        w2.assign_sub(0.01 * g2)
        return loss

    params = [w1.numpy(), w2.numpy()]

    def numpy_step(x, y):
        a, b = params
        hidden = np.tanh(x @ a)
        error = hidden @ b - y
        loss = np.mean(error ** 2)
        g_out = 2.0 * error / error.size
        g2 = hidden.T @ g_out
        g_hidden = (g_out @ b.T) * (1.0 - hidden ** 2)
        g1 = x.T @ g_hidden
        params[0] = a - 0.01 * g1
        params[1] = b - 0.01 * g2
        return loss

    return (lambda: train_step(x, y)), (lambda: numpy_step(x, y)), (w1, w2)


def training_jax(x, y):
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(1)
    params = [jnp.asarray(rng.normal(size=(16, 32)) * 0.1), jnp.asarray(rng.normal(size=(32, 1)) * 0.1)]

    def loss(p, x, y):
        return jnp.mean((jnp.tanh(x @ p[0]) @ p[1] - y) ** 2)

    @jax.jit
    def step(p, x, y):
        value, grads = jax.value_and_grad(loss)(p, x, y)
        return [a - 0.01 * g for a, g in zip(p, grads)], value

    def run():
        params[:] = step(params, x, y)[0]
        jax.block_until_ready(params)

    return run


# -- the table --------------------------------------------------------------------------
def _jax_available() -> bool:
    try:
        import jax

        jax.config.update("jax_enable_x64", True)
    except ImportError:
        return False
    return True


Case = tuple[str, Callable[[], Any], Callable[[], Any], Callable[[], Any] | None, Callable[[], Any] | None]


def CASES(quick: bool, xla: bool = False) -> list[Case]:  # noqa: N802
    """(label, ours, hand-written NumPy, JAX maker or None, ours with jit_compile=True or None);
    each checked to agree before timing."""
    rng = np.random.default_rng(0)
    cases = []
    for size in (5, 1000):
        x = rng.uniform(0.05, 0.1, size=size)
        grad = ag.grad(tanh_while)
        np.testing.assert_allclose(grad(x), tanh_while_numpy_grad(x), rtol=1e-9)
        on_xla = _on_xla(ag.grad(ag.function(tanh_while_bounded, jit_compile=True)), (x,), grad(x)) if xla else None
        cases.append((f"tanh-while, {size} floats", lambda g=grad, x=x: g(x), lambda x=x: tanh_while_numpy_grad(x),
                      lambda x=x: tanh_while_jax(x), on_xla))
    steps = 100 if quick else 1000
    xs, w, u, b = rng.normal(size=(steps, 4)), rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(4, 4)) * 0.5, rng.normal(size=4)
    grad = ag.grad(rnn, argnums=(1, 2, 3))
    for got, want in zip(grad(xs, w, u, b), rnn_numpy_grad(xs, w, u, b)):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    on_xla = _on_xla(ag.grad(ag.function(rnn, jit_compile=True), argnums=(1, 2, 3)), (xs, w, u, b),
                     grad(xs, w, u, b)) if xla else None
    cases.append((f"weighted RNN, {steps} steps, 4x4", lambda: grad(xs, w, u, b), lambda: rnn_numpy_grad(xs, w, u, b),
                  lambda: rnn_jax(xs, w, u, b), on_xla))
    x, y = rng.normal(size=(256, 16)), rng.normal(size=(256, 1))
    ours, limit, _ = make_training(x, y)
    np.testing.assert_allclose(ours(), limit(), rtol=1e-9)
    on_xla = None
    if xla:
        on_xla, _, _ = make_training(x, y, jit_compile=True)
        np.testing.assert_allclose(on_xla(), make_training(x, y)[0](), rtol=1e-9)
    cases.append(("training step, 256x16 -> 32 -> 1", ours, limit, lambda: training_jax(x, y), on_xla))
    return cases


def _on_xla(grad: Any, args: tuple, expected: Any) -> Callable[[], Any]:
    """`grad(*args)` on XLA, checked against the NumPy backend's gradients first."""
    got = grad(*args)
    for a, b in zip(got if isinstance(got, tuple) else (got,), expected if isinstance(expected, tuple) else (expected,)):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    return lambda: grad(*args)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small inputs, one round")
    options = parser.parse_args(argv)
    repeats = 1 if options.quick else 7
    jax_ok = _jax_available()
    print("| case | ours (ag.grad, NumPy backend) | hand-written NumPy | ours / NumPy (target <= 2) | JAX jit "
          "| ours / JAX | ours, jit_compile=True | XLA / JAX (target <= 1.5) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for label, ours, limit, jax_maker, on_xla in CASES(options.quick, xla=jax_ok):
        with_jax = jax_ok and jax_maker is not None
        fns = [ours, limit, *((jax_maker(),) if with_jax else ()), *((on_xla,) if with_jax and on_xla else ())]
        t_ours, t_limit, *t_rest = best_times(fns, repeats)
        jax_cell, jax_ratio, xla_cell, xla_ratio = "not importable", "", "", ""
        if with_jax:
            t_jax = t_rest[0]
            jax_cell, jax_ratio = f"{t_jax * 1e6:.1f} us", f"{t_ours / t_jax:.2f}x"
            if on_xla is not None:
                t_xla = t_rest[1]
                xla_cell, xla_ratio = f"{t_xla * 1e6:.1f} us", f"{t_xla / t_jax:.2f}x"
        print(f"| {label} | {t_ours * 1e6:.1f} us | {t_limit * 1e6:.1f} us | {t_ours / t_limit:.2f}x | "
              f"{jax_cell} | {jax_ratio} | {xla_cell} | {xla_ratio} |")


if __name__ == "__main__":
    main()
