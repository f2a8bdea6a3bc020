"""The staged examples written by hand with `jax.jit` and lax: what the XLA backend should approach.

The same loops in the same dtypes (int64 counters, float32 data: 64-bit
types need JAX's x64 mode, switched on for the call only, as the XLA
backend does), NumPy in and NumPy out. `make()` builds fresh jitted
functions, so a first call can be timed with nothing cached.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["make"]


def make() -> dict[str, Callable[..., Any]]:
    """name -> a NumPy-in, NumPy-out function running a new `jax.jit` of the loop."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def collatz(n):
        def body(carry):
            n, steps = carry
            n = lax.cond(n % 2 == 0, lambda m: m // 2, lambda m: 3 * m + 1, n)
            return n, steps + 1

        return lax.while_loop(lambda c: c[0] != 1, body, (n, jnp.int64(0)))[1]

    def tanh_until_small(x):
        return lax.while_loop(lambda x: jnp.sum(x) > 1, jnp.tanh, x)

    def fizzbuzz_score(n):
        def body(i, score):
            return score + jnp.where(i % 15 == 0, 4, jnp.where(i % 3 == 0, 3, jnp.where(i % 5 == 0, 2, 1)))

        return lax.fori_loop(jnp.int64(1), n + 1, body, jnp.int64(0))

    def dynamic_rnn(input_data, initial_state):
        def step(state, x):
            state = jnp.tanh(x + state)
            return state, state

        _, states = lax.scan(step, initial_state, jnp.transpose(input_data, (1, 0, 2)))
        return jnp.transpose(states, (1, 0, 2))

    def add_one(x):
        return x + 1

    def numpy_call(fn: Callable[..., Any]) -> Callable[..., Any]:
        jitted = jax.jit(fn)

        def call(*args: Any) -> Any:
            with jax.enable_x64(True):
                out = np.asarray(jitted(*args))
            return out[()] if out.ndim == 0 else out

        return call

    functions = (collatz, tanh_until_small, fizzbuzz_score, dynamic_rnn, add_one)
    return {fn.__name__: numpy_call(fn) for fn in functions}
