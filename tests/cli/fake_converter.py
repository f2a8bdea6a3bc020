"""A stand-in for `autograph.pipeline.convert_source` with the same signature.

It lets the CLI's own behaviour (selection, output, exit codes) be tested
independently of the converter: it "converts" a function by adding a marker
comment, and fails on functions that contain `yield`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import gast

from autograph.cli.module_output import our_decorator_names
from runtime.ir.errors import ConversionError

MARK = "# converted"


@dataclass
class FakeConverted:
    name: str
    qualname: str
    lineno: int
    code: str
    error: Exception | None = None
    kept: str = ""


def convert_source(source, filename, names=None, all_functions=False, *, first_line=1, static=None):
    """`source` may be part of a file from line `first_line`; `static` then has the module's names."""
    tree = ast.parse(source)
    if static is None:
        functions, modules = our_decorator_names(tree)
        ours = lambda d: _ours(d, functions, modules)  # noqa: E731
    else:
        ours = lambda d: static.is_function_decorator(gast.ast_to_gast(d))  # noqa: E731
    results = []
    for qualname, node in _defs(tree.body, ""):
        if names is not None:
            if node.name not in names and qualname not in names:
                continue
        elif not all_functions and not any(ours(d) for d in node.decorator_list):
            continue
        results.append(_convert(source, filename, qualname, node, first_line - 1))
    return results


def _convert(source, filename, qualname, node, shift=0):
    lineno = node.lineno + shift
    if any(isinstance(n, ast.Yield) for n in ast.walk(node)):
        error = ConversionError(
            f"{filename}:{lineno}: 'yield' makes {node.name!r} a generator, which "
            f"cannot be converted; return a list instead, or mark it ag.do_not_convert"
        )
        return FakeConverted(node.name, qualname, lineno, "", error)
    text = ast.get_source_segment(source, node, padded=True)
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def "))
    indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())]
    body = [line[len(indent):] for line in lines[start:]]
    code = "\n".join([body[0], "    " + MARK] + body[1:]) + "\n"
    return FakeConverted(node.name, qualname, lineno, code)


def _defs(body, prefix):
    for node in body:
        if isinstance(node, ast.FunctionDef):
            yield prefix + node.name, node
            yield from _defs(node.body, f"{prefix}{node.name}.<locals>.")
        elif isinstance(node, ast.ClassDef):
            yield from _defs(node.body, f"{prefix}{node.name}.")


def _ours(decorator, functions, modules):
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Name):
        return target.id in functions
    return isinstance(target, ast.Attribute) and getattr(target.value, "id", None) in modules
