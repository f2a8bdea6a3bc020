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


def test_a_walrus_in_a_test_keeps_that_arm_nested_and_exact(tmp_path):
    """A test that binds a name cannot move into a lambda: the chain breaks there."""
    lines = ["def f(x):"]
    for i in range(24):
        test = f"(k := x - {i}) == 0" if i == 12 else f"x == {i}"
        lines += [f"    {'if' if i == 0 else 'elif'} {test}:", f"        y = {i}"]
    lines += ["    else:", "        y = -1", "    return y, k if x >= 12 else None"]
    f = _load(tmp_path, "\n".join(lines) + "\n", "walrus")["f"]
    code = ag.to_code(f)
    assert code.count("ag__.if_chain(") == 2  # the arms before the walrus, and those after
    assert code.count("ag__.if_stmt(") == 1
    for x in (0, 11, 12, 13, 23, 30):
        assert ag.convert(f)(x) == f(x)


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
