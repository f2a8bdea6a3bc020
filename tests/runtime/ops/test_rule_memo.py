"""Remembered rule answers: the same question asks the rule once; a different literal is a new question."""

from __future__ import annotations

import numpy as np
import pytest

from runtime.ir.errors import StagingError
from runtime.ir.types import TensorType
from runtime.ops import get_op
from runtime.ops.calls import Slot, Span, Weak
from runtime.ops.rule_memo import question_key, remembered

F32 = TensorType(np.dtype("float32"), (3,))
I8 = TensorType(np.dtype("int8"), (3,))


def counting(answer=lambda types, attrs: types[0]):
    calls = []

    def infer(types, attrs):
        calls.append((tuple(types), dict(attrs)))
        return answer(types, attrs)

    return infer, calls


def test_the_same_question_asks_the_rule_once():
    infer, calls = counting()
    ask = remembered(infer)
    attrs = {"args": (Slot(0), Weak(1)), "axis": (0, Span(None, 2, None))}
    assert ask([F32], attrs) is F32
    assert ask([TensorType(np.dtype("float32"), (3,))], dict(attrs)) is F32
    assert len(calls) == 1


@pytest.mark.parametrize("literal", [Weak(1), Weak(1.0), Weak(True), np.int8(1), np.float32(1), 1, 1.0, True])
def test_literals_of_other_types_are_other_questions(literal):
    keys = {question_key([I8], {"args": (Slot(0), other)}) for other in
            [Weak(1), Weak(1.0), Weak(True), np.int8(1), np.float32(1), 1, 1.0, True]}
    assert len(keys) == 8
    assert question_key([I8], {"args": (Slot(0), literal)}) in keys


def test_answers_follow_the_literal_type():
    add = get_op("add")
    assert add.infer([I8], {"args": (Slot(0), Weak(1))}).dtype == np.int8
    assert add.infer([I8], {"args": (Slot(0), Weak(1.0))}).dtype == np.float64
    assert add.infer([I8], {"args": (Slot(0), np.int16(1))}).dtype == np.int16


def test_unkeyable_questions_and_errors_are_never_remembered():
    infer, calls = counting()
    ask = remembered(infer)
    ask([F32], {"where": np.ones(3, bool)})
    ask([F32], {"where": np.ones(3, bool)})
    assert len(calls) == 2
    assert question_key([F32], {"args": [Slot(0)]}) is None
    assert question_key([F32], {"value": np.void(b"ab")}) is None  # no hash by value
    assert question_key([F32], {"value": np.str_("a")}) is None
    assert question_key([(F32, F32)], {}) is None

    def failing(types, attrs):
        calls.append(1)
        raise StagingError("no")

    ask = remembered(failing)
    calls.clear()
    for _ in range(2):
        with pytest.raises(StagingError):
            ask([F32], {})
    assert len(calls) == 2


def test_staged_errors_still_name_the_call():
    with pytest.raises(StagingError, match="out of bounds"):
        get_op("sum").infer([F32], {"axis": Weak(3)})
    with pytest.raises(StagingError, match="out of bounds"):
        get_op("sum").infer([F32], {"axis": Weak(3)})
