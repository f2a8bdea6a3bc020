"""state_cells: every name an if or loop carries is a free variable of a helper its operator gets.

A staged if or loop reads and rebinds the names it carries through the
closure cells of the functions passed to its operator (branches, loop body
and test: runtime.operators.no_state). A helper has a name's cell when it
binds the name (`nonlocal`) or reads it. After hoisting and `bindings`
(which keeps in a helper's `nonlocal` only what it binds), a carried name
can be bound by a nested statement's helper alone, hoisted out:

    def if_body():                      def if_body():
        nonlocal x                          nonlocal x
        x = 1                               x = 1
    def loop_body(i):           ->      def loop_body(i):
        ag__.if_stmt(c, ...)                nonlocal x
    ag__.for_stmt(r, loop_body, ('x',))     ag__.if_stmt(c, ...)

Such a name is declared `nonlocal` in a helper passed (the first one that
calls an operator itself: the branch whose nested statement binds it), so
its closure holds the cell. Every helper a call names is a generated def of the
same converted function, defined where the call can see it; its cells are
those of the scope the statement reads the name from (hoisting only moves a
helper past scopes that do not bind its free names).
"""

from __future__ import annotations

import gast

from autograph.analysis.activity import scope_names
from autograph.analysis.composites import composite_root
from autograph.analysis.traversal import statements
from autograph.converters.operator_calls import called_operator
from autograph.source.templates import replace

__all__ = ["transform"]

# operator -> (positions of the helpers it is passed, position of the names tuple)
_OPERATORS = {"if_stmt": ((1, 2), 3), "while_stmt": ((0, 1), 2), "for_stmt": ((1,), 2)}
_NESTING = frozenset(_OPERATORS) | {"if_chain"}


