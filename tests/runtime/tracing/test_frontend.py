"""The frontend interface: the embedded NumPy graph satisfies it."""

from __future__ import annotations

import numpy as np

from runtime.ir.graph import Graph
from runtime.ir.types import TensorType
from runtime.tracing.frontend import Frontend, GraphFrontend, get_frontend
from runtime.tracing.tensor import Tensor
from runtime.tracing.tensor_array import TensorArray
from runtime.tracing.trace_context import building


def test_default_backend_implements_every_protocol_method():
    frontend = get_frontend()
    assert isinstance(frontend, GraphFrontend)
    methods = [m for m in vars(Frontend) if not m.startswith("_")]
    assert methods and all(callable(getattr(frontend, m)) for m in methods)


def test_staged_values_and_constants():
    frontend = get_frontend()
    graph = Graph("g")
    x = Tensor(graph.add_input(TensorType(np.float32, (3,)), "x"), graph)
    assert frontend.is_staged(x) and not frontend.is_staged(np.zeros(3))
    assert not frontend.is_tracing()
    with building(graph):
        assert frontend.is_tracing()
        c = frontend.constant(2, np.float32)
        assert frontend.type_of(c) == TensorType(np.float32, ())
        array = frontend.make_tensor_array(np.float32, size=2)
        assert frontend.is_tensor_array(array) and isinstance(array, TensorArray)
        with frontend.discovery_scope():
            probe = frontend.placeholder(TensorType(np.int64, ()))
            assert probe.graph is not graph
    assert all(node.op != "input" or node.name == "x" for node in graph.nodes)


def test_cond_and_while_through_the_backend():
    frontend = get_frontend()
    graph = Graph("g")
    x = Tensor(graph.add_input(TensorType(np.int64, ()), "x"), graph)
    with building(graph):
        (y,) = frontend.stage_cond(x > 0, lambda: (x,), lambda: (-x,), ("y",))
        (z,) = frontend.stage_while(lambda v: v < 100, lambda v: (v * 2,), (y + 1,), None, None, ("z",))
    assert y.dtype == np.int64 and z.dtype == np.int64
    assert [n.op for n in graph.nodes].count("while") == 1
