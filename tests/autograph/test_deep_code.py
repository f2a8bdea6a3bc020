"""Code as deeply nested as CPython compiles converts and runs equal to Python, or fails with our error.

Each construct is generated at the deepest nesting `compile()` accepts here
(found by bisection at the test's own stack depth, so the limit is this
interpreter's, not a number written down), converted and run.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from autograph.source.deep import DEEP_LIMIT, run_deep
from runtime.backends.numpy.compiler import to_source


def _plus(n: int) -> tuple[str, object]:
    return "def f(x):\n    return " + " + ".join(["x"] * n) + "\n", 1


def _attribute(n: int) -> tuple[str, object]:
    return "class A:\n    pass\nA.a = A()\nA.a.v = 7\ndef f(x):\n    return x" + ".a" * n + ".v\n", "A()"


def _not(n: int) -> tuple[str, object]:
    return "def f(x):\n    return " + "not " * n + "x\n", 1


def _if_exp(n: int) -> tuple[str, object]:
    chain = "".join(f"{i} if x == {i} else " for i in range(n)) + "-1"
    return f"def f(x):\n    return {chain}\n", n - 1


def _calls(n: int) -> tuple[str, object]:
    return "def g(v):\n    return v + 1\ndef f(x):\n    return " + "g(" * n + "x" + ")" * n + "\n", 1


def _elif(n: int) -> tuple[str, object]:
    lines = ["def f(x):", "    if x == 0:", "        y = 0"]
    for i in range(1, n):
        lines += [f"    elif x == {i}:", f"        y = {i}"]
    lines += ["    else:", "        y = -1", "    return y"]
    return "\n".join(lines) + "\n", n - 1


def _chain(op: str, n: int) -> tuple[str, object]:
    return "def f(x):\n    return " + f" {op} ".join(["x"] * n) + "\n", 1


def _compiles(source: str) -> bool:
    try:
        compile(source, "<probe>", "exec")
    except (RecursionError, MemoryError, SyntaxError):
        return False
    return True


def _deepest(make, high: int = 6000) -> int:
    """The largest n whose source this interpreter compiles here (bisection; n=1 compiles), less a
    margin: Python's limit counts from the caller's stack depth, a few frames deeper in `_load`."""
    return _bisect(make, high) - 30


def _bisect(make, high: int) -> int:
    low = 1
    if _compiles(make(high)[0]):
        return high
    while high - low > 1:
        middle = (low + high) // 2
        if _compiles(make(middle)[0]):
            low = middle
        else:
            high = middle
    return low


def _load(tmp_path, source: str, name: str = "deep_module"):
    """The module's namespace, its file real so the converter reads the source."""
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    namespace = {"__name__": name, "__file__": str(path)}
    exec(compile(source, str(path), "exec"), namespace)
    return namespace


def _check_python_mode(tmp_path, make, n: int) -> None:
    source, arg = make(n)
    namespace = _load(tmp_path, source, f"checked_{n}")
    arg = eval(arg, namespace) if isinstance(arg, str) else arg
    f = namespace["f"]
    assert ag.convert(f)(arg) == f(arg)


@pytest.mark.parametrize(
    "make",
    [_plus, _attribute, _not, _if_exp, lambda n: _chain("and", n), lambda n: _chain("or", n), lambda n: _chain("<=", n)],
    ids=["plus", "attribute", "not", "if_exp", "and", "or", "compare"],
)
def test_python_accepts_it_so_it_converts(tmp_path, make):
    n = _deepest(make, 3200)
    assert n > 1000  # these chains compile thousands deep: the test must reach that far
    _check_python_mode(tmp_path, make, n)


def test_a_chain_of_thousands_of_operands_converts_flat(tmp_path):
    namespace = _load(tmp_path, _chain("and", 5000)[0])
    code = ag.to_code(namespace["f"])
    assert code.count("ag__.and_(") == 1  # one flat call, not 4,999 nested ones
    assert ag.convert(namespace["f"])(1) == 1
    assert ag.convert(namespace["f"])(0) == 0


def test_nested_calls_convert_and_run_as_deep_as_python_compiles(tmp_path):
    n = _deepest(_calls, 400)  # Python's tokenizer: 200 nested brackets
    assert n > 150
    _check_python_mode(tmp_path, _calls, n)
    namespace = _load(tmp_path, _calls(n)[0], "staged_calls")
    assert ag.function(namespace["f"])(np.int64(1)) == n + 1


