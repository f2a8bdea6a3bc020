"""guards: jump detection, lowering with guards, dead flag removal."""

import gast

from autograph.analysis import analyze
from autograph.converters.guards import JumpLowering, contains_jump, drop_dead_flags
from autograph.source.templates import replace


def parse(source: str) -> gast.FunctionDef:
    return gast.parse(source).body[0]


def test_contains_jump_respects_loops_and_functions():
    fn = parse("def f():\n    for x in y:\n        break\n    def g():\n        return 1\n")
    loop, inner = fn.body
    assert contains_jump(loop.body[0], gast.Break, into_loops=False)
    wrapper = gast.If(test=gast.Constant(value=True, kind=None), body=[loop], orelse=[])
    assert not contains_jump(wrapper, gast.Break, into_loops=False)
    assert contains_jump(wrapper, gast.Break, into_loops=True)
    assert not contains_jump(inner, gast.Return, into_loops=True)  # a nested def's returns are its own


def test_lowering_guards_the_rest():
    fn = parse("def f():\n    if a:\n        return 1\n    b()\n")
    lowering = JumpLowering(gast.Return, "done", lambda stmt: replace("done = True"))
    body = lowering.block(fn.body)
    assert lowering.guards == 1
    text = "\n".join(gast.unparse(s).strip() for s in body)
    assert text == "if a:\n    done = True\nif not done:\n    b()"


def test_dead_flags_dropped():
    fn = parse("def f(xs):\n    for x in xs:\n        continue_ = False\n        g(x)\n        continue_ = True\n")
    stores = [fn.body[0].body[0], fn.body[0].body[2]]
    drop_dead_flags(fn, stores, analyze(fn))
    assert [type(s).__name__ for s in fn.body[0].body] == ["Expr"]


def test_dead_flags_in_match_cases_dropped():
    fn = parse(
        "def f(v):\n    match v:\n        case 0:\n            r = 1\n            done = True\n"
        "        case _:\n            done = True\n    return r\n"
    )
    cases = fn.body[0].cases
    drop_dead_flags(fn, [cases[0].body[1], cases[1].body[0]], analyze(fn))
    assert [type(s).__name__ for s in cases[0].body] == ["Assign"]
    assert [type(s).__name__ for s in cases[1].body] == ["Pass"]
