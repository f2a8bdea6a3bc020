"""compile_graph: readable generated source, input checks, outputs, caching, tracebacks."""

import linecache
import traceback

import numpy as np
import pytest

from runtime.backends.numpy.compiler import compile_graph, to_source
from runtime.ir.errors import InvalidArgumentError
from runtime.tracing.control_flow import cond, while_loop
from runtime.tracing.effects import py_function
from tests.runtime.tracing import build


def add_one(x):
    return x + 1


def step(x):
    return np.tanh(x * 2.0) + 1


def test_straight_line_source_reads_like_hand_written_numpy():
    graph = build(step, (np.float32, (4,)))
    assert to_source(graph) == (
        "def step(x):\n"
        "    # test_compiler.py:21  return np.tanh(x * 2.0) + 1\n"
        "    add = np.tanh(x * 2.0) + 1\n"
        "    return [add]\n"
    )


def test_outputs_are_a_list_and_0d_results_are_numpy_scalars():
    graph = build(lambda x: (x + x, x.sum()), (np.int64, ()))
    out = compile_graph(graph)(np.int64(3))
    assert isinstance(out, list)
    assert out[0] == 6 and type(out[0]) is np.int64
    assert type(out[1]) is np.int64


def test_python_scalars_are_converted_before_the_check():
    graph = build(add_one, (np.int64, ()))
    assert compile_graph(graph)(3) == [np.int64(4)]


def test_wrong_dtype_names_the_input_and_both_types():
    graph = build(add_one, (np.float32, (4,)))
    with pytest.raises(InvalidArgumentError, match=r"'x'.*float32\[4\].*int64\[4\]"):
        compile_graph(graph)(np.arange(4))


def test_wrong_shape_is_rejected_and_none_dims_are_wildcards():
    fixed = compile_graph(build(add_one, (np.float64, (2, 3))))
    with pytest.raises(InvalidArgumentError, match=r"float64\[2, 3\].*float64\[3, 2\]"):
        fixed(np.zeros((3, 2)))
    loose = compile_graph(build(add_one, (np.float64, (None, 3))))
    assert loose(np.zeros((5, 3)))[0].shape == (5, 3)
    with pytest.raises(InvalidArgumentError):
        loose(np.zeros((5, 4)))
    with pytest.raises(InvalidArgumentError):
        loose(np.zeros(3))
    unknown = compile_graph(build(add_one, (np.float64, None)))
    assert unknown(np.zeros((2, 2, 2)))[0].shape == (2, 2, 2)


@pytest.mark.parametrize("shape, value", [
    ((2, 3), np.zeros((2, 3))),
    ((2, 3), np.zeros((3, 2))),
    ((None, 3), np.zeros((5, 3))),
    ((None, 3), np.zeros((5, 4))),
    ((None, 3), np.zeros(3)),
    (None, np.zeros((2, 2))),
    ((), 3),
    ((), np.float64(2.5)),
    ((), np.float32(2.5)),
    ((), np.array(1.5)),
])
def test_first_call_checks_like_the_generated_entry_of_later_calls(shape, value):
    """The first call checks in plain Python, later ones in the generated entry: same outcomes."""

    def outcome(fn):
        try:
            out = fn(value)
        except InvalidArgumentError as error:
            return str(error)
        return [(type(v), np.shape(v), np.asarray(v).tolist()) for v in out]

    fn = compile_graph(build(lambda x: (x + 1, x.sum()), (np.float64, shape)))
    first, second, third = outcome(fn), outcome(fn), outcome(fn)
    assert first == second == third


def test_compiled_graph_is_cached_per_graph_and_setting():
    graph = build(add_one, (np.int64, ()))
    assert compile_graph(graph) is compile_graph(graph)
    assert compile_graph(graph, optimize=False) is not compile_graph(graph)


def test_scalar_constants_are_typed_literals_and_arrays_are_globals():
    table = np.arange(6.0).reshape(2, 3)
    graph = build(lambda x: x * np.float32(3) + table, (np.float32, (2, 3)), names=("x",))
    source = compile_graph(graph, optimize=False).source
    assert "np.float32(3.0)" in source
    assert "Const" in source and "array(" not in source
    out = compile_graph(graph)(np.ones((2, 3), np.float32))[0]
    np.testing.assert_array_equal(out, np.ones((2, 3)) * 3 + table)


