"""Reverse-mode differentiation as a graph transform (see `transform.py`).

`backprop` adds the gradient of targets with respect to sources (and to the
Variables read) to a graph as ordinary typed nodes; `gradient_graph` makes a
new graph computing a graph's outputs' gradient with respect to its inputs.
"""

from runtime.ops.graph_copy import clone_into
from runtime.passes.gradient import (  # noqa: F401  registers the gradient ops
    grad_ops,
    grad_ops_linalg,
    grad_ops_spectral,
    grad_ops_updates,
)
from runtime.passes.gradient.build import Emitter
from runtime.passes.gradient.transform import Backprop, backprop
from runtime.passes.gradient.whole_graph import gradient_graph

__all__ = ["Backprop", "Emitter", "backprop", "clone_into", "gradient_graph"]
