"""user_frames: an exception out of converted Python-mode code lists the user's own lines."""

import sys

import numpy as np
import pytest

import autograph as ag

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="exception notes need Python 3.11")

HERE = __file__


def _line_of(func, text: str) -> int:
    import inspect

    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, line in enumerate(lines) if text in line)


def lookup(table, keys):
    total = 0
    for k in keys:
        if k > 0:
            total += table[k]
    return total


def test_an_error_in_a_loop_body_names_the_users_lines():
    with pytest.raises(KeyError) as info:
        ag.convert(lookup)({1: 2}, [1, 3])
    (note,) = info.value.__notes__
    assert note.splitlines() == [
        "in user code:",
        "",
        f'    File "{HERE}", line {_line_of(lookup, "for k in keys")}, in lookup',
        "        for k in keys:",
        f'    File "{HERE}", line {_line_of(lookup, "if k > 0")}, in lookup',
        "        if k > 0:",
        f'    File "{HERE}", line {_line_of(lookup, "table[k]")}, in lookup',
        "        total += table[k]",
    ]
    # the traceback is untouched: its innermost frame is the generated one that raised
    tb = info.value.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    assert tb.tb_frame.f_code.co_filename.startswith("<autograph: test_user_frames.py:lookup")


def checked_inverse(x):
    if x == 0:
        raise ZeroDivisionError("no inverse of 0")
    return 1 / x


def inverses(xs):
    out = []
    for x in xs:
        out.append(checked_inverse(x))
    return out


def test_a_converted_helper_is_listed_under_its_caller_once():
    with pytest.raises(ZeroDivisionError) as info:
        ag.convert(inverses)([1, 0])
    (note,) = info.value.__notes__
    assert f"line {_line_of(inverses, 'out.append')}, in inverses" in note
    assert f"line {_line_of(checked_inverse, 'if x == 0')}, in checked_inverse" in note
    assert f"line {_line_of(checked_inverse, 'raise ZeroDivisionError')}, in checked_inverse" in note
    assert "converted_call" not in note and "if_stmt" not in note and "<autograph" not in note


def keep_what_parses(items, caught):
    total = 0
    for s in items:
        try:
            if s:
                total += int(s)
        except ValueError as error:
            caught.append(error)
    return total


def test_an_error_caught_in_converted_code_gets_no_note():
    caught = []
    assert ag.convert(keep_what_parses)(["1", "x", "3"], caught) == 4
    (error,) = caught
    assert not hasattr(error, "__notes__")


def helper_reads(d):
    return d["missing"]


def calls_helper(d):
    value = helper_reads(d)
    return value


def test_an_error_in_a_helper_called_outside_any_statement_is_noted_by_the_call():
    with pytest.raises(KeyError) as info:
        ag.convert(calls_helper)({})
    (note,) = info.value.__notes__
    assert f"line {_line_of(calls_helper, 'helper_reads(d)')}, in calls_helper" in note
    assert note.endswith('return d["missing"]')


def test_an_error_while_tracing_is_reported_once():
    @ag.function
    def branches(x):
        if x > 0:
            y = x
        return y

    with pytest.raises(ag.errors.StagingError) as info:
        branches(np.float32(1.0))
    notes = getattr(info.value, "__notes__", [])
    assert sum(note.startswith("in user code:") for note in notes) <= 1


def positive(x):
    assert x > 0, "x must be positive"
    return x


def first_or_zero(d, take):
    y = d["first"] if take else 0
    return y


def test_a_failed_assert_names_the_assert_not_the_operator():
    with pytest.raises(AssertionError, match="x must be positive") as info:
        ag.convert(positive)(-1)
    (note,) = info.value.__notes__
    assert note.splitlines()[2:] == [
        f'    File "{HERE}", line {_line_of(positive, "assert x > 0")}, in positive',
        '        assert x > 0, "x must be positive"',
    ]


def test_a_conditional_expression_is_listed_once():
    with pytest.raises(KeyError) as info:
        ag.convert(first_or_zero)({}, True)
    (note,) = info.value.__notes__
    assert note.splitlines()[2:] == [
        f'    File "{HERE}", line {_line_of(first_or_zero, "y = d")}, in first_or_zero',
        '        y = d["first"] if take else 0',
    ]
