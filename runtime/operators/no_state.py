"""The state functions a staged if or loop calls: read from the helpers' closure cells.

Converted code names the variables a statement carries and passes the
functions that change them (branches, loop body and test), all defined in
the scope that owns those variables or nested below it:

    ag__.while_stmt(loop_test, loop_body, ('n', 'steps'))

Every carried variable is a free variable of at least one of those functions
(each binds it through `nonlocal`, or reads it), so their closures hold its
cell. A staged path reads the state from the cells (an unbound one reads as
`Undefined(name)`, as a name a `del` may unbind did through
`value_or_undefined`) and rebinds it by writing them, what a
`get_state`/`set_state` pair with `nonlocal` did; an Undefined written back
unbinds the cell instead, so the names never hold the placeholder and the
converted code needs no `if ag__.is_undefined(y): del y` after the
statement. Python mode never asks.
A composite (`self.total`, `x[0]`) on a local is read and written through
its root's cell (runtime.operators.composite_names); a statement that
carries one on a global or a closure value passes its own pair as
`get_state=`/`set_state=`; one that carries nothing, neither.
"""

from __future__ import annotations

from collections.abc import Callable
from types import CellType

from runtime.operators.composite_names import CompositeName, parse_composite, root_name
from runtime.operators.undefined import Undefined

__all__ = ["state_functions"]


def _no_state() -> tuple:
    return ()


def _ignore_state(values: tuple) -> None:
    """Nothing to rebind."""


def state_functions(
    get_state: Callable[[], tuple] | None,
    set_state: Callable[[tuple], None] | None,
    names: tuple[str, ...] = (),
    helpers: tuple[object, ...] = (),
) -> tuple[Callable[[], tuple], Callable[[tuple], None]]:
    """The pair a staged if or loop calls: the given functions, or those of the cells of `names`
    that `helpers` close over, or no-ops when nothing is carried."""
    if get_state is not None and set_state is not None:
        return get_state, set_state
    if not names:
        return _no_state, _ignore_state
    cells = _cells(names, helpers)

    def read_cells() -> tuple:
        values = []
        for cell, name in zip(cells, names):
            if type(cell) is CompositeName:
                values.append(cell.read())
                continue
            try:
                values.append(cell.cell_contents)
            except ValueError:  # unbound (a path that binds none, or a `del`)
                values.append(Undefined(name))
        return tuple(values)

    def write_cells(values: tuple) -> None:
        for cell, value in zip(cells, values, strict=True):
            if type(cell) is CompositeName:
                cell.write(value)  # as `(x, self.total) = vars_` wrote it
            elif type(value) is Undefined:  # still unbound: reading it raises as in Python
                try:
                    del cell.cell_contents
                except ValueError:
                    pass
            else:
                cell.cell_contents = value

    return read_cells, write_cells


def _cells(names: tuple[str, ...], helpers: tuple[object, ...]) -> list[CellType | CompositeName]:
    found: dict[str, CellType] = {}
    for helper in helpers:
        helper = getattr(helper, "__wrapped__", helper)  # a loop body counted while unrolling
        code = getattr(helper, "__code__", None)
        if code is not None and helper.__closure__:
            found.update(zip(code.co_freevars, helper.__closure__))
    roots = [root_name(name) for name in names]
    missing = [root for root in roots if root not in found]
    if missing:
        raise AssertionError(
            f"internal error: no helper of this statement closes over {', '.join(missing)}; "
            "please report it with the function that was converted"
        )
    return [found[name] if name == root else CompositeName(name, found[root], parse_composite(name)[1])
            for name, root in zip(names, roots)]
