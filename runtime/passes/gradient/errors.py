"""The errors of differentiation: each names the user's line that made the op."""

from __future__ import annotations

from runtime.ir.errors import StagingError
from runtime.ir.graph import Node

__all__ = ["not_differentiable", "at_line"]


def at_line(node: Node) -> str:
    origin = node.origin
    if origin is None:
        return ""
    excerpt = f"\n{origin.excerpt()}" if origin.text else ""
    return f"{origin}: ", excerpt


def not_differentiable(node: Node, detail: str = "") -> StagingError:
    """The StagingError for a gradient that would have to flow through `node` and cannot."""
    where, excerpt = at_line(node) or ("", "")
    what = "np." + node.op.replace("linalg_", "linalg.").replace("fft_", "fft.")
    if node.op == "py_function":
        what = "ag.py_function"
    if node.op in ("read_variable", "assign_variable"):
        what = f"the Variable op {node.op!r}"
    detail = f" {detail}" if detail else ""
    from runtime.passes.gradient.grad_ops import GRAD_OPS

    if node.op in GRAD_OPS:
        what = f"the gradient op {node.op!r}"
        fix = ("Second-order gradients (a gradient of a gradient) differentiate through the ordinary "
               "ops of a first gradient and through its helpers for broadcasting, indexing, products, "
               "sum/mean/max/min/var/std reductions, sorts, cumsum, concatenation, inv, det, solve, norm and "
               "the Fourier transforms, but not through this one (see docs/gradients.md, "
               "'Second-order gradients').")
    elif node.op == "py_function" and type(node.attrs.get("func")).__name__ == "GradientCall":
        what = "the gradient function given to an ag.py_function"
        fix = ("A gradient of a gradient would differentiate that Python code, which no tape sees: "
               "compute the second-order part with NumPy functions inside the Function instead.")
    elif node.op == "py_function":
        fix = ("Its Python code is invisible to the tape: give it a gradient function "
               "(ag.py_function(func, inp, Tout, grad=grad_fn), where grad_fn(upstream, *inputs) returns "
               "one gradient per input), compute that part with NumPy functions inside the Function, or "
               "keep it out of the path from the sources to the target.")
    else:
        fix = ("Rewrite it with differentiable NumPy functions (see docs/gradients.md), or cut the "
               "gradient there by computing that value outside the tape.")
    return StagingError(
        f"{where}cannot differentiate through {what}{detail}, which lies between the sources and "
        f"the target of a gradient. {fix}{excerpt}"
    )
