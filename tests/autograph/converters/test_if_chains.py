"""Long if/elif chains become one flat `ag__.if_chain` call, which runs exactly as the nested ifs did."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import autograph as ag
from autograph.converters.if_chains import NESTED_CHAIN


def _load(tmp_path, source: str, name: str):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    namespace = {"__name__": name, "__file__": str(path)}
    exec(compile(source, str(path), "exec"), namespace)
    return namespace


def _chain(arms: list[str], head: list[str] | None = None, tail: list[str] | None = None, indent: str = "    ") -> str:
    lines = ["def f(x, log, box):", *(head or [])]
    for index, body in enumerate(arms):
        keyword = "if" if index == 0 else "elif"
        lines.append(f"{indent}{keyword} log.append({index}) or x == {index}:")
        lines += [f"{indent}    {line}" for line in body.split(";")]
    lines += [f"{indent}else:", f"{indent}    log.append('else')", f"{indent}    y = -1"]
    lines += tail or [f"{indent}return y, box.v"]
    return "\n".join(lines) + "\n"


class Box:
    v = 0


_BODIES = st.sampled_from([
    "y = {i}",
    "y = {i} * 2;box.v = {i}",  # an attribute: the arm carries state functions
    "return {i}, -{i}",
    "y = {i};z = y + 1",
    "pass;y = {i}",
])


@given(st.lists(_BODIES, min_size=NESTED_CHAIN + 1, max_size=NESTED_CHAIN + 20), st.integers(-2, 40))
def test_flat_chain_runs_like_python(tmp_path_factory, bodies, x):
    """Tests run lazily in order (the log), only the taken arm's body runs, returns and attribute
    writes in arms included."""
    arms = [body.format(i=i) for i, body in enumerate(bodies)]
    namespace = _load(tmp_path_factory.mktemp("chains"), _chain(arms), "flat_chain")
    f = namespace["f"]
    code = ag.to_code(f)
    if not any(body.startswith("return") for body in arms):  # a lowered return may break the chain
        assert code.count("ag__.if_chain(") == 1
    expected_log, expected_box = [], Box()
    expected = f(x, expected_log, expected_box)
    log, box = [], Box()
    assert ag.convert(f)(x, log, box) == expected
    assert log == expected_log and box.v == expected_box.v


def test_a_short_chain_reads_nested_as_before(tmp_path):
    f = _load(tmp_path, _chain([f"y = {i}" for i in range(NESTED_CHAIN)]), "short")["f"]
    code = ag.to_code(f)
    assert "if_chain" not in code and code.count("ag__.if_stmt(") == NESTED_CHAIN


def test_each_arm_is_a_line_of_its_own(tmp_path):
    f = _load(tmp_path, _chain([f"y = {i}" for i in range(12)]), "lines")["f"]
    code = ag.to_code(f)
    start = code.index("ag__.if_chain(")
    call = code[start : code.index(")\n", code.index("else_body", start)) + 1].splitlines()
    assert len(call) == 13
    assert call[1].strip().startswith("lambda: ag__.or_(ag__.converted_call(log.append, 1), lambda: x == 1), if_body_1, (")


def test_staged_chain_equals_python_and_mixes_python_tests(tmp_path):
    """Tensor tests stage nested conds; a Python test in between picks its side while tracing."""
    lines = ["def f(x, flag):", "    y = x * 0"]
    for i in range(14):
        test = f"x == {i}" if i != 6 else "flag"
        lines += [f"    {'if' if i == 0 else 'elif'} {test}:", f"        y = x + {10 * i}"]
    lines += ["    else:", "        y = x - 1", "    return y"]
    f = _load(tmp_path, "\n".join(lines) + "\n", "staged")["f"]
    staged = ag.function(f)
    for flag in (False, True):
        for x in range(-1, 16):
            assert staged(np.int64(x), flag) == f(x, flag)


def test_staged_arm_error_names_its_elif_line(tmp_path):
    lines = ["def f(x):", "    if x == 0:", "        y = 0"]
    for i in range(1, 15):
        lines += [f"    elif x == {i}:", f"        y = {i}" if i != 12 else "        z = 1"]
    lines += ["    else:", "        y = -1", "    return y"]
    f = _load(tmp_path, "\n".join(lines) + "\n", "arm_error")["f"]
    with pytest.raises(ag.errors.StagingError, match=r"'y' is defined only .*arm_error.py:26") as caught:
        ag.function(f)(np.int64(3))
    assert "elif x == 12:" in str(caught.value)


def test_chain_in_a_loop_with_break_and_continue_and_in_a_try(tmp_path):
    arms = [f"total += {i}" if i % 3 else ("break" if i == 9 else "continue") for i in range(14)]
    lines = ["def f(xs):", "    total = 0", "    try:", "        for x in xs:"]
    for index, body in enumerate(arms):
        lines += [f"            {'if' if index == 0 else 'elif'} x == {index}:", f"                {body}"]
    lines += ["            else:", "                total -= 1", "    except ZeroDivisionError:", "        total = None",
              "    return total"]
    f = _load(tmp_path, "\n".join(lines) + "\n", "looped")["f"]
    assert ag.to_code(f).count("ag__.if_chain(") == 1
    for xs in ([1, 2, 4, 5, 3, 7], [1, 9, 2], list(range(20)), [30, 0, 13]):
        assert ag.convert(f)(xs) == f(xs)
    assert ag.function(f)(np.arange(5)) == f(list(range(5)))


def test_a_walrus_in_a_test_stays_in_the_flat_chain(tmp_path):
    """A test that binds a name is a def declaring it, in the one flat call."""
    lines = ["def f(x):"]
    for i in range(24):
        test = f"(k := x - {i}) == 0" if i == 12 else f"x == {i}"
        lines += [f"    {'if' if i == 0 else 'elif'} {test}:", f"        y = {i}"]
    lines += ["    else:", "        y = -1", "    return y, k if x >= 12 else None"]
    f = _load(tmp_path, "\n".join(lines) + "\n", "walrus")["f"]
    code = ag.to_code(f)
    assert code.count("ag__.if_chain(") == 1 and "ag__.if_stmt(" not in code
    assert "nonlocal k\n        return (k := (x - 12)) == 0" in code
    for x in (0, 11, 12, 13, 23, 30):
        assert ag.convert(f)(x) == f(x)


def _walrus_chain(tests: list[int], bodies: list[int], bound_before: bool) -> str:
    """Arm i's test: 0 plain, 1 `m := x - i`, 2 `n :=` the log's length, 3 `m :=` in a comprehension;
    its body: 0 `y = i`, 1 reads the names its test bound."""
    lines = ["def f(x, log):"] + (["    m = n = -7"] if bound_before else [])
    for i, (test, body) in enumerate(zip(tests, bodies)):
        condition = [
            f"log.append({i}) or x == {i}",
            f"log.append({i}) or (m := x - {i}) == 0",
            f"(n := len(log)) == x - 100 or log.append({i}) or x == {i}",
            f"log.append({i}) or any([(m := v) == x for v in ({i}, {i} + 1)])",
        ][test]
        lines += [f"    {'if' if i == 0 else 'elif'} {condition}:"]
        read = {1: "m", 2: "n", 3: "m"}.get(test)
        lines += [f"        log.append('body'); y = {read} * 10 + {i}" if body and read else f"        y = {i}"]
    lines += ["    else:", "        y = -1"]
    lines += ["    return y, m, n"]
    return "\n".join(lines) + "\n"


def _outcome(f, *args):
    try:
        return f(*args)
    except NameError as error:  # UnboundLocalError: a name the chain left unbound, read after it
        return NameError, "m" if "'m'" in str(error) else "n"


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 1)), min_size=NESTED_CHAIN + 1,
                max_size=NESTED_CHAIN + 20), st.booleans(), st.integers(-2, 40))
def test_flat_chain_with_walrus_tests_runs_like_python(tmp_path_factory, arms, bound_before, x):
    """Tests that bind names with `:=`, unbound before the chain or not, read in their arm's body
    and after the chain: the results, the order the log shows and the names after, as in Python."""
    tests, bodies = [t for t, _ in arms], [b for _, b in arms]
    namespace = _load(tmp_path_factory.mktemp("walrus"), _walrus_chain(tests, bodies, bound_before), "walrus_chain")
    f = namespace["f"]
    assert ag.to_code(f).count("ag__.if_chain(") == 1
    expected_log: list = []
    expected = _outcome(f, x, expected_log)
    log: list = []
    assert _outcome(ag.convert(f), x, log) == expected
    assert log == expected_log


def test_walrus_of_a_global_in_a_flat_chain(tmp_path):
    lines = ["def f(x):", "    global g"]
    for i in range(14):
        lines += [f"    {'if' if i == 0 else 'elif'} (g := x - {i}) == 0:", f"        y = g + {i}"]
    lines += ["    else:", "        y = -1", "    return y"]
    namespace = _load(tmp_path, "\n".join(lines) + "\n", "walrus_global")
    f = namespace["f"]
    assert "global g\n        return (g := (x - 3)) == 0" in ag.to_code(f)
    for x in (0, 5, 13, 20):
        expected = f(x), namespace["g"]
        namespace["g"] = None
        assert (ag.convert(f)(x), namespace["g"]) == expected


def test_staged_flat_chain_with_walrus_tests(tmp_path):
    """Tensor-valued tests that bind names: each arm's cond carries the name as the nested ifs did."""
    lines = ["def f(x):"]
    for i in range(14):
        lines += [f"    {'if' if i == 0 else 'elif'} (m := x * 2 - {i}) == 0:", f"        y = m + {10 * i}"]
    lines += ["    else:", "        y = x - 1", "    return y, m"]
    f = _load(tmp_path, "\n".join(lines) + "\n", "staged_walrus")["f"]
    assert ag.to_code(f).count("ag__.if_chain(") == 1
    staged = ag.function(f)
    for x in range(-1, 10):
        assert tuple(int(v) for v in staged(np.int64(x))) == f(x)


