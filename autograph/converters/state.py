"""State: the names a staged if or loop carries, and the code that reads and rebinds them.

The operator call names the carried names, `ag__.if_stmt(c, if_body, else_body, ('x', 'y'), nouts=2)`;
a staged path reads and rebinds plain names through the closure cells of the
helpers passed (runtime.operators.no_state, and `state_cells`, which makes
sure one of them closes over each). A statement that also carries composites
(`self.total`, `x[0]`) passes its own pair, as keywords:

    def get_state():                  def set_state(vars_):
        return (x, self.total)            nonlocal x
                                          (x, self.total) = vars_

A plan is computed for every if/while/for from the analyses *before* any of
them is rewritten (rewriting moves code into nested functions, which the
analyses would no longer see as the same scope).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import gast

from autograph.analysis import Analyses
from autograph.analysis.composites import composite_root
from autograph.analysis.traversal import statements
from autograph.converters.catching import within_keyword
from autograph.converters.context import Context
from autograph.source.templates import constant, load_name, replace, replace_expr, set_ctx, tuple_of

__all__ = [
    "StatePlan",
    "plan_if",
    "plan_loop",
    "state_functions",
    "needs_state_functions",
    "operator_call",
    "undefined_inits",
    "declaration",
    "unbind_undefined",
    "call_and_unbind",
    "names_tuple",
]


@dataclass(frozen=True)
class StatePlan:
    """What one statement carries: `names` (outputs first), which may be unbound, which globals it sets.

    `unbound`: names no binding reaches before the statement (initialised with
    Undefined); `still_unbound`: those of them that may stay unbound after it
    (unbound again when they do, so a later read fails as in Python);
    `private`: names an if's branch functions must keep local (read first in
    a branch while unbound before the if, so that the read fails as in Python);
    `deleted`: carried names a `del` inside the statement may unbind, or that
    are unbound on some paths to it (not all: those are `unbound`); get_state
    reads them as Undefined then, for the staged path to report or drop;
    `guarded`: an enclosing try or with may catch an exception out of the
    statement, so the code after it can run with the placeholders still bound;
    `within`: the innermost such try/with, as its keyword and user line: its
    handlers would only see tracing, so the operator refuses to stage there.
    `test_setters`: carried names a while's test makes a nested function set
    through `nonlocal`, with that function; staged, that is refused, and the
    error names the function.
    """

    names: tuple[str, ...]
    nouts: int
    unbound: tuple[str, ...]
    globals: tuple[str, ...]
    still_unbound: tuple[str, ...] = ()
    private: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    guarded: bool = False
    within: tuple[str, int] | None = None
    test_setters: tuple[tuple[str, str], ...] = ()
    # names whose value nothing reads after the true / false branch of an if, or from a loop's head
    # (of the function as written, see written_liveness), and carried names a loop's body binds
    # before reading them (see loops.bound_before_read)
    unread: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    unread_at_head: tuple[str, ...] = ()
    bound_before_read: tuple[str, ...] = ()
    # a name it may leave unbound is read through `ag__.is_undefined` checks (unbound_reads): it
    # holds the placeholder, with get_state/set_state of its own and the unbinding after
    placeholders: bool = False
    # a composite whose root is not a local of the function (a global, a closure value): only a
    # get_state/set_state pair of its own reaches it; a local root's cell is what the operator reads
    foreign_roots: bool = False

    @property
    def local_names(self) -> list[str]:
        """The carried plain names (what `nonlocal` lists); the rest are composites like `self.x`."""
        return [name for name in self.names if name.isidentifier()]


def _first_live(analyses: Analyses, block: list[gast.stmt]) -> frozenset[str]:
    if not block or block[0] not in analyses.cfg.entry_of:
        return frozenset()  # empty, or only the `pass` left where dead flags were dropped
    return analyses.live_before(block[0])


def plan_if(
    node: gast.If, analyses: Analyses, branches: tuple[frozenset[str], frozenset[str]] | None = None, dels: bool = True
) -> StatePlan:
    """`branches`: the names each branch binds, when the caller has them; `dels`: False when the
    function holds no `del` (see `_still`)."""
    activity = analyses.activity
    if branches is None:
        branches = (activity.modified(node.body), activity.modified(node.orelse))
    modified = branches[0] | branches[1] | analyses.closure_writes(node.body + node.orelse)
    local = modified - activity.globals
    outs = sorted(local & analyses.live_after(node))
    read_first = _first_live(analyses, node.body) | _first_live(analyses, node.orelse)
    extra = sorted((local & read_first) - set(outs))
    # an extra name unbound before the if stays local to its branch: reading it there fails as in Python
    unbound_extra = set(_unbound(node, tuple(extra), analyses))
    # attributes and constant subscripts outlive the function: always outputs
    composites = analyses.composites.modified(node.body + node.orelse, modified)
    outs += composites
    names = tuple(outs + [n for n in extra if n not in unbound_extra])
    unbound = _unbound(node, names, analyses)
    globals_ = tuple(sorted(modified & activity.globals))
    still, deleted = _still(node, names, unbound, analyses, dels)
    plan = StatePlan(names, len(outs), unbound, globals_, still, tuple(sorted(unbound_extra)), deleted,
                     foreign_roots=_foreign_roots(composites, analyses))
    return _closures_see_unbound(plan, analyses)


def plan_loop(node: gast.While | gast.For, analyses: Analyses, dels: bool = True) -> StatePlan:
    activity = analyses.activity
    modified = activity.modified(node.body) | analyses.closure_writes(node.body)
    if isinstance(node, gast.For):
        modified |= activity.effects(node.target).writes
    else:  # a while's test runs at every iteration: what it binds, or makes a nested function set
        modified |= activity.effects(node.test).writes | analyses.closure_writes([node.test])
    local = modified - activity.globals
    composites = analyses.composites.modified(node.body, modified)
    names = tuple(sorted(local & analyses.live_at_head(node))) + composites
    unbound = _unbound(node, names, analyses)
    still, deleted = _still(node, names, unbound, analyses, dels)
    setters = analyses.closure_setters(node.test) if isinstance(node, gast.While) else {}
    test_setters = tuple((n, setters[n]) for n in names if n in setters)
    globals_ = tuple(sorted(modified & activity.globals))
    plan = StatePlan(names, len(names), unbound, globals_, still, (), deleted, test_setters=test_setters,
                     foreign_roots=_foreign_roots(composites, analyses))
    return _closures_see_unbound(plan, analyses)


def _foreign_roots(composites: tuple[str, ...], analyses: Analyses) -> bool:
    """Whether a composite stands on a name the function does not bind itself (see StatePlan)."""
    return bool(composites) and not set(map(composite_root, composites)) <= analyses.activity.local_names()


def _closures_see_unbound(plan: StatePlan, analyses: Analyses) -> StatePlan:
    """A carried name a nested function reads is left unbound rather than given the placeholder.

    The user's function `get` reading `last` before the code after a return
    binds it raises NameError in Python; with `last = ag__.Undefined('last')`
    it would return the placeholder. Such a name is read like one a `del` may
    unbind (`ag__.value_or_undefined` in get_state, `holds_undefined` after).
    A read in the statement's own code then fails with Python's NameError for a
    free variable, where the original raises its subclass UnboundLocalError.
    """
    # most plans initialise nothing: the nested scopes' reads (a walk of the whole function) only when one does
    if not plan.unbound or not (set(plan.unbound) & analyses.activity.captured):
        return plan
    read = analyses.closure_reads()
    closed = tuple(n for n in plan.unbound if n in read)
    if not closed:
        return plan
    return dataclasses.replace(
        plan,
        unbound=tuple(n for n in plan.unbound if n not in closed),
        deleted=tuple(n for n in plan.names if n in closed or n in plan.deleted),
    )


def _still(
    node: gast.stmt, names: tuple[str, ...], unbound: tuple[str, ...], analyses: Analyses, dels: bool = True
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Initialised names that may be unbound after `node`, and the carried names that may be
    unbound when its get_state runs (a `del` inside it, or a path to it that binds none).

    The statements inside `node` are searched for a `del` only when the function holds one
    (`dels`): every statement that carries names would walk its nested blocks again.
    """
    deleted = {
        t.id
        for n in statements([node])
        if isinstance(n, gast.Delete)
        for t in n.targets
        if isinstance(t, gast.Name)
    } if names and dels else ()
    entry = analyses.cfg.entry_of[node]
    deleted_names = tuple(
        n for n in names
        if n in deleted or (n.isidentifier() and n not in unbound
                            and analyses.definitions.may_be_unbound(entry, n))
    )
    if not unbound:
        return (), deleted_names
    after = analyses.cfg.join_of[node]
    still = tuple(n for n in unbound if analyses.definitions.may_be_unbound(after, n))
    return still, deleted_names


