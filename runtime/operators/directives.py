"""set_loop_options: a directive the converter reads statically.

Placed as the first statement of a loop body, it is moved by the converter
into the loop's `opts`; called anywhere else (or outside converted code) it
does nothing.
"""

from __future__ import annotations

__all__ = ["set_loop_options"]


def set_loop_options(maximum_iterations: object = None, shape_invariants: object = None) -> None:
    """Loop options for the enclosing loop (see the converter's directives pass)."""
    del maximum_iterations, shape_invariants
