"""ag.print, py_function and the staged assert: effects at every run, in order."""

import io
import sys

import numpy as np
import pytest

from runtime.backends.numpy.compiler import compile_graph
from runtime.backends.numpy.interpret import interpret
from runtime.ir.errors import InvalidArgumentError
from runtime.ir.origin import Origin
from runtime.ops.effects import format_value
from runtime.tracing.control_flow import while_loop
from runtime.tracing.effects import print_, py_function, staged_assert_op
from tests.runtime.tracing import build


def test_print_outside_a_trace_prints_at_once(capsys):
    print_("Executing with num_steps = ", 10)
    print_(np.array([1, 2, 3]), "x", sep="|", end="!\n")
    assert capsys.readouterr().out == "Executing with num_steps =  10\n[1 2 3]|x!\n"


def test_values_print_like_tf_print():
    assert format_value(np.array([1, 2, 3])) == "[1 2 3]"
    assert format_value(np.int64(3)) == "3"
    assert format_value("fizzbuzz") == "fizzbuzz"
    assert format_value(np.array([[1, 2], [3, 4]])) == "[[1 2]\n [3 4]]"


def test_staged_print_happens_at_every_run_not_at_trace_time(capsys):
    graph = build(lambda n: (print_("Executing with num_steps = ", n), n)[1], (np.int64, ()))
    assert capsys.readouterr().out == ""
    fn = compile_graph(graph)
    fn(np.int64(10))
    fn(np.int64(20))
    assert capsys.readouterr().out == "Executing with num_steps =  10\nExecuting with num_steps =  20\n"


def test_prints_keep_their_order_inside_loops(capsys):
    def f(x):
        def body(v):
            print_(v)
            return (np.tanh(v),)

        return while_loop(lambda v: v.sum() > 1, body, (x,))[0]

    fn = compile_graph(build(f, (np.float64, (2,))))
    capsys.readouterr()
    fn(np.array([1.0, 1.0]))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "[1. 1.]" and len(lines) >= 2


def test_structures_holding_tensors_print_their_run_time_values(capsys):
    def show(x, y):
        print_("pair:", [x, y], (x,), {"k": y, "a": 1}, sep="|")
        return x

    x, y = np.float32(1.5), np.array([1, 2])
    show(x, y)  # outside a trace: what the unconverted code prints
    expected = capsys.readouterr().out
    graph = build(show, (np.float32, ()), (np.int64, (2,)))
    for run in (compile_graph(graph), lambda *a: interpret(graph, *a)):
        run(x, y)
        assert capsys.readouterr().out == expected == "pair:|[np.float32(1.5), array([1, 2])]|(np.float32(1.5),)|{'k': array([1, 2]), 'a': 1}\n"


def test_print_with_only_constants_still_prints_every_run(capsys):
    fn = compile_graph(build(lambda x: (print_("Executing"), x)[1], (np.int64, ())))
    fn(np.int64(1))
    fn(np.int64(1))
    assert capsys.readouterr().out == "Executing\nExecuting\n"


def test_print_writes_to_the_file_it_is_given_at_every_run(capsys):
    shown = io.StringIO()
    print_("now", 1, file=shown)
    graph = build(lambda x: (print_("x is", x, [x], file=shown, flush=True), x)[1], (np.int64, ()))
    for run in (compile_graph(graph), lambda *a: interpret(graph, *a)):
        run(np.int64(2))
    assert shown.getvalue() == "now 1\nx is 2 [np.int64(2)]\nx is 2 [np.int64(2)]\n"
    assert capsys.readouterr().out == ""


def test_print_without_a_file_writes_to_stdout_as_it_is_when_the_graph_runs(capsys, monkeypatch):
    fn = compile_graph(build(lambda x: (print_("x", x, flush=True), x)[1], (np.int64, ())))
    redirected = io.StringIO()
    monkeypatch.setattr(sys, "stdout", redirected)
    fn(np.int64(3))
    assert redirected.getvalue() == "x 3\n"


def test_py_function_runs_every_execution_on_numpy_values():
    seen = []

    def record(value):
        seen.append(type(value))
        return value * 2

    graph = build(lambda x: py_function(record, [x + 1], np.float64), (np.float64, (2,)))
    fn = compile_graph(graph)
    np.testing.assert_array_equal(fn(np.array([1.0, 2.0]))[0], [4.0, 6.0])
    fn(np.array([1.0, 2.0]))
    assert seen == [np.ndarray, np.ndarray]
    assert graph.outputs[0].type.shape is None and graph.outputs[0].type.dtype == np.float64


def test_py_function_with_several_outputs_and_dtypes():
    graph = build(lambda x: py_function(lambda v: (v, v * 0.5), [x], [np.int64, np.float32]),
                  (np.int64, ()))
    out = compile_graph(graph)(np.int64(3))
    assert out == [3, 1.5] and out[1].dtype == np.float32


def test_py_function_outside_a_trace_calls_at_once():
    assert py_function(lambda a, b: a + b, [1, 2], np.int64) == 3
    assert py_function(lambda a: (a, a), [1], [np.int64, np.float64]) == [1, 1.0]


def test_staged_assert_raises_invalid_argument_with_message_and_line():
    origin = Origin("model.py", 12, "    assert x > 0, 'x must be positive'", "f", 4)
    graph = build(lambda x: (staged_assert_op(x > 0, "x must be positive", origin), x)[1],
                  (np.int64, ()))
    fn = compile_graph(graph)
    assert fn(np.int64(1)) == [1]
    with pytest.raises(InvalidArgumentError) as info:
        fn(np.int64(-1))
    message = str(info.value)
    assert "model.py:12" in message and "x must be positive" in message
    assert "assert x > 0" in message


def test_assert_outside_a_trace_checks_at_once():
    staged_assert_op(True, "fine", None)
    with pytest.raises(InvalidArgumentError, match="assertion failed: nope"):
        staged_assert_op(np.array([True, False]), "nope", None)
