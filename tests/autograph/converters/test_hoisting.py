"""hoisting: helpers move out of loop bodies only when their free names allow it."""

from autograph.converters import control_flow, hoisting
from tests.autograph.converters.conversion import transformed
from tests.autograph.equivalence import normalize


def test_helper_closing_over_loop_vars_moves_up():
    out = normalize(
        transformed(
            "def f(n):\n    s = 0\n    i = 0\n    while i < n:\n        if i % 2:\n            s += i\n        i += 1\n    return s\n",
            control_flow,
            hoisting,
        )
    )
    lines = out.splitlines()
    assert lines.index("    def if_body():") < lines.index("    def loop_body():")


def test_helper_reading_a_body_local_stays():
    out = normalize(
        transformed(
            "def f(xs):\n    s = 0\n    for x in xs:\n        if x:\n            s += x\n    return s\n",
            control_flow,
            hoisting,
        )
    )
    lines = out.splitlines()
    assert lines.index("    def loop_body(x):") < lines.index("        def if_body():")

