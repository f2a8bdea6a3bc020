"""cfg: nodes per simple statement, headers for compound ones, joins after them."""

import gast

from autograph.analysis.activity import Activity
from autograph.analysis.cfg import build_cfg


def cfg_of(source: str):
    f = gast.parse(source).body[0]
    return f, build_cfg(f, Activity.of_function(f))


def test_if_has_a_test_and_a_join():
    f, cfg = cfg_of("def f(x):\n    if x:\n        y = 1\n    else:\n        y = 2\n    return y\n")
    if_node = f.body[0]
    test = cfg.entry_of[if_node]
    assert test.kind == "test"
    assert [n.ast for n in test.next] == [if_node.body[0], if_node.orelse[0]]
    join = cfg.join_of[if_node]
    assert {p.ast for p in join.prev} == {if_node.body[0], if_node.orelse[0]}
    assert join.next[0].ast is f.body[1]


def test_while_loop_back_edge_break_and_continue():
    source = (
        "def f(n):\n"
        "    while n:\n"
        "        if n == 3:\n"
        "            break\n"
        "        if n == 5:\n"
        "            continue\n"
        "        n -= 1\n"
        "    return n\n"
    )
    f, cfg = cfg_of(source)
    loop = f.body[0]
    head = cfg.head_of[loop]
    assert cfg.entry_of[loop] is not head  # entering the loop is distinct from looping back
    brk = cfg.entry_of[loop.body[0].body[0]]
    cont = cfg.entry_of[loop.body[1].body[0]]
    assert cfg.join_of[loop] in brk.next
    assert head in cont.next
    assert head in cfg.entry_of[loop.body[2]].next


def test_for_head_then_target():
    f, cfg = cfg_of("def f(xs):\n    for x in xs:\n        pass\n")
    loop = f.body[0]
    head = cfg.head_of[loop]
    assert head.kind == "head"
    assert [n.kind for n in head.next] == ["target", "join"]
    assert head.next[0].effects.writes == {"x"}


def test_loop_reads_extra_flags_at_head():
    f = gast.parse("def f(xs):\n    for x in xs:\n        pass\n").body[0]
    cfg = build_cfg(f, Activity.of_function(f), {f.body[0]: ["break_"]})
    assert cfg.head_of[f.body[0]].effects.reads == {"break_"}


def test_return_goes_to_exit_and_try_handlers_reach_from_body():
    f, cfg = cfg_of(
        "def f(x):\n    try:\n        y = g(x)\n    except E:\n        y = 0\n    return y\n"
    )
    ret = cfg.entry_of[f.body[1]]
    assert ret.next == [cfg.exit]
    handler = f.body[0].handlers[0]
    body_stmt = cfg.entry_of[f.body[0].body[0]]
    catch = [n for n in cfg.nodes if n.ast is handler][0]
    assert body_stmt in catch.prev


def test_with_body_may_end_early_when_exit_swallows_the_exception():
    """`__exit__` returning True resumes after the with from wherever its body raised."""
    f, cfg = cfg_of(
        "def f(n):\n    with s:\n        y = g(n)\n        return y\n    return 0\n"
    )
    with_ = f.body[0]
    join = cfg.join_of[with_]
    assert {p.ast for p in join.prev} == {with_, with_.body[0], with_.body[1]}
    assert join.next[0].ast is f.body[1]


def test_every_binding_of_the_functions_own_code_is_in_some_node():
    """analyze takes the function's local names from the CFG nodes instead of walking the body again."""
    fn = gast.parse(
        "def f(a, *b, c=1, **d):\n"
        "    import os.path as p, sys\n"
        "    global g\n"
        "    x = y = 1\n"
        "    for i, (j, k) in z:\n"
        "        with open(i) as h, w:\n"
        "            try:\n"
        "                del x\n"
        "            except E as e:\n"
        "                q += [m for m in (n := e)]\n"
        "            finally:\n"
        "                g = lambda r: r\n"
        "    while (t := 0):\n"
        "        class C:\n"
        "            u = 1\n"
        "        def inner(v):\n"
        "            s = v\n"
        "    match a:\n"
        "        case [o, *rest] if (pp := o):\n"
        "            pass\n"
    ).body[0]
    activity = Activity.of_function(fn)
    cfg = build_cfg(fn, activity)
    bound = set(activity.params).union(*[node.effects.writes for node in cfg.nodes])
    assert frozenset(bound) - activity.globals - activity.nonlocals == activity.local_names()
    assert activity.local_names() >= {"p", "sys", "x", "y", "i", "j", "k", "h", "e", "q", "n", "t", "C", "inner", "o", "rest", "pp"}
