"""Graph.verify: the IR's invariants, and the graphs tracing makes keep them."""

import numpy as np
import pytest

from runtime.ir.graph import Graph
from runtime.ir.subgraphs import named_subgraphs, outer_inputs, subgraphs, walk
from runtime.ir.types import TensorType
from runtime.ops.registry import OPS, Op, register
from runtime.tracing.control_flow import cond, while_loop
from tests.runtime.tracing import build

INT = TensorType(np.int64, ())


def _count_down(n):
    return while_loop(lambda k: k, lambda k: (k - 1,), (n,))


def test_an_int_while_test_becomes_a_bool_scalar():
    graph = build(_count_down, (np.int64, ())).verify(OPS)
    (loop,) = [node for node in graph.nodes if node.op == "while"]
    (test,) = loop.attrs["cond"].outputs
    assert test.type == TensorType(np.bool_, ())


def test_an_int_predicate_becomes_a_bool_scalar():
    graph = build(lambda x: cond(x, lambda: x + 1, lambda: x - 1), (np.int64, ())).verify(OPS)
    (node,) = [n for n in graph.nodes if n.op == "cond"]
    assert node.inputs[0].type == TensorType(np.bool_, ())


def test_verify_names_a_predicate_that_is_no_bool_scalar():
    graph = Graph("g")
    x = graph.add_input(INT, "x")
    true, false = Graph("t", parent=graph), Graph("f", parent=graph)
    for branch in (true, false):
        branch.set_outputs([branch.add_node("constant", (), {"value": np.int64(1)}, INT)])
        branch.finish()
    graph.add_node("cond", (x,), {"true": true, "false": false}, (INT,))
    with pytest.raises(AssertionError, match=r"predicate int64\[\], not bool\[\]"):
        graph.verify()


def test_verify_names_an_unknown_op_only_given_the_registry():
    graph = Graph("g")
    x = graph.add_input(INT, "x")
    graph.set_outputs([graph.add_node("no_such_op", (x,), {}, INT)])
    graph.verify()
    with pytest.raises(AssertionError, match="unknown op 'no_such_op'"):
        graph.verify(OPS)


def test_users_index_follows_added_nodes():
    graph = Graph("g")
    x = graph.add_input(INT, "x")
    a = graph.add_node("add", (x, x), {}, INT)
    assert graph.users(x) == [a]
    b = graph.add_node("multiply", (a, x), {}, INT)
    assert graph.users(x) == [a, b] and graph.users(a) == [b] and graph.users(b) == []


def test_subgraphs_and_what_they_capture_are_found_one_way():
    def f(x, y):
        return while_loop(lambda k: k < y, lambda k: (k + x,), (x,))

    graph = build(f, (np.int64, ()), (np.int64, ()))
    (loop,) = [node for node in graph.nodes if node.op == "while"]
    assert [name for name, _ in named_subgraphs(loop)] == ["cond", "body"]
    assert subgraphs(loop) == [loop.attrs["cond"], loop.attrs["body"]]
    assert set(outer_inputs(subgraphs(loop))) == set(graph.inputs)
    assert walk(graph) == [graph, *subgraphs(loop)]


def test_the_registry_refuses_a_second_registration():
    with pytest.raises(AssertionError, match="registered twice"):
        register(Op("add", infer=lambda types, attrs: INT, impl=np.add))