def _free(fn: gast.FunctionDef, walrus: bool, memo: dict[int, frozenset[str]]) -> frozenset[str]:
    """Names `fn` declares nonlocal or reads without binding them itself, its nested functions'
    included: its closure's names (a read inside a lambda or comprehension that binds the name
    itself counts too: then the operator's search fails loudly, never with another cell).
    Memoised: each node of the function is looked at once."""
    found = memo.get(id(fn))
    if found is not None:
        return found
    reads: set[str] = set()
    stack: list[gast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is gast.Name:
            if type(node.ctx) is gast.Load:
                reads.add(node.id)
        elif kind is gast.FunctionDef or kind is gast.AsyncFunctionDef:
            reads |= _free(node, walrus, memo)
            stack += node.decorator_list + node.args.defaults + [d for d in node.args.kw_defaults if d]
        else:
            stack.extend(gast.iter_child_nodes(node))
    scope = scope_names(fn, walrus)
    found = memo[id(fn)] = frozenset(scope.nonlocals | (reads - scope.local))
    return found


def _declared(fn: gast.FunctionDef) -> frozenset[str]:
    """The names of `fn`'s leading `nonlocal`, where generated helpers declare them."""
    head = fn.body[0] if fn.body else None
    return frozenset(head.names) if type(head) is gast.Nonlocal else frozenset()


def transform(fn: gast.FunctionDef, generated: dict[int, gast.FunctionDef], walrus: bool) -> None:
    """Declare `nonlocal` the carried names no helper of their statement closes over; drop the
    declarations `y: object` of names their scope declares nonlocal or global (the name is
    bound, or not, in the scope it resolves to, and Python refuses an annotated nonlocal)."""
    _drop_declarations(fn)
    defs = {d.name: d for d in generated.values() if type(d) is gast.FunctionDef}
    free_of: dict[int, frozenset[str]] = {}  # helper -> its free names, walked once, only when needed
    declare: list[tuple[gast.FunctionDef, list[str]]] = []  # added once every statement is looked at
    for stmt in statements(fn.body):
        if type(stmt) is not gast.Expr or type(stmt.value) is not gast.Call:
            continue  # operator calls are expression statements
        node = stmt.value
        operator = called_operator(node)
        if operator == "if_chain":
            names, passed = _chain_arms(node)
        else:
            found = _OPERATORS.get(operator)
            if found is None or any(k.arg == "get_state" for k in node.keywords):
                continue
            positions, names_at = found
            if len(node.args) <= names_at:
                continue  # it carries nothing
            names = list(dict.fromkeys(composite_root(e.value) for e in node.args[names_at].elts))  # `x[0]`: x's cell
            passed = [node.args[i] for i in positions]
        passed += [k.value for k in node.keywords if k.arg == "extra_test"]
        helpers = [defs[p.id] for p in passed if type(p) is gast.Name and p.id in defs]
        if not helpers:
            continue
        free: set[str] = set()
        for helper in helpers:
            free |= _declared(helper)
        for passed_lambda in passed:
            if type(passed_lambda) is gast.Lambda:  # a loop's test or extra test: what it reads
                free |= {n.id for n in gast.walk(passed_lambda.body) if type(n) is gast.Name}
        if all(n in free for n in names):
            continue
        for helper in helpers:
            free |= _free(helper, walrus, free_of)
        missing = [n for n in names if n not in free]
        if missing:
            nesting = [h for h in helpers if any(called_operator(n) in _NESTING for n in gast.walk(h))]
            declare.append(((nesting or helpers)[0], missing))
    for helper, missing in declare:
        _declare(helper, missing)


def _chain_arms(call: gast.Call) -> tuple[list[str], list[gast.expr]]:
    """What an `if_chain` carries through cells (arms without their own state functions) and the
    functions it is passed (tests, bodies, the last else): one scope defines them all, and the
    operator reads a name's cell off whichever of them has it (runtime.operators.if_chain)."""
    args = call.args
    with_state = set()
    for keyword in call.keywords:
        if keyword.arg == "options" and type(keyword.value) is gast.Dict:
            for key, value in zip(keyword.value.keys, keyword.value.values):
                if type(value) is gast.Dict and any(type(k) is gast.Constant and k.value == "get_state" for k in value.keys):
                    with_state.add(key.value)
    names: dict[str, None] = {}
    for arm, at in enumerate(range(2, len(args) - 1, 3)):
        if arm not in with_state and type(args[at]) is gast.Tuple:
            names.update((composite_root(e.value), None) for e in args[at].elts)
    passed = [arg for i, arg in enumerate(args) if i % 3 != 2]  # the names tuples are every third
    return list(names), passed


def _declare(helper: gast.FunctionDef, names: list[str]) -> None:
    body = helper.body
    if body and type(body[0]) is gast.Nonlocal:
        body[0].names = sorted(set(body[0].names) | set(names))
        return
    helper.body = replace("nonlocal names", helper, names=sorted(names)) + body


_BLOCKS = ("body", "orelse", "finalbody")


def _drop_declarations(fn: gast.FunctionDef) -> None:
    declared: set[str] = set()
    found: list[tuple[list[gast.stmt], gast.stmt]] = []
    nested: list[gast.FunctionDef] = []

    def visit(block: list[gast.stmt]) -> None:
        for stmt in block:
            kind = type(stmt)
            if kind is gast.Nonlocal or kind is gast.Global:
                declared.update(stmt.names)
            elif kind is gast.AnnAssign and getattr(stmt, "autograph_declaration", False):
                found.append((block, stmt))
            elif kind in (gast.FunctionDef, gast.AsyncFunctionDef):
                nested.append(stmt)
                continue
            elif kind is gast.ClassDef:
                continue
            for field in _BLOCKS:
                inner = getattr(stmt, field, None)
                if isinstance(inner, list):
                    visit(inner)
            for handler in getattr(stmt, "handlers", None) or ():
                visit(handler.body)
            for case in getattr(stmt, "cases", None) or ():
                visit(case.body)

    visit(fn.body)
    for block, stmt in found:
        if stmt.target.id in declared:
            block.remove(stmt)
            if not block:
                block.append(gast.Pass())
    for inner in nested:
        _drop_declarations(inner)
