import sys

import numpy as np
import pytest

import autograph as ag
from autograph.tracing.report import annotate, format_frames, user_frames
from runtime.origin import Origin, register_source_map


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