def test_a_thousand_arm_walrus_chain_runs_converted(tmp_path):
    """`elif (m := match(...)):` arms, 1,000 of them, run converted (the suite forces converted
    code) without nesting a call per arm."""
    lines = ["def f(x):"]
    for i in range(1000):
        lines += [f"    {'if' if i == 0 else 'elif'} (m := (x == {i}) and x) is not False:", "        y = m * 2"]
    lines += ["    else:", "        y = -1", "    return y, m"]
    f = _load(tmp_path, "\n".join(lines) + "\n", "deep_walrus")["f"]
    converted = ag.convert(f)
    for x in (0, 500, 999, 1000):
        assert converted(x) == f(x)


def test_explain_lists_each_arm_a_flat_chain_asked(tmp_path):
    lines = ["def f(x, k):", "    if k == 0:", "        y = x"]
    for i in range(1, 14):
        lines += [f"    elif k == {i}:", f"        y = x + {i}"]
    lines += ["    else:", "        y = x - 1", "    return y"]
    f = _load(tmp_path, "\n".join(lines) + "\n", "explained")["f"]
    records = [r for r in ag.explain(f, np.int64(3), 3).records if r.statement == "if"]
    assert [(r.line, r.outcome) for r in records] == [(2 + 2 * i, "python") for i in range(4)]
    assert "(True)" in records[-1].detail and all("(False)" in r.detail for r in records[:-1])
    staged = [r for r in ag.explain(f, np.int64(3), np.int64(3)).records if r.statement == "if"]
    assert [(r.line, r.outcome) for r in staged] == [(2 + 2 * i, "staged") for i in range(14)]