def _unbound(node: gast.stmt, names: tuple[str, ...], analyses: Analyses) -> tuple[str, ...]:
    """Carried names no binding reaches before the statement; a name an if's own test binds (`:=`) is bound.

    An if's test runs in the function itself, before the operator. A while's
    test runs in a helper: the name it binds gets its placeholder here, next to
    the loop, rather than at the top of the function (`bindings`), where it
    would outlive a path that never reaches the loop.
    """
    if not names:
        return ()
    test = node.test if type(node) is gast.If else None
    bound_by_test = analyses.activity.effects(test).writes if test is not None else frozenset()
    entry = analyses.cfg.entry_of.get(node)  # what `analyses.unbound` looks up for every name
    if entry is None:
        return tuple(n for n in names if n.isidentifier() and n not in bound_by_test and analyses.unbound(node, n))
    unbound = analyses.definitions.unbound
    return tuple(n for n in names if n.isidentifier() and n not in bound_by_test and unbound(entry, n))



def names_tuple(names: tuple[str, ...]) -> gast.Tuple:
    return tuple_of([constant(n) for n in names])


def operator_call(
    operator: str, args: list[gast.expr], plan: StatePlan, keywords: list[gast.keyword], loc: gast.AST
) -> list[gast.stmt]:
    """`ag__.<operator>(*args, names, **keywords)` as a statement; the names tuple only when the
    statement carries any, keywords whose value is None or an empty dict left out."""
    call = replace_expr(f"ag__.{operator}()", loc)
    call.args = list(args) + ([names_tuple(plan.names)] if plan.names else [])
    call.keywords = [
        k for k in keywords
        if not (type(k.value) is gast.Constant and k.value.value is None)
        and not (type(k.value) is gast.Dict and not k.value.keys)
    ]
    return [gast.copy_location(gast.Expr(value=call), loc)]


