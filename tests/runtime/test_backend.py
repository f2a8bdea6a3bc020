"""The backend interface: the embedded NumPy graph satisfies it."""

from __future__ import annotations

import numpy as np

from runtime.ir.graph import Graph
from runtime.ir.types import TensorType
from runtime.tracing.frontend import Backend, NumpyGraphBackend, get_backend
from runtime.tracing.tensor import Tensor
from runtime.tracing.tensor_array import TensorArray
from runtime.tracing.trace_context import building


def test_default_backend_implements_every_protocol_method():
    backend = get_backend()
    assert isinstance(backend, NumpyGraphBackend)
    methods = [m for m in vars(Backend) if not m.startswith("_")]
    assert methods and all(callable(getattr(backend, m)) for m in methods)


def test_staged_values_and_constants():
    backend = get_backend()
    graph = Graph("g")
    x = Tensor(graph.add_input(TensorType(np.float32, (3,)), "x"), graph)
    assert backend.is_staged(x) and not backend.is_staged(np.zeros(3))
    assert not backend.is_tracing()
    with building(graph):
        assert backend.is_tracing()
        c = backend.constant(2, np.float32)
        assert backend.type_of(c) == TensorType(np.float32, ())
        array = backend.make_tensor_array(np.float32, size=2)
        assert backend.is_tensor_array(array) and isinstance(array, TensorArray)
        with backend.discovery_scope():
            probe = backend.placeholder(TensorType(np.int64, ()))
            assert probe.graph is not graph
    assert all(node.op != "input" or node.name == "x" for node in graph.nodes)


def test_cond_and_while_through_the_backend():
    backend = get_backend()
    graph = Graph("g")
    x = Tensor(graph.add_input(TensorType(np.int64, ()), "x"), graph)
    with building(graph):
        (y,) = backend.stage_cond(x > 0, lambda: (x,), lambda: (-x,), ("y",))
        (z,) = backend.stage_while(lambda v: v < 100, lambda v: (v * 2,), (y + 1,), None, None, ("z",))
    assert y.dtype == np.int64 and z.dtype == np.int64
    assert [n.op for n in graph.nodes].count("while") == 1