_ATTRIBUTE_CHAIN = """
class State:
    pass

def f(x, k):
    state = State()
    state.v = x * 0.0
""" + "".join(
    f"    {'if' if i == 0 else 'elif'} k == {i}:\n        state.v = x + {i + 1}\n" for i in range(NESTED_CHAIN + 2)
) + """    else:
        state.v = -x
    return state.v
"""


@pytest.mark.parametrize("k", [0, 5, NESTED_CHAIN + 1, -1])
def test_flat_chain_carries_an_attribute_of_a_local(tmp_path, k):
    """`state.v = ...` in the arms is carried through the cell of the local `state` (no state
    functions), on Python values and staged alike."""
    f = _load(tmp_path, _ATTRIBUTE_CHAIN, "attribute_chain")["f"]
    code = ag.to_code(f)
    assert code.count("ag__.if_chain(") == 1 and "get_state" not in code
    expected = f(2.0, k)
    assert ag.convert(f)(2.0, k) == expected
    assert float(ag.function(f)(np.float64(2.0), np.int64(k))) == expected


def test_walrus_chain_in_a_loop_and_in_a_closure_and_its_staged_error_line(tmp_path):
    """In a loop body (helpers hoisted), in a function whose name is nonlocal, and staged, where an
    arm's error names its own `elif` line."""
    arms = "".join(f"        {'if' if i == 0 else 'elif'} (m := x - {i}) == 0:\n            out.append(m + {i})\n"
                   for i in range(13))
    inner = "".join(f"        {'if' if i == 0 else 'elif'} (m := x - {i}) == 0:\n            y = {i}\n" for i in range(13))
    source = ("def looped(xs):\n    out = []\n    for x in xs:\n" + arms + "        else:\n            out.append(-1)\n"
              "    return out, m\n\ndef outer(x):\n    m = None\n    def inner():\n        nonlocal m\n" + inner
              + "        else:\n            y = -1\n        return y\n    return inner(), m\n")
    namespace = _load(tmp_path, source, "walrus_scopes")
    looped, outer = namespace["looped"], namespace["outer"]
    assert ag.to_code(looped).count("ag__.if_chain(") == 1
    for xs in ([0, 5, 12, 20], [3]):
        assert ag.convert(looped)(xs) == looped(xs)
    with pytest.raises(UnboundLocalError):
        ag.convert(looped)([])
    for x in (0, 7, 30):
        assert ag.convert(outer)(x) == outer(x)
    lines = ["def f(x):", "    if x == 0:", "        y = 0"]
    for i in range(1, 15):
        lines += [f"    elif (m := x - {i}) == 0:", "        y = m" if i != 12 else "        z = 1"]
    lines += ["    else:", "        y = -1", "    return y"]
    f = _load(tmp_path, "\n".join(lines) + "\n", "walrus_error")["f"]
    with pytest.raises(ag.errors.StagingError, match=r"'y' is defined only .*walrus_error.py:26") as caught:
        ag.function(f)(np.int64(3))
    assert "elif (m := x - 12) == 0:" in str(caught.value)
