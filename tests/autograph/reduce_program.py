"""Shrink a program on which the converted function differs from the original.

Hypothesis shrinks fuzz failures, but slowly (every attempt converts a
program). This reducer works on the source instead: it deletes statements,
replaces a compound statement by its body and drops `else:` blocks, keeping
each change that still shows the same kind of difference, until none helps.

    python -m tests.autograph.reduce_program case.py "[(3, [1, 2])]"

prints the smallest program found. While-loop guards (`w0 = 0`, `w0 += 1`)
are never removed, so every candidate still terminates.
"""

from __future__ import annotations

import argparse
import ast
import copy
import tempfile
from collections.abc import Iterator
from pathlib import Path

import autograph as ag
from tests.autograph.differential import TimedOut, compare, load, run, unload

__all__ = ["difference_kind", "reduce_source"]

Kind = tuple[str, ...]


def difference_kind(source: str, inputs: list[tuple], directory: Path) -> Kind | None:
    """What differs (conversion error, or difference and both exception types), or None."""
    try:
        original = load(source, directory)
    except Exception:  # noqa: BLE001 - a candidate that no longer compiles is just rejected
        return None
    try:
        try:
            converted = ag.convert(original)
        except Exception as error:  # noqa: BLE001
            return ("conversion failed", type(error).__name__)
        for args in inputs:
            expected = run(original, args, timeout=0.5)
            actual = run(converted, args, timeout=5.0)
            difference = compare(expected, actual)
            if difference:
                names = [o.error.__name__ if o.error else "-" for o in (expected, actual)]
                return (difference, *names)
        return None
    except TimedOut:
        return None
    finally:
        unload(original)


def _blocks(tree: ast.AST) -> list[tuple[ast.AST, str]]:
    found = []
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                found.append((node, field))
    return found


def _is_guard(statement: ast.stmt) -> bool:
    target = getattr(statement, "target", None) or (getattr(statement, "targets", None) or [None])[0]
    return isinstance(target, ast.Name) and target.id[0] == "w" and target.id[1:].isdigit()


def _edits(tree: ast.AST) -> Iterator[tuple[str, int, int]]:
    """Candidate edits, last statements first so earlier indices stay valid."""
    blocks = _blocks(tree)
    for b in reversed(range(len(blocks))):
        node, field = blocks[b]
        block = getattr(node, field)
        for i in reversed(range(len(block))):
            if _is_guard(block[i]):
                continue
            yield ("delete", b, i)
            if hasattr(block[i], "body") and not isinstance(block[i], (ast.FunctionDef, ast.ClassDef)):
                yield ("inline", b, i)
            if getattr(block[i], "orelse", None):
                yield ("drop else", b, i)


def _apply(tree: ast.AST, edit: tuple[str, int, int]) -> ast.AST:
    tree = copy.deepcopy(tree)
    kind, b, i = edit
    node, field = _blocks(tree)[b]
    block = getattr(node, field)
    if kind == "delete":
        block = block[:i] + block[i + 1:]
    elif kind == "inline":
        block = block[:i] + block[i].body + block[i + 1:]
    else:
        block[i].orelse = []
    if not block and field == "body":
        block = [ast.Pass()]
    setattr(node, field, block)
    return tree


def reduce_source(source: str, inputs: list[tuple]) -> str:
    """The smallest variant of `source` showing the same kind of difference."""
    directory = Path(tempfile.mkdtemp(prefix="reduce_"))
    kind = difference_kind(source, inputs, directory)
    if kind is None:
        raise ValueError("the converted function behaves like the original on these inputs")
    tree = ast.parse(source)
    progress = True
    while progress:
        progress = False
        for edit in list(_edits(tree)):
            try:
                candidate = _apply(tree, edit)
                text = ast.unparse(candidate)
            except (IndexError, AttributeError):
                continue  # an earlier edit in this pass changed the shape
            if difference_kind(text, inputs, directory) == kind:
                tree = candidate
                progress = True
    return ast.unparse(tree) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="a module defining f")
    parser.add_argument("inputs", help="a Python list of argument tuples, e.g. \"[(1, 2)]\"")
    options = parser.parse_args(argv)
    inputs = ast.literal_eval(options.inputs)
    print(reduce_source(options.path.read_text(), inputs), end="")


if __name__ == "__main__":
    main()
