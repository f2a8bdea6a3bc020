"""liveness: names still read later; loop heads see reads of the next iteration."""

import gast

from autograph.analysis import analyze


def analyses_of(source: str):
    f = gast.parse(source).body[0]
    return f, analyze(f)


def test_live_after_if():
    f, a = analyses_of("def f(x):\n    if x:\n        y = 1\n        t = 2\n    return y\n")
    assert "y" in a.live_after(f.body[0])
    assert "t" not in a.live_after(f.body[0])


def test_live_at_loop_head_includes_next_iteration_and_after():
    f, a = analyses_of(
        "def f(n):\n"
        "    s = 0\n"
        "    i = 0\n"
        "    while i < n:\n"
        "        t = i * 2\n"
        "        s += t\n"
        "        i += 1\n"
        "    return s\n"
    )
    live = a.live_at_head(f.body[2])
    assert {"i", "n", "s"} <= live
    assert "t" not in live


def test_captured_names_are_always_live():
    f = gast.parse("def f():\n    x = 1\n    g = lambda: x\n    for i in r:\n        x = i\n    return g()\n").body[0]
    a = analyze(f)
    assert "x" in a.live_at_head(f.body[2])
    plain = analyze(f, captured=frozenset())
    assert "x" not in plain.live_at_head(f.body[2])


def test_walrus_in_while_test_is_live_after():
    f, a = analyses_of("def f(v):\n    while (x := v.pop()):\n        pass\n    return x\n")
    assert "x" in a.live_at_head(f.body[0])


def test_walrus_in_a_second_operand_does_not_kill():
    f, a = analyses_of(
        "def f(i):\n    n = 0\n    while i < 1 and (n := 1) > 0:\n        i += 1\n        n = 5\n    return n\n"
    )
    head = a.cfg.head_of[f.body[1]]
    assert "n" in a.liveness.before(head)
