"""within: tensor-dependent control flow inside a try or with block is refused.

A staged if/while/for becomes a graph node; the user's `except`, `finally`
or `__exit__` around it runs once, while tracing, and never sees what
happens when the graph runs (a staged assert failing, a loop's value). The
converter passes the innermost enclosing try/with of such a statement as
`within=('try', 12)`; the operator raises what `refuse` returns instead of
staging. The user's handler may well catch it (a StagingError is a
ValueError), so it is also kept on the trace's top graph, which fails the
trace once the function returns.
"""

from __future__ import annotations

from runtime.errors import StagingError
from runtime.origin import user_origin
from runtime.trace_context import current_graph

__all__ = ["refuse"]


def refuse(within: tuple[str, int], statement: str) -> StagingError:
    """The StagingError for a tensor-dependent `statement` ('if', 'while', 'for') inside `within`."""
    keyword, line = within
    origin = user_origin(3)
    where = f" at {origin}" if origin is not None else ""
    excerpt = f"\n{origin.excerpt()}" if origin is not None and origin.text else ""
    block = f"{origin.file}:{line}" if origin is not None else f"line {line}"
    error = StagingError(
        f"a tensor-dependent {statement}{where} is inside the {keyword} block at {block}; staged, it "
        f"runs when the graph runs, but the {keyword} block only sees what happens while tracing."
        f"{excerpt}\nMove the {keyword} block outside the Function (around the call), or move the "
        f"{statement} out of the {keyword} block. Work that must happen at every run (cleanup, "
        f"catching the InvalidArgumentError of a staged assert) belongs around the call of the Function."
    )
    graph = current_graph()
    while graph is not None and graph.parent is not None:
        graph = graph.parent
    if graph is not None and graph.refused is None:
        graph.refused = error
    return error
