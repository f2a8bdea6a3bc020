"""A stand-in for `autograph.pipeline.convert_source` with the same signature.

It lets the CLI's own behaviour (selection, output, exit codes) be tested
independently of the converter: it "converts" a function by adding a marker
comment, and fails on functions that contain `yield`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

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


def convert_source(source, filename, names=None, all_functions=False):
    tree = ast.parse(source)
    functions, modules = our_decorator_names(tree)
    results = []
    for qualname, node in _defs(tree.body, ""):
        if names is not None:
            if node.name not in names and qualname not in names:
                continue
        elif not all_functions and not any(_ours(d, functions, modules) for d in node.decorator_list):
            continue
        results.append(_convert(source, filename, qualname, node))
    return results


def _convert(source, filename, qualname, node):
    if any(isinstance(n, ast.Yield) for n in ast.walk(node)):
        error = ConversionError(
            f"{filename}:{node.lineno}: 'yield' makes {node.name!r} a generator, which "
            f"cannot be converted; return a list instead, or mark it ag.do_not_convert"
        )
        return FakeConverted(node.name, qualname, node.lineno, "", error)
    text = ast.get_source_segment(source, node, padded=True)
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def "))
    indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())]
    body = [line[len(indent):] for line in lines[start:]]
    code = "\n".join([body[0], "    " + MARK] + body[1:]) + "\n"
    return FakeConverted(node.name, qualname, node.lineno, code)


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
