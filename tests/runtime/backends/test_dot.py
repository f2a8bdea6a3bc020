"""DOT text for graphs, and rendering it with Graphviz when it is installed."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from runtime.backends import dot
from runtime.ir.graph import Graph
from runtime.ir.origin import Origin
from runtime.ir.types import TensorType

F32 = TensorType(np.float32, (None, 3))
SCALAR = TensorType(np.float32, ())


def while_graph() -> Graph:
    """x -> while (sum(x) > 1) { x = tanh(x) } -> x, built by hand."""
    graph = Graph("shrink")
    x = graph.add_input(F32, "x", Origin("model.py", 3, "def shrink(x):"))
    one = graph.add_node("constant", (), {"value": np.float32(1)}, SCALAR)
    test = Graph("test", parent=graph)
    tx = test.add_input(F32, "x")
    total = test.add_node("sum", (tx,), {}, SCALAR, Origin("model.py", 4, "    while np.sum(x) > 1:"))
    test.set_outputs([test.add_node("greater", (total, one), {}, TensorType(np.bool_, ()))])
    body = Graph("body", parent=graph)
    bx = body.add_input(F32, "x")
    body.set_outputs([body.add_node("tanh", (bx,), {}, F32, Origin("model.py", 5, '        x = np.tanh(x)  # "t"'))])
    loop = graph.add_node("while", (x,), {"cond": test, "body": body}, (F32,), Origin("model.py", 4, "while"))
    graph.set_outputs([graph.add_node("getitem", (loop,), {"index": 0}, F32)])
    return graph.finish()


def test_nodes_are_labelled_with_op_and_type():
    text = dot.to_dot(while_graph())
    assert text.startswith('digraph "shrink" {')
    assert 'label="x\\nfloat32[None, 3]"' in text
    assert 'label="tanh\\nfloat32[None, 3]"' in text
    assert 'label="const 1.\\nfloat32[]"' in text
    assert 'label="getitem [0]\\nfloat32[None, 3]"' in text


def test_subgraphs_of_a_while_are_clusters():
    text = dot.to_dot(while_graph())
    assert text.count("subgraph cluster_") == 2
    assert 'label="while: cond"' in text
    assert 'label="while: body"' in text


def test_tooltips_carry_file_line_and_quotes_are_escaped():
    text = dot.to_dot(while_graph())
    assert 'tooltip="model.py:5  x = np.tanh(x)  # \\"t\\""' in text
    assert 'tooltip="model.py:4  while np.sum(x) > 1:"' in text


def test_edges_follow_data_captures_and_subgraph_results():
    text = dot.to_dot(while_graph())
    assert "n0 -> n2;" in text  # x feeds the while node
    assert "style=dashed" in text  # the constant captured into the test
    assert 'tooltip="body result"' in text
    assert '-> outputs [label="0"]' in text


def test_render_svg_with_graphviz_or_say_how_to_install():
    if shutil.which("dot") is None:
        with pytest.raises(dot.GraphvizMissingError, match="Install Graphviz"):
            dot.render(dot.to_dot(while_graph()), "svg")
        return
    svg = dot.render(dot.to_dot(while_graph()), "svg").decode()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert "model.py:5" in svg


def test_without_graphviz_render_says_how_to_install(monkeypatch):
    monkeypatch.setattr(dot.shutil, "which", lambda name: None)
    with pytest.raises(dot.GraphvizMissingError, match="Install Graphviz"):
        dot.render("digraph {}", "png")


def test_render_rejects_unknown_format():
    with pytest.raises(ValueError, match="svg"):
        dot.render("digraph {}", "gif")


def test_literal_arguments_recorded_as_attrs_show_in_the_label():
    from runtime.ops.calls import Slot, Weak

    graph = Graph("f")
    x = graph.add_input(SCALAR, "x")
    graph.set_outputs([graph.add_node("not_equal", (x,), {"args": (Slot(0), Weak(1))}, SCALAR)])
    assert 'label="not_equal(x, 1)\\nfloat32[]"' in dot.to_dot(graph)


def test_attrs_that_are_no_literal_stay_out_of_labels():
    import weakref

    graph = Graph("reads")
    x = graph.add_input(SCALAR, "x")
    held = Graph("held")  # any object a weak reference can hold
    read = graph.add_node("read_variable", (), {"ref": weakref.ref(held), "name": "w", "origin": Origin("m.py", 2, "w")}, SCALAR)
    graph.set_outputs([graph.add_node("add", (x, read), {}, SCALAR)])
    text = dot.to_dot(graph.finish())
    assert "label=\"read_variable(name='w')" in text
    assert "weakref" not in text
