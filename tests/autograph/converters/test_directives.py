"""directives: ag.set_loop_options is read into the loop's options and removed."""

import gast
import pytest

from autograph.converters import directives
from autograph.converters.context import Context
from autograph.source.naming import Namespace
from runtime.ir.errors import ConversionError


def run(source: str):
    fn = gast.parse(source).body[0]
    ctx = Context("t.py", 1, "f", Namespace(set()))
    directives.transform(fn, ctx)
    return fn, ctx


def test_options_recorded_and_call_removed():
    fn, ctx = run(
        "def f(x):\n    while x:\n        ag.set_loop_options(maximum_iterations=5, shape_invariants=[(x, [None])])\n        x -= 1\n"
    )
    loop = fn.body[0]
    assert set(ctx.loop_options[loop]) == {"maximum_iterations", "shape_invariants"}
    assert len(loop.body) == 1


def test_only_body_leaves_pass():
    fn, ctx = run("def f(x):\n    for i in x:\n        set_loop_options(maximum_iterations=5)\n")
    assert isinstance(fn.body[0].body[0], gast.Pass)


def test_unknown_option_is_an_error():
    with pytest.raises(ConversionError, match="unknown loop option 'parallel'"):
        run("def f(x):\n    while x:\n        ag.set_loop_options(parallel=2)\n")