def test_cond_prints_as_if_else_and_while_as_while():
    def f(x):
        y = cond(x > 0, lambda: x * 2, lambda: -x, names=("y",))
        (n,) = while_loop(lambda n: n < 100, lambda n: (n * 2,), (y,), names=("n",))
        return n

    graph = build(f, (np.int64, ()))
    source = to_source(graph)
    assert "    if x > 0:\n" in source and "    else:\n" in source
    assert "    while n < 100:\n" in source
    fn = compile_graph(graph)
    assert fn(np.int64(3)) == [np.int64(192)]
    assert fn(np.int64(-70)) == [np.int64(140)]


def test_maximum_iterations_adds_a_counter():
    graph = build(lambda x: while_loop(lambda i: i < 100, lambda i: (i + 1,), (x,), maximum_iterations=5)[0],
                  (np.int64, ()))
    source = to_source(graph)
    assert "iterations = 0" in source and "while iterations < 5 and loop_var < 100:" in source
    assert compile_graph(graph)(np.int64(0)) == [np.int64(5)]


def test_generated_file_is_in_linecache_and_tracebacks_show_its_lines():
    def boom(v):
        raise RuntimeError("boom")

    graph = build(lambda x: py_function(boom, [x + 1], np.float64), (np.float64, ()))
    fn = compile_graph(graph)
    assert fn.filename in linecache.cache
    assert linecache.getline(fn.filename, 1).startswith("def ")
    with pytest.raises(RuntimeError) as info:
        fn(np.float64(1))
    frames = traceback.extract_tb(info.value.__traceback__)
    generated = [f for f in frames if f.filename == fn.filename]
    assert generated and "call_python(" in generated[0].line


def test_each_compilation_gets_its_own_file():
    a = compile_graph(build(add_one, (np.int64, ())))
    b = compile_graph(build(add_one, (np.int64, ())))
    assert a.filename != b.filename


def test_object_inputs_skip_the_check():
    from runtime.ir.graph import Graph
    from runtime.ir.types import TensorType

    graph = Graph("passthrough")
    handle = graph.add_input(TensorType(object, ()), "h")
    graph.set_outputs([handle])
    assert compile_graph(graph.finish())([1, 2]) == [[1, 2]]


def test_inspect_shows_the_generated_function():
    import inspect

    fn = compile_graph(build(step, (np.float32, (4,))))
    assert inspect.getsource(fn.function) == fn.source


def test_generated_code_reads_numpy_from_a_module_without_getattr(monkeypatch):
    """NumPy's module __getattr__ keeps CPython from specialising `np.tanh` reads: the
    generated function reads the same attributes from a plain module, unless its code names
    one that only NumPy's __getattr__ finds (a submodule imported lazily)."""
    import runtime.backends.numpy.compiler as compile_module

    fn = compile_graph(build(step, (np.float32, (4,)))).function
    module = fn.__globals__["np"]
    assert module is not np and "__getattr__" not in vars(module)
    assert module.tanh is np.tanh and module.int64 is np.int64
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(fn(x)[0], step(x))

    monkeypatch.setattr(compile_module, "_NUMPY_LAZY", frozenset({"tanh"}))
    assert compile_graph(build(step, (np.float32, (4,)))).function.__globals__["np"] is np


def test_a_big_endian_input_runs_as_its_native_dtype_in_the_entry_and_the_first_call():
    """`>f4` is float32 stored the other way round: the entry converts it, the result is NumPy's."""
    fn = compile_graph(build(step, (np.float32, (3,))))
    big = np.array([0.5, -1.0, 2.0], dtype=">f4")
    expected = step(big.astype(np.float32))
    for _ in range(3):  # the first call checks in plain Python, later ones in the generated entry
        (out,) = fn(big)
        assert out.dtype == np.float32 and out.dtype.isnative
        np.testing.assert_array_equal(out, expected)


def test_a_masked_array_is_refused_at_the_graph_entry():
    fn = compile_graph(build(lambda x: x.sum(), (np.float64, (3,))))
    masked = np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    for _ in range(2):
        with pytest.raises(TypeError, match=r"MaskedArray.*mask would be silently dropped.*x\.filled"):
            fn(masked)
