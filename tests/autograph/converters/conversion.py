"""Running chosen converters over a function's source text, for before/after tests."""

from __future__ import annotations

import builtins
import textwrap

import gast

from autograph.analysis import analyze
from autograph.converters import control_flow
from autograph.converters.context import Context, Options
from autograph.pipeline import generate
from autograph.source.naming import Namespace
from tests.autograph.equivalence import normalize

__all__ = ["transformed", "assert_converts"]


def transformed(source: str, *converters, recursive: bool = True, modules: dict | None = None) -> str:
    """The function in `source` after `converters` (modules with `transform`), as text."""
    fn = gast.parse(textwrap.dedent(source)).body[0]
    modules = modules or {"np": "numpy", "ag": "autograph"}
    ctx = Context(
        filename="t.py",
        first_line=1,
        function_name=getattr(fn, "name", "<lambda>"),
        namespace=Namespace.for_tree(fn),
        options=Options(recursive=recursive),
        module_of=modules.get,
        value_of=lambda name: getattr(builtins, name, None),
    )
    for converter in converters:
        if converter is control_flow:
            control_flow.transform(fn, ctx, analyze(fn, loop_reads=ctx.loop_flags))
        else:
            converter.transform(fn, ctx)
    return generate(fn).source


def assert_converts(before: str, after: str, *converters, **kwargs) -> None:
    actual = normalize(transformed(before, *converters, **kwargs))
    assert actual == normalize(after), "\n" + actual