def needs_state_functions(plan: StatePlan) -> bool:
    """Whether the statement carries a composite (`self.x`) on a name that is not the function's
    own (no closure cell of the helpers holds it), or placeholders (`StatePlan.placeholders`).

    A composite on a local (`simplex[2]`, `self.total` in a method) is read and written by the
    operator through the cell of its root (runtime.operators.no_state), as a plain name is."""
    return plan.placeholders or plan.foreign_roots


def state_functions(
    plan: StatePlan, ctx: Context, helpers: dict[str, str], loc: gast.AST
) -> tuple[list[gast.stmt], list[gast.keyword]]:
    """The get_state/set_state definitions and the keywords passing them, for a statement that
    carries a composite; none otherwise (the operator reads the helpers' cells)."""
    if not needs_state_functions(plan):
        return [], []
    get_state = helpers["get_state"]
    set_state = helpers["set_state"]
    vars_ = _vars_name(ctx)
    values = tuple_of([_current_value(n, loc, n in plan.deleted) for n in plan.names])
    targets = tuple_of([_target(n, loc) for n in plan.names], _STORE)
    code = replace(
        """
        def get_state():
            return values
        def set_state(vars_):
            nonlocal names
            targets = vars_
        """,
        loc,
        get_state=get_state,
        set_state=set_state,
        vars_=vars_,
        values=values,
        names=plan.local_names,
        targets=targets,
    )
    get_ref, set_ref = load_name(get_state), load_name(set_state)
    _note_state_functions(plan, ctx, code, get_ref, set_ref)
    return code, [gast.keyword(arg="get_state", value=get_ref), gast.keyword(arg="set_state", value=set_ref)]


def _note_state_functions(
    plan: StatePlan, ctx: Context, code: list[gast.stmt], get_ref: gast.Name, set_ref: gast.Name
) -> None:
    """What makes the two functions themselves, for hoisting to merge alike ones (with the names
    of them the operator call passes, which it renames then), and their free names.

    A get_state is told by the names it reads and which of them it reads as
    Undefined when unbound (`value_or_undefined`: composites, and names in
    `deleted`); a set_state by its names alone (its parameter is the same
    in every statement of the function). Keyed when made, rather than read
    back off the trees, so no other def of the same shape (an operand's
    `def if_true(): return (a, b)`) is taken for one. Of plain names,
    a get_state's free names are the names it returns, a set_state's those
    it declares nonlocal.
    """
    get_def, set_def = code
    names = plan.names
    read_as_undefined = frozenset(n for n in plan.deleted if n.isidentifier())
    ctx.state_keys[id(get_def)] = (("get", names, read_as_undefined), [get_ref])
    ctx.state_keys[id(set_def)] = (("set", names), [set_ref])
    if all(n.isidentifier() for n in names):
        free = frozenset(names)
        ctx.free_names[set_def] = free
        if not read_as_undefined:
            ctx.free_names[get_def] = free


