"""translation: the same gast tree gast.ast_to_gast builds, node for node, locations included."""

import ast

import gast
import pytest

from autograph.source.translation import to_gast
from tests.autograph.source.repository import python_files


def _same(tree: ast.AST) -> None:
    expected = gast.ast_to_gast(tree)
    got = to_gast(tree)
    assert gast.dump(got, include_attributes=True) == gast.dump(expected, include_attributes=True)
    for ours, theirs in zip(gast.walk(got), gast.walk(expected), strict=True):
        assert type(ours) is type(theirs)
        assert ours.__dict__.keys() == theirs.__dict__.keys()


def test_parameters_handlers_and_definitions():
    _same(
        ast.parse(
            "@d\nasync def f(a: int, /, *b, c=1, **d) -> T:\n"
            "    try:\n        pass\n    except E as e:\n        pass\n    except:\n        pass\n"
            "class C(B, metaclass=M):\n    x: int = lambda y: y\n"
            "match v:\n    case [1, *r] | {'k': _, **kw} if r:\n        pass\n"
        )
    )


@pytest.mark.parametrize("folder", ["autograph", "runtime", "tests", "bench"])
def test_repository_sources(folder):
    for path in python_files(folder):
        _same(ast.parse(path.read_text(encoding="utf-8")))