def test_elif_chain_as_deep_as_python_compiles_converts_flat_and_runs(tmp_path):
    """Python compiles elif chains of ~3,000 arms; converted, one is one flat `if_chain` call,
    and running it nests no call per arm (before: ~490 arms, then a raw RecursionError)."""
    n = _deepest(_elif, 4000)
    assert n > 2000
    namespace = _load(tmp_path, _elif(n)[0])
    code = ag.to_code(namespace["f"])
    assert code.count("ag__.if_chain(") == 1 and "ag__.if_stmt(" not in code
    f, converted = namespace["f"], ag.convert(namespace["f"])
    for x in (0, 1, n // 2, n - 1, n, -3):
        assert converted(x) == f(x)


def _conversion_seconds(tmp_path, n: int) -> float:
    import time

    best = float("inf")
    for attempt in range(3):
        f = _load(tmp_path, _elif(n)[0], f"timed_{n}_{attempt}")["f"]
        start = time.perf_counter()
        ag.to_code(f)
        best = min(best, time.perf_counter() - start)
    return best


def test_elif_chain_conversion_time_is_linear(tmp_path):
    """Before, each arm's helpers moved out level by level: 100 arms 0.16 s, 800 arms 50 s."""
    small, large = _conversion_seconds(tmp_path, 100), _conversion_seconds(tmp_path, 800)
    assert large < 8 * small * 3, (small, large)


@pytest.mark.parametrize("n", [300, pytest.param(None, marks=pytest.mark.slow)])
def test_staged_elif_chain_deeper_than_pythons_indentation(tmp_path, n):
    """A staged chain nests a cond per arm; the NumPy backend writes branches 48 levels deep as
    functions of their own, so it is not bound by the 100 levels Python's parser indents
    (before: ~95 arms, then our StagingError). The slow one is as deep as Python compiles (~10 s)."""
    n = n or _deepest(_elif, 4000)
    f = _load(tmp_path, _elif(n)[0])["f"]
    staged = ag.function(f)
    for x in (0, 57, n - 1, n + 4):
        assert staged(np.int64(x)) == f(x)
    source = to_source(staged.get_concrete_function(np.int64(0)).graph)
    assert "def branch" in source and "    " * 60 not in source


def test_generated_code_python_cannot_compile_is_our_error(tmp_path, monkeypatch):
    """Were branches never split out, 120 staged levels would pass Python's 100 indentation
    levels: what Python refuses to compile is our StagingError naming the function."""
    from runtime.backends.numpy import control_code

    monkeypatch.setattr(control_code, "DEEP_INDENT", 10**6)
    deep = _load(tmp_path, _elif(120)[0], "deeper")
    with pytest.raises(ag.errors.StagingError, match=r"deeper.py:1: .*nests staged conditionals"):
        ag.function(deep["f"])(np.int64(3))


@pytest.mark.parametrize("make", [_if_exp, lambda n: _chain("and", n)], ids=["if_exp", "and"])
def test_staged_chains_deeper_than_the_default_stack(tmp_path, make):
    """Before, about 80 staged levels hit the recursion limit, and past 95 the NumPy backend's
    generated code nested deeper than Python's parser takes."""
    source, arg = make(300)
    f = _load(tmp_path, source)["f"]
    assert ag.function(f)(np.int64(arg)) == f(arg)


def test_a_run_of_nots_keeps_pythons_values():
    def f(x):
        return not not not x, not not x, not not not not x

    assert "ag__.not_(ag__.not_(ag__.not_(" not in ag.to_code(f)
    for value in (0, 1, [], [0], "", "a"):
        assert ag.convert(f)(value) == f(value)


def test_short_chains_read_as_before():
    def f(x, y):
        return x and y or not x, 0 if x else 1 if y else 2

    code = ag.to_code(f)
    assert "ag__.or_(ag__.and_(x, lambda: y), lambda: ag__.not_(x))" in code
    assert "ag__.if_exp(x, lambda: 0, lambda: ag__.if_exp(y, lambda: 1, lambda: 2, 'y'), 'x')" in code


def test_flat_chains_short_circuit_like_python():
    calls = []

    def v(value):
        calls.append(value)
        return value

    def f(a):
        return v(a) and v(1) and v(2) and v(3) and v(4) and v(0) and v(6) and v(7) and v(8) and v(9) and v(10) and v(11)

    for start in (0, 1):
        calls.clear()
        want = f(start)
        expected_calls = list(calls)
        calls.clear()
        assert ag.convert(f)(start) == want
        assert calls == expected_calls


def test_run_deep_restores_the_recursion_limit_and_passes_errors():
    import sys

    before = sys.getrecursionlimit()
    assert run_deep(lambda: sys.getrecursionlimit()) == max(before, DEEP_LIMIT)
    assert sys.getrecursionlimit() == before
    with pytest.raises(KeyError):
        run_deep(lambda: {}["missing"])
    assert sys.getrecursionlimit() == before
