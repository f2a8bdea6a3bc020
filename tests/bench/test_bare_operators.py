"""The bare operators run converted code exactly as Python would, for Python values."""

import autograph as ag
from bench import bare_operators, python_mode
from bench.corpus import load_numerics
from bench.corpus.inputs import python_mode_args
from bench.harness import Config, Stats

TINY = Config(quick=True, reps=1, warmup=0, min_rep_seconds=0.0)


def _uses_branches(x, limit):
    total = 0
    for i in range(limit):
        if i % 3 == 0 and x:
            continue
        elif i > 7 or not x:
            break
        total += i if i % 2 else -i
    while total > 10:
        total -= abs(total) // 2
    return total


def test_a_bare_copy_returns_what_the_original_returns():
    module = load_numerics()
    cases = [(getattr(module, name), args) for name, args in python_mode_args(quick=True).items()]
    cases += [(_uses_branches, (x, limit)) for x in (0, 1) for limit in (0, 5, 12)]
    for func, args in cases:
        assert bare_operators.bare_copy(ag.convert(func))(*args) == func(*args)


def test_a_bare_copy_calls_the_bare_operators_and_leaves_the_converted_function_alone():
    converted = ag.convert(_uses_branches)
    bare = bare_operators.bare_copy(converted)
    real = converted.__closure__[converted.__code__.co_freevars.index("ag__")].cell_contents
    namespace = bare.__closure__[bare.__code__.co_freevars.index("ag__")].cell_contents
    assert namespace.if_stmt is bare_operators.if_stmt
    assert namespace.Undefined is real.Undefined
    assert real.if_stmt is not bare_operators.if_stmt


def test_python_mode_measures_the_shape_beside_ours():
    results = python_mode.measure_ours(TINY)
    for key, measured in results.items():
        assert all(isinstance(side, Stats) for side in measured)
        assert len(measured) == (2 if key == python_mode.CALL_KEY else 3)
