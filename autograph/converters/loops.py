"""loops: `while` -> `ag__.while_stmt`, `for` -> `ag__.for_stmt`, over a test and a body function.

    while x > 1:                def loop_body(): nonlocal x; x = x // 2
        x = x // 2      ->      ag__.while_stmt(lambda: x > 1, loop_body, ('x',))

    for i in range(n):          def loop_body(i): nonlocal s; s += i
        s += i          ->      ag__.for_stmt(range(n), loop_body, ('s',), opts={'iterate_names': 'i'})

Loop variables are the names the body binds that are live at the loop head;
the rest stay local to the body function. A for loop that stops on one flag
(its `break`) has a body that returns the flag, so in Python mode `for_stmt`
calls the extra test only once the flag is set.
"""

from __future__ import annotations

import gast

from autograph.analysis.traversal import walk
from autograph.converters.context import Context
from autograph.converters.state import (
    StatePlan,
    call_and_unbind,
    names_tuple,
    operator_call,
    state_functions,
    undefined_inits,
)
from autograph.source.templates import constant, load_name, replace, replace_expr

__all__ = ["convert_while", "convert_for", "target_is_parameter"]



def _opts(node: gast.AST, ctx: Context, iterate_names: str | None, plan: StatePlan) -> gast.Dict:
    """The options dict; `test_setters` ({'n': 'bump'}) names, for the staged loop's error, the nested
    function through which a while's test sets a loop variable; `unread_at_head` and
    `bound_before_read` name loop variables whose value before the loop may go unread
    (see written_liveness and none_before_loop)."""
    test_setters = plan.test_setters
    keys: list[gast.expr] = []
    values: list[gast.expr] = []
    if iterate_names is not None:
        keys.append(constant("iterate_names"))
        values.append(constant(iterate_names))
    if test_setters:
        keys.append(constant("test_setters"))
        values.append(gast.Dict(keys=[constant(n) for n, _ in test_setters],
                                values=[constant(f) for _, f in test_setters]))
    for key, names in (("unread_at_head", plan.unread_at_head), ("bound_before_read", plan.bound_before_read)):
        if names:
            keys.append(constant(key))
            values.append(names_tuple(names))
    for key, value in ctx.loop_options.get(node, {}).items():
        keys.append(constant(key))
        values.append(value)
    return gast.Dict(keys=keys, values=values)


def convert_while(node: gast.While, plan: StatePlan, ctx: Context, helpers: dict[str, str]) -> list[gast.stmt]:
    """The statements replacing a while loop (its else: was moved out by break_statements)."""
    code, state = state_functions(plan, ctx, helpers, node)
    loop_body = helpers["loop_body"]
    loop_test = helpers.get("loop_test")
    # the names the test binds with `:=` (none unless the census found one in the function)
    test_binds = sorted({n.target.id for n in walk(node.test) if type(n) is gast.NamedExpr}) if ctx.walrus else []
    code += replace(
        """
        def loop_body():
            nonlocal names
            global globals_
            body
        """,
        node,
        loop_body=loop_body,
        names=plan.local_names,
        globals_=list(plan.globals),
        body=node.body,
    )
    if test_binds:  # a lambda cannot rebind the names the test binds with `:=`
        code += replace(
            """
            def loop_test():
                nonlocal test_names
                global test_globals
                return test
            """,
            node,
            loop_test=loop_test,
            test_names=[n for n in test_binds if n in plan.names],
            test_globals=[n for n in test_binds if n in plan.globals],
            test=node.test,
        )
        test: gast.expr = load_name(loop_test)
    else:
        test = replace_expr("lambda: test", node, test=node.test)
    code += undefined_inits(plan, node)
    opts = [gast.keyword(arg="opts", value=_opts(node, ctx, None, plan))]
    call = operator_call("while_stmt", [test, load_name(loop_body)], plan, opts + state, node)
    return code + call_and_unbind(plan, call, node) + node.orelse


def _extra_test(flags: list[str], ctx: Context, helpers: dict[str, str], loc: gast.AST) -> tuple[list[gast.stmt], gast.expr]:
    if not flags:
        return [], constant(None)
    test: gast.expr = replace("ag__.not_(flag)", loc, flag=flags[-1])[0].value
    ctx.lazy_operands = ctx.lazy_operands or len(flags) > 1
    for flag in reversed(flags[:-1]):
        test = replace("ag__.and_(ag__.not_(flag), lambda: rest)", loc, flag=flag, rest=test)[0].value
    return [], replace_expr("lambda: test", loc, test=test)


def target_is_parameter(node: gast.For, plan: StatePlan) -> bool:
    """Whether the loop body takes the target as its parameter: a single name that is
    neither carried nor global (a parameter cannot be declared global); any other
    target is assigned from a fresh parameter."""
    target = node.target
    return isinstance(target, gast.Name) and target.id not in plan.names + plan.globals


def _iterate_names(target: gast.expr) -> str:
    """The loop target as the user wrote it, less the parentheses of a tuple: `i`, `a, b`.

    A plain name is its own text, and so are the names of a flat tuple
    (`a, b`; `a,` for one); only other targets pay for printing: a nested
    tuple keeps its inner parentheses (`i, (x, y)`).
    """
    if type(target) is gast.Name:
        return target.id
    if type(target) is gast.Tuple and target.elts:
        names = ", ".join(e.id if type(e) is gast.Name else gast.unparse(e).strip() for e in target.elts)
        return names + "," if len(target.elts) == 1 else names
    return gast.unparse(target).strip()


def convert_for(node: gast.For, plan: StatePlan, ctx: Context, helpers: dict[str, str]) -> list[gast.stmt]:
    """The statements replacing a for loop (see `target_is_parameter`)."""
    code, state = state_functions(plan, ctx, helpers, node)
    loop_body = helpers["loop_body"]
    target = node.target
    if target_is_parameter(node, plan):
        param, unpack = target.id, []
    else:
        param = helpers["itr"]
        unpack = replace("target = itr", node, target=target, itr=param)
    code += replace(
        """
        def loop_body(itr):
            nonlocal names
            global globals_
            unpack
            body
        """,
        node,
        loop_body=loop_body,
        itr=param,
        names=plan.local_names,
        globals_=list(plan.globals),
        unpack=unpack,
        body=node.body,
    )
    flags = ctx.loop_flags.get(node, [])
    if len(flags) == 1 and flags[0] in plan.local_names:
        code[-1].body += replace("return flag", node, flag=flags[0])
    extra_code, extra_test = _extra_test(flags, ctx, helpers, node)
    code += extra_code
    code += undefined_inits(plan, node)
    keywords = [
        gast.keyword(arg="extra_test", value=extra_test),
        # a loop over one name needs no `iterate_names`: the body's parameter is that name
        gast.keyword(arg="opts", value=_opts(node, ctx, None if param == getattr(target, "id", None)
                                             else _iterate_names(target), plan)),
    ]
    call = operator_call("for_stmt", [node.iter, load_name(loop_body)], plan, keywords + state, node)
    return code + call_and_unbind(plan, call, node) + node.orelse
