"""Call templates: weak scalars, slots, hashable attrs, printed literals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from runtime.ir.errors import StagingError
from runtime.ops.calls import Slot, Span, Weak, render, render_call, resolve_call
from runtime.tracing.record import split_call


def test_weak_equality_keeps_types_apart():
    assert Weak(1) == Weak(1)
    assert Weak(1) != Weak(1.0) and Weak(1) != Weak(True)
    assert Weak(float("nan")) == Weak(float("nan"))
    assert len({Weak(1), Weak(1.0), Weak(True), Weak(1)}) == 3
    assert Weak(0.0) == Weak(-0.0) or repr(Weak(-0.0)) == "-0.0"


def test_split_call_keeps_python_scalars_and_literals():
    x = np.ones(3)
    inputs, attrs = split_call((x, 2, 0.5), {"axis": (0, 1), "dtype": np.float32, "mode": "edge"})
    assert inputs == [x]
    assert attrs == {"args": (Slot(0), Weak(2), Weak(0.5)), "axis": (Weak(0), Weak(1)),
                     "dtype": np.dtype(np.float32), "mode": "edge"}
    hash(tuple(sorted((k, v) for k, v in attrs.items() if k != "dtype")))


def test_split_call_without_literals_has_no_args_attr():
    a, b = np.ones(2), np.zeros(2)
    inputs, attrs = split_call((a, b), {})
    assert len(inputs) == 2 and attrs == {}
    args, kwargs = resolve_call(["A", "B"], attrs)
    assert args == ("A", "B") and kwargs == {}


def test_lists_become_tuples():
    inputs, attrs = split_call(([1, 2], ), {})
    assert inputs == [] and attrs == {"args": ((Weak(1), Weak(2)),)}
    inputs, attrs = split_call(([np.ones(2), 1.5],), {})
    assert attrs["args"] == ((Slot(0), Weak(1.5)),) and inputs[0].shape == (2,)


def test_slices_are_spans():
    inputs, attrs = split_call((np.ones(3), slice(1, None, 2)), {})
    assert attrs["args"][1] == Span(Weak(1), None, Weak(2))
    args, _ = resolve_call(["x"], attrs)
    assert args == ("x", slice(1, None, 2))


def test_render_literals():
    sources = ["a", "b"]
    assert render(Weak(float("inf")), sources) == "float('inf')"
    assert render(Weak(-float("inf")), sources) == "float('-inf')"
    assert render(Weak(0.5j), sources) == "complex(0.0, 0.5)"
    assert render((Slot(1),), sources) == "(b,)"
    assert render(np.dtype("int8"), sources) == "np.dtype('int8')"
    assert render(Span(None, Weak(3), None), sources) == "slice(None, 3, None)"
    assert render(Ellipsis, sources) == "..."
    assert render_call("np.clip", sources, {"args": (Slot(0), Weak(0), Slot(1)), "dtype": np.dtype("float32")}) \
        == "np.clip(a, 0, b, dtype=np.dtype('float32'))"
    for value in (float("inf"), float("nan"), -2.5, 0.5j, 7, True):
        evaluated = eval(render(Weak(value), sources), {"np": np})
        assert type(evaluated) is type(value)
        assert evaluated == value or (isinstance(value, float) and math.isnan(value))


def test_unstageable_arguments():
    with pytest.raises(StagingError, match="cannot stage an argument of type dict"):
        split_call(({"a": 1},), {})


def test_numpy_scalars_are_strong_literals():
    inputs, attrs = split_call((np.ones(2), np.float32(1.5), np.int64(3)), {"axis": np.int64(0)})
    assert len(inputs) == 1
    assert attrs["args"][1:] == (np.float32(1.5), np.int64(3)) and attrs["axis"] == 0
    for value in (np.float32("nan"), np.float64("-inf"), np.int8(-3), np.True_, np.complex64(1 - 2j), np.uint64(7)):
        text = render(value, [])
        evaluated = eval(text, {"np": np})
        assert type(evaluated) is type(value), text
        assert evaluated == value or np.isnan(value)
