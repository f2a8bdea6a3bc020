"""Benchmark 7: the XLA backend (`ag.function(jit_compile=True)`).

The six steady-state loops of benchmark 5 and their first calls, on four
sides with the same NumPy inputs and NumPy outputs: our XLA backend, our
NumPy backend, the loop hand-written in Python over NumPy, and the loop
hand-written with `jax.jit` and lax (bench/corpus/handwritten_jax.py).
Targets (issue 22): steady state within 1.3x of hand-written JAX; faster
than our NumPy backend by 10x on the RNN and fizzbuzz, 2x on tanh over
1,000 floats, 1.5x on collatz; a first call within 1.5x of hand-written
`jax.jit`'s.
"""

from __future__ import annotations

from bench.agreement import check_agrees
from bench.corpus import handwritten, load_fresh
from bench.corpus.inputs import staged_cases
from bench.harness import Config, Missing, attempt, time_calls, time_fresh
from bench.peer_process import Peers
from bench.report import Section, cell, ratio, ratio_cell

__all__ = ["TITLE", "PEER", "run"]

TITLE = "7. XLA backend: ag.function(jit_compile=True)"
PEER = None
JAX_TARGET = 1.3
FIRST_CALL_TARGET = 1.5
# case name -> how many times faster than our NumPy backend the XLA backend must be
SPEEDUP_TARGETS = {"dynamic_rnn": 10.0, "fizzbuzz_score": 10.0, "collatz": 1.5}
TANH_BIG_TARGET = 2.0


def _steady(name: str, args: tuple, config: Config) -> tuple:
    import autograph as ag
    from bench.corpus import handwritten_jax

    module = load_fresh("staged")
    xla = ag.function(getattr(module, name), jit_compile=True)
    ours_numpy = ag.function(getattr(module, name))
    jax_fn = handwritten_jax.make()[name]
    limit = getattr(handwritten, name)
    expected = limit(*args)
    check_agrees(ours_numpy(*args), expected, f"ag.function({name})")
    check_agrees(xla(*args), expected, f"ag.function({name}, jit_compile=True)")
    check_agrees(jax_fn(*args), expected, f"hand-written JAX {name}")
    return tuple(time_calls([lambda: xla(*args), lambda: ours_numpy(*args), lambda: limit(*args),
                             lambda: jax_fn(*args)], config))


def _first_calls(name: str, args: tuple, config: Config) -> tuple:
    import autograph as ag
    from bench.corpus import handwritten_jax

    xla = time_fresh(lambda: getattr(load_fresh("staged"), name),
                     lambda func: ag.function(func, jit_compile=True)(*args), config)
    jax_first = time_fresh(lambda: handwritten_jax.make()[name], lambda func: func(*args), config)
    return xla, jax_first


def run(config: Config, peers: Peers | None = None) -> Section:
    section = Section(
        TITLE,
        "Steady state (traced and compiled once, then called again and again) and first calls "
        "(convert + trace + lower + XLA compile + run, fresh function objects every repetition); "
        "NumPy inputs and outputs on every side. \"XLA\" is `ag.function(f, jit_compile=True)`, "
        "\"NumPy backend\" is `ag.function(f)`, \"hand NumPy\" the loop in Python over NumPy, "
        "\"hand JAX\" the loop written with `jax.jit` and lax (bench/corpus/handwritten_jax.py).",
        ["case", "XLA", "NumPy backend", "hand NumPy", "hand JAX",
         f"XLA / hand JAX (target ≤ {JAX_TARGET}x)", "NumPy backend / XLA (target)"],
    )
    first_rows = section.add_table(
        ["case (first call)", "XLA", "hand JAX", f"XLA / hand JAX (target ≤ {FIRST_CALL_TARGET}x)"]
    )
    cases = staged_cases(config.quick)
    big = max(args[0].size for label, name, args in cases if name == "tanh_until_small")
    for label, name, args in cases:
        steady = attempt(lambda name=name, args=args: _steady(name, args, config))
        if isinstance(steady, Missing):
            xla = numpy_backend = limit = jax_side = steady
        else:
            xla, numpy_backend, limit, jax_side = steady
        target = SPEEDUP_TARGETS.get(name)
        if name == "tanh_until_small" and args[0].size == big:
            target = TANH_BIG_TARGET
        speedup = ratio(numpy_backend, xla)
        speedup_cell = (ratio_cell(speedup, lambda r, t=target: r >= t) + f" (≥ {target:g}x)"
                        if target is not None else ratio_cell(speedup) + " (none)")
        section.rows.append([
            label, cell(xla), cell(numpy_backend), cell(limit), cell(jax_side),
            ratio_cell(ratio(xla, jax_side), lambda r: r <= JAX_TARGET), speedup_cell,
        ])
        section.note_missing("XLA", label, xla)
        first = attempt(lambda name=name, args=args: _first_calls(name, args, config))
        xla_first, jax_first = (first, first) if isinstance(first, Missing) else first
        first_rows.append([label, cell(xla_first), cell(jax_first),
                           ratio_cell(ratio(xla_first, jax_first), lambda r: r <= FIRST_CALL_TARGET)])
        section.note_missing("XLA first call", label, xla_first)
    return section


if __name__ == "__main__":
    import sys

    quick = "--quick" in sys.argv
    print((run(Config.smoke() if quick else Config.full())).markdown())
