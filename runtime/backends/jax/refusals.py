"""What XLA cannot compile, refused while lowering: a StagingError that names the
user's file and line and says how to fix it (or to run on the NumPy backend).
"""

from __future__ import annotations

from runtime.ir.errors import StagingError
from runtime.ir.graph import Node
from runtime.ir.origin import Origin
from runtime.ir.types import dtype_label

__all__ = ["staging_error_at", "_check_kind", "_first_line"]


def staging_error_at(origin: Origin | None, message: str) -> StagingError:
    """A StagingError that starts with the user's file:line and shows the line."""
    if origin is None:
        return StagingError(message)
    excerpt = f"\n{origin.excerpt()}" if origin.text else ""
    return StagingError(f"{origin}: {message}{excerpt}")



def _check_kind(node: Node) -> None:
    """Numbers and bools only: XLA has no text, bytes or datetime arrays."""
    for type_ in node.type if isinstance(node.type, tuple) else (node.type,):
        if type_.dtype.kind not in "biufcO":
            raise staging_error_at(
                node.origin,
                f"{'the input ' + repr(node.name) if node.op == 'input' else 'this value'} is a "
                f"{dtype_label(type_.dtype)} tensor, and XLA computes on numbers and bools only; keep text and "
                f"dates out of the function, or run it on the NumPy backend (jit_compile=False).",
            )



def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
