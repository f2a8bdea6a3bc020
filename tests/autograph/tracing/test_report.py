import sys
import traceback

import numpy as np
import pytest

import autograph as ag
from autograph.tracing import fast_call
from autograph.tracing.report import annotate
from runtime.ir.origin import Origin, register_source_map
from runtime.ir.user_frames import format_frames, user_frames


def _notes(error):
    return "\n".join(getattr(error, "__notes__", [])) if sys.version_info >= (3, 11) else str(error)


def test_error_while_tracing_keeps_type_and_lists_user_frames():
    def helper(a):
        return a.missing_attribute

    @ag.function(autograph=False)
    def f(a):
        return helper(a)

    with pytest.raises(AttributeError) as info:
        f(np.int64(1))
    notes = _notes(info.value)
    assert notes.startswith("in user code:")
    assert "return helper(a)" in notes and "return a.missing_attribute" in notes
    assert f'File "{__file__}"' in notes
    assert "function.py" not in notes and "trace.py" not in notes


def test_annotated_once_for_nested_traces():
    @ag.function(autograph=False)
    def inner(a):
        raise KeyError("boom")

    @ag.function(autograph=False)
    def outer(a):
        return inner(a)

    with pytest.raises(KeyError) as info:
        outer(np.int64(1))
    assert _notes(info.value).count("in user code:") == 1


def test_generated_frames_map_to_user_lines():
    filename = "<generated-for-report-test>"
    source = "def gen():\n    raise ValueError('bad')\n"
    register_source_map(filename, {2: Origin("model.py", 12, "y = x / 0", "model")})
    namespace: dict = {}
    exec(compile(source, filename, "exec"), namespace)
    try:
        namespace["gen"]()
    except ValueError as error:
        frames = user_frames(error.__traceback__)
        assert frames[-1] == Origin("model.py", 12, "y = x / 0", "model")
        annotate(error)
        assert 'File "model.py", line 12, in model' in _notes(error)


def test_format_frames():
    text = format_frames([Origin("a.py", 3, "  v = make()\n", "f")])
    assert text == 'in user code:\n\n    File "a.py", line 3, in f\n        v = make()'


def test_converted_code_is_reported_at_the_users_lines():
    def helper(y):
        return y.no_such_attribute

    @ag.function
    def f(x):
        if x > 0:
            x = helper(x)
        return x

    with pytest.raises(AttributeError) as info:
        f(np.int64(1))
    notes = _notes(info.value)
    assert "x = helper(x)" in notes and "return y.no_such_attribute" in notes
    assert "<autograph" not in notes


def test_python_310_fallback_puts_the_report_in_the_message(monkeypatch):
    monkeypatch.setattr(sys, "version_info", (3, 10, 0))

    def boom():
        raise ValueError("bad value")

    try:
        boom()
    except ValueError as error:
        annotate(error)
        assert str(error).startswith("bad value\n\nin user code:")
        assert 'raise ValueError("bad value")' in str(error)


def test_the_cause_of_an_error_is_kept():
    @ag.function(autograph=False)
    def f(a):
        try:
            {}["missing"]
        except KeyError as cause:
            raise ValueError("wrapped") from cause

    with pytest.raises(ValueError) as info:
        f(np.int64(1))
    assert isinstance(info.value.__cause__, KeyError)


def _is_even(n):
    if n == 0:
        return True
    return _is_odd(n - 1)


def _is_odd(n):
    if n == 0:
        return False
    return _is_even(n - 1)


def _factorial(n):
    if n <= 1:
        return np.int64(1)
    return n * _factorial(n - 1)


@pytest.mark.parametrize("fn, through", [(_is_even, " (through _is_odd)"), (_factorial, "")])
def test_recursion_on_a_tensor_condition_is_a_staging_error_naming_the_cycle(fn, through):
    with pytest.raises(ag.errors.StagingError) as info:
        ag.function(fn)(np.int64(4))
    lines = str(info.value).splitlines()
    assert lines[0] == (
        f"tracing {fn.__name__} recursed until Python's recursion limit: {fn.__name__} never stops "
        f"calling itself{through}, from {__file__}:{fn.__code__.co_firstlineno + 1}"
    )
    assert lines[1].endswith("    if n == 0:" if fn is _is_even else "    if n <= 1:")
    assert "Write the recursion as a loop" in lines[-1]
    assert ag.function(_factorial)(5) == 120  # recursion on Python values still works


def test_a_tensor_bool_in_a_function_without_autograph_says_autograph_is_off():
    @ag.function(autograph=False)
    def relu(x):
        while x > 10:
            x = x / 2
        if x > 0:
            return x
        return 0 * x

    with pytest.raises(ag.errors.StagingError) as caught:
        relu(np.float64(3.0))
    message = str(caught.value)
    assert "was used as a Python bool" in message
    assert "autograph is off for the Function 'relu' (ag.function(autograph=False))" in message
    assert "With autograph=True (the default) this `while` would be staged." in message

    @ag.function(autograph=False)
    def total(x):
        s = 0.0
        for v in x:
            s += v
        return s

    with pytest.raises(ag.errors.StagingError, match="this `for` would be staged"):
        total(np.ones(3))


def test_the_same_error_with_autograph_on_does_not_mention_it():
    @ag.function
    def pick(x):
        return [v for v in (1.0, 2.0) if x > v]

    with pytest.raises(ag.errors.StagingError) as caught:
        pick(np.float64(3.0))
    assert "autograph is off" not in str(caught.value)


def test_a_staging_error_keeps_only_the_users_frames_in_its_traceback():
    def helper(x):
        if x > 0:
            y = x
        return y

    @ag.function
    def f(x):
        return helper(x) + 1

    with pytest.raises(ag.errors.StagingError) as info:
        f(np.float64(1))
    files = [entry.filename for entry in traceback.extract_tb(info.value.__traceback__)]
    assert files[0] == __file__  # the call, then the one frame that re-raises it
    assert [name for name in files if name != __file__] == [fast_call.__file__]
    assert ".helper\n        if x > 0:" in _notes(info.value)  # the note still lists the user's lines


def test_other_errors_keep_their_whole_traceback():
    @ag.function(autograph=False)
    def f(a):
        return a.missing_attribute

    with pytest.raises(AttributeError) as info:
        f(np.int64(1))
    files = [entry.filename for entry in traceback.extract_tb(info.value.__traceback__)]
    assert any(name.endswith("function.py") for name in files)


def test_a_staging_error_of_a_call_the_fast_call_misses_keeps_only_the_users_frames():
    @ag.function
    def f(x):
        acc = 0
        for _ in ag.range(3):
            acc = acc + x
        return acc

    for _ in range(3):  # hot: its class's __call__ is the fast call
        f(np.int64(1))
    with pytest.raises(ag.errors.StagingError, match="changes dtype") as info:
        f(np.float64(1))
    files = [entry.filename for entry in traceback.extract_tb(info.value.__traceback__)]
    assert files[0] == __file__ and files[-1] == fast_call.__file__
    assert not any(name.endswith(("function.py", "staged_loops.py", "loop_tracing.py")) for name in files)
