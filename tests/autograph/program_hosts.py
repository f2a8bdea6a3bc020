"""Where a generated body lives: in `f` itself, in a method, or in a nested function.

`f` is always the module-level entry point the fuzzers call. In the hosted
shapes it hands its arguments to a function defined after it, which the
converter meets through `converted_call` and converts on its own: a method
(`Host.run`) or a function nested in an unconverted factory (`_outer`'s
`run`, made when the module loads). Both are indented defs, whose source the
converter re-indents before parsing it; a multi-line literal in them
(program_literals.py) must come through that unchanged.

    def f(i, x):
        return Host().run(i, x)


    class Host:
        def run(self, i, x):
            <the generated body, at two levels of indentation>
"""

from __future__ import annotations

from tests.autograph.program_expressions import Expressions

__all__ = ["SHAPES", "body_indent", "pick_shape", "program_source"]

SHAPES = ("plain", "method", "nested")


def pick_shape(ex: Expressions, hosted: bool = True) -> str:
    """Mostly `plain` (the shape shrinking goes to); a hosted shape one time in four."""
    if not hosted:
        return "plain"
    return ex.weighted([("plain", 6), ("method", 1), ("nested", 1)])


def body_indent(shape: str) -> int:
    """The indentation level of the generated body's statements."""
    return 1 if shape == "plain" else 2


def program_source(prelude: str, shape: str, params: list[str], body: str) -> str:
    """The module: the prelude, `f`, and the host that holds `body` (already indented)."""
    names = ", ".join(params)
    if shape == "plain":
        return f"{prelude}\n\ndef f({names}):\n{body}\n"
    if shape == "method":
        own = ", ".join(["self", *params])
        return (f"{prelude}\n\ndef f({names}):\n    return Host().run({names})\n\n\n"
                f"class Host:\n    def run({own}):\n{body}\n")
    return (f"{prelude}\n\ndef f({names}):\n    return _run({names})\n\n\n"
            f"def _outer():\n    def run({names}):\n{body}\n    return run\n\n\n_run = _outer()\n")
