"""activity: reads and writes per statement, nested scopes, captured names."""

import gast

from autograph.analysis.activity import (
    Activity,
    bound_names,
    expression_effects,
    free_names,
    scope_names,
)


def fn(source: str) -> gast.FunctionDef:
    return gast.parse(source).body[0]


def test_statement_effects():
    f = fn("def f(a):\n    b = a + c\n    b += 1\n    del a\n")
    activity = Activity.of_function(f)
    assert activity.effects(f.body[0]).reads == {"a", "c"}
    assert activity.effects(f.body[0]).writes == {"b"}
    assert activity.effects(f.body[1]).reads == {"b"}
    assert activity.effects(f.body[2]).writes == {"a"}
    assert activity.params == {"a"}


def test_nested_scopes_read_free_names_bind_only_their_name():
    f = fn(
        "def f(x):\n"
        "    def g(y):\n"
        "        z = y + x\n"
        "        def h():\n"
        "            return z + w\n"
        "        return h\n"
        "    k = lambda q: q + x + v\n"
        "    s = [i * t for i in x]\n"
    )
    activity = Activity.of_function(f)
    assert activity.effects(f.body[0]).writes == {"g"}
    assert activity.effects(f.body[0]).reads == {"x", "w"}
    assert activity.effects(f.body[1]).reads == {"x", "v"}
    assert activity.effects(f.body[2]).reads == {"x", "t"}
    assert activity.captured == {"x", "w", "v"}


def test_free_names_are_exact_for_shadowing():
    g = fn("def g():\n    t = 1\n    def h():\n        t = 2\n        return t\n    return u\n")
    assert free_names(g) == {"u"}
    outer = fn("def o():\n    def i():\n        t = 2\n    return t\n")
    assert free_names(outer) == {"t"}


def test_global_and_nonlocal_declarations():
    f = fn("def f():\n    global g\n    nonlocal n\n    g = 1\n    n = 2\n    m = 3\n")
    activity = Activity.of_function(f)
    assert activity.globals == {"g"}
    assert activity.nonlocals == {"n"}
    assert activity.local_names() == {"m"}


def test_walrus_in_comprehension_binds_outside():
    (stmt,) = gast.parse("[y := i for i in xs]").body
    effects = expression_effects(stmt)
    assert effects.writes == {"y"}
    assert effects.reads == {"xs"}


def test_bound_names_match_effects_without_entering_nested_scopes():
    f = fn(
        "def f(a):\n"
        "    b = 1\n"
        "    def g():\n"
        "        c = a\n"
        "        return c\n"
        "    h = lambda: (d := 2)\n"
        "    ys = [(e := y) for y in a]\n"
        "    for i in a:\n"
        "        if (j := i):\n"
        "            del b\n"
    )

    assert bound_names(f.body) == {"b", "g", "h", "ys", "e", "i", "j"}
    for stmt in f.body:
        assert bound_names([stmt]) == expression_effects(stmt).writes


def test_scope_names_agree_with_activity_and_list_direct_functions():
    f = fn(
        "def f(a, *rest):\n"
        "    global G\n"
        "    nonlocal n\n"
        "    G = n = b = 1\n"
        "    def g():\n"
        "        def inner():\n"
        "            pass\n"
        "    class C:\n"
        "        def method(self):\n"
        "            pass\n"
        "    if a:\n"
        "        def h():\n"
        "            pass\n"
    )
    scope = scope_names(f)
    activity = Activity.of_function(f)
    assert scope.local == activity.local_names() == {"a", "rest", "b", "g", "C", "h"}
    assert scope.nonlocals == activity.nonlocals == {"n"}
    assert [d.name for d in scope.functions] == ["g", "h"]


def test_compound_effects_put_together_from_parts_equal_one_walk():
    f = fn(
        "def f(a, xs):\n"
        "    if a:\n"
        "        b = a and (c := 1)\n"
        "        c = 2\n"
        "    for x in xs:\n"
        "        c = 1\n"
        "        y = a or (c := x)\n"
        "    try:\n"
        "        z = 1\n"
        "    except E as e:\n"
        "        w = e and (v := 2)\n"
        "    with g() as h:\n"
        "        del h\n"
    )
    for order in (f.body, list(reversed(f.body))):
        activity = Activity.of_function(f)
        for stmt in order:
            assert activity.effects(stmt) == expression_effects(stmt)
    activity = Activity.of_function(f)
    assert activity.effects(f.body[0]).maybe_writes == {"c"}  # bound only conditionally first
    assert activity.effects(f.body[1]).maybe_writes == frozenset()  # bound before the conditional
    assert activity.effects(f.body[2]).maybe_writes == {"v"}


def test_generator_expression_captures_its_free_names():
    """A generator expression runs step by step, when its consumer asks: it reads like a closure."""
    f = fn("def f(xs, k):\n    s = [v * t for v in xs]\n    for k in (v * k for v in xs):\n        pass\n")
    assert Activity.of_function(f).captured == {"xs", "k"}


def test_captured_names_are_the_collectors_captured():
    from autograph.analysis.effects import NameCollector, captured_names

    fn = gast.parse(
        "def f(a):\n"
        "    @deco(b)\n"
        "    def g(x=c):\n"
        "        return x + d\n"
        "    class K(Base, metaclass=m):\n"
        "        y = e\n"
        "    h = lambda z=w: z + v if t else (lambda: u)\n"
        "    s = sum(p * q for p in r)\n"
        "    return [k + n for k in a]\n"
    ).body[0]
    collector = NameCollector()
    for stmt in fn.body:
        collector.visit(stmt)
    assert captured_names(fn.body) == frozenset(collector.captured)
    assert {"d", "e", "v", "u", "q", "r"} <= captured_names(fn.body)