def _current_value(name: str, loc: gast.AST, deleted: bool = False) -> gast.expr:
    """A plain name as is; a composite may not exist yet (set only inside the statement), nor a
    name a `del` inside it unbinds."""
    if name.isidentifier() and not deleted:
        return load_name(name)
    text = constant(name)
    return replace_expr(f"ag__.value_or_undefined(lambda: {name}, text)", loc, text=text)


# the context of set_state's targets, shared as the templates share theirs
_STORE = gast.Store()


def _target(name: str, loc: gast.AST) -> gast.expr:
    if name.isidentifier():
        return load_name(name, _STORE)
    target = replace_expr(name, loc)
    set_ctx(target, _STORE)
    return target


def _vars_name(ctx: Context) -> str:
    if ctx.vars_name is None:
        ctx.vars_name = ctx.namespace.new("vars_")
    return ctx.vars_name


def declaration(name: str, loc: gast.AST) -> gast.stmt:
    """`y: object`: makes `y` a local of the function without binding it, so the helpers'
    `nonlocal y` find it and a read before any binding raises as it does in Python.
    (The annotation of a local is never evaluated.)"""
    node = gast.AnnAssign(
        target=gast.Name(id=name, ctx=gast.Store(), annotation=None, type_comment=None),
        annotation=gast.Name(id="object", ctx=gast.Load(), annotation=None, type_comment=None),
        value=None,
        simple=1,
    )
    node.autograph_declaration = True  # dropped where the scope declares the name nonlocal (state_cells)
    return gast.copy_location(node, loc)


def undefined_inits(plan: StatePlan, loc: gast.AST) -> list[gast.stmt]:
    """For each carried name that may be unbound before the statement: `y: object` when the
    operator reads the state from cells (an unbound one reads as Undefined, and Undefined
    written back unbinds it), else `y = ag__.Undefined('y')`."""
    if not needs_state_functions(plan):
        return [declaration(name, loc) for name in plan.unbound]
    out: list[gast.stmt] = []
    for name in plan.unbound:
        out += replace("name = ag__.Undefined(text)", loc, name=name, text=constant(name))
    return out


def unbind_undefined(plan: StatePlan, loc: gast.AST, names: tuple[str, ...] | None = None) -> list[gast.stmt]:
    """After the statement: a name it left unbound is unbound again, so reading it raises as in Python.

    `names` defaults to those the statement may leave unbound when it ends
    normally. A name a `del` inside the statement may have unbound already
    cannot be read to check: `ag__.holds_undefined(lambda: y)` reads it
    through a closure instead.
    """
    out: list[gast.stmt] = []
    for name in plan.still_unbound if names is None else names:
        if name in plan.deleted:
            out += replace("if ag__.holds_undefined(lambda: name):\n    del name", loc, name=name)
        else:
            out += replace("if ag__.is_undefined(name):\n    del name", loc, name=name)
    return out


def call_and_unbind(plan: StatePlan, call: list[gast.stmt], loc: gast.AST) -> list[gast.stmt]:
    """The operator call, then `unbind_undefined`; when guarded, on the exceptional path too.

    A guarded call also names its try/with (`within=('try', 12)`, see StatePlan).

    An exception out of the call leaves every initialised name the statement
    did not bind holding its placeholder; a handler that swallows it must not
    let the code after the try read `Undefined('k')` where Python raises. The
    try costs nothing while no exception is raised:

        k = ag__.Undefined('k')         j = ag__.Undefined('j')
        try:                            try:
            ag__.for_stmt(...)              ag__.if_stmt(...)     # binds j when it ends normally
        finally:                        except BaseException:
            if ag__.is_undefined(k):        if ag__.is_undefined(j):
                del k                           del j
                                            raise
    """
    call = _pass_within(plan, call)
    if not needs_state_functions(plan):
        return call  # the names it carries never hold a placeholder (runtime.operators.no_state)
    if not (plan.guarded and plan.unbound):
        return call + unbind_undefined(plan, loc)
    cleanup = unbind_undefined(plan, loc, plan.unbound)
    if set(plan.still_unbound) == set(plan.unbound):
        return replace("try:\n    call\nfinally:\n    cleanup", loc, call=call, cleanup=cleanup)
    guarded = replace("try:\n    call\nexcept BaseException:\n    cleanup\n    raise", loc, call=call, cleanup=cleanup)
    return guarded + unbind_undefined(plan, loc)


def _pass_within(plan: StatePlan, call: list[gast.stmt]) -> list[gast.stmt]:
    """`within=('try', 12)` on the operator call of a statement inside a try or with (see StatePlan)."""
    if plan.within is not None:
        call[0].value.keywords.append(within_keyword(plan.within))
    return call
