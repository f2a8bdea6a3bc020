"""if_chain: a long `if/elif/.../else` chain as one call, so running it nests no call per arm.

    if x == 0:                 def if_body(): ...
        y = 0                  def if_body_1(): ...
    elif x == 1:       ->      def else_body_1(): ...
        y = 1                  ag__.if_chain(lambda: x == 0, if_body, ('y',),
    else:                                    lambda: x == 1, if_body_1, ('y',), else_body_1)
        y = -1

Written nested, each `elif` is an `if` in the else branch of the one before,
and running arm k takes k nested calls (an operator and a branch each):
Python's recursion limit stopped chains at ~490 arms, where Python itself
runs thousands. Here the arms are (test, body, names) triples, then the last
`else` (or None); each test is a function, called in Python's order until one
is true, and only that arm's body runs.

A Tensor test stages a cond whose false branch is the rest of the chain, as
the nested `if_stmt` calls did: arm k's cond carries arm k's names, with the
options of that arm's `if_stmt` (`nouts`, `unread`, `get_state`, `set_state`)
from `options[k]` when it has any, and `within` for every arm (the chain's
arms share their try/with). Staged chains nest conds, so deep ones nest
calls while they trace (see autograph.source.deep).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from runtime.ir.origin import map_location, pinned_origin
from runtime.ir.user_frames import note_user_code
from runtime.operators.composite_names import root_name
from runtime.operators.if_stmt import if_stmt
from runtime.tracing.staged import is_staged

__all__ = ["CHAIN_CODE", "if_chain"]


def if_chain(
    *arms: object,
    within: tuple[str, int] | None = None,
    options: dict[int, dict[str, object]] | None = None,
) -> None:
    """Run the body of the first arm whose test is true, else the last function (when not None)."""
    _chain_from(arms, 0, within, options, [])


def _chain_from(arms: tuple, start: int, within: tuple[str, int] | None, options: dict | None, cells: list) -> None:
    try:
        last = len(arms) - 1
        for index in range(start, last, 3):
            cond = arms[index]()
            if cond is False:
                continue
            if cond is not True and is_staged(cond):
                _staged(arms, index, cond, within, options, cells)
                return
            if cond is True or cond:
                body = arms[index + 1]
                if body is not None:
                    body()
                return
        orelse = arms[last]
        if orelse is not None:
            orelse()
    except Exception as error:
        note_user_code(error)
        raise


# the code of the frame that asks the tests and calls the chosen body: ag.explain reads its locals
CHAIN_CODE = _chain_from.__code__


def _staged(arms: tuple, index: int, cond: object, within, options: dict | None, cells: list) -> None:
    """Arm `index // 3` as the `if_stmt` the nested chain made: its else branch is the rest."""
    from runtime.operators.no_state import state_functions

    names = arms[index + 2]
    chosen = dict(options.get(index // 3, ())) if options else {}
    if not cells:
        cells.append(_holders(arms))
    get_state, set_state = state_functions(
        chosen.pop("get_state", None), chosen.pop("set_state", None), names, tuple(cells[0](names))
    )

    def rest() -> None:
        _chain_from(arms, index + 3, within, options, cells)

    test = getattr(arms[index], "__code__", None)
    origin = None if test is None else map_location(test.co_filename, test.co_firstlineno)
    with pinned_origin(origin, sys._getframe()):  # the arm's `elif` line (each arm is a line of the call)
        if_stmt(cond, arms[index + 1], rest, names, get_state=get_state, set_state=set_state, within=within,
                **chosen)


def _holders(arms: tuple) -> Callable[[tuple[str, ...]], list[Callable[[], object]]]:
    """For names, the functions of the chain whose closures hold their cells: one scope defines
    them all, so a carried name's cell is the same in whichever binds or reads it. Each
    function is looked at once per run of the chain, not once per staged arm."""
    last = len(arms) - 1
    functions = [arms[i] for i in range(0, last, 3)] + [arms[i] for i in range(1, last, 3)] + [arms[last]]
    holder: dict[str, Callable[[], object]] = {}
    for function in functions:
        code = getattr(function, "__code__", None)
        if code is not None:
            for name in code.co_freevars:
                holder.setdefault(name, function)

    def of(names: tuple[str, ...]) -> list[Callable[[], object]]:
        roots = [root_name(n) for n in names]  # `x[0]`: x's cell
        return list({id(holder[n]): holder[n] for n in roots if n in holder}.values())

    return of
