"""origins: generated statements map back to the user's lines."""

import ast

import gast

from autograph.source.origins import inherit_location, line_map


def test_line_map_pairs_statements_and_fills_continuations():
    source_tree = ast.parse("def f(x):\n\n    y = x\n    return y\n")
    text = "def f(x):\n    y = x\n    return y\n"
    generated = ast.parse(text)
    assert line_map(source_tree, generated, 3) == {1: 1, 2: 3, 3: 4}


def test_inherit_location_fills_only_new_nodes():
    user = gast.parse("\nx = 1").body[0]
    new = gast.Expr(value=gast.Name(id="y", ctx=gast.Load(), annotation=None, type_comment=None))
    inherit_location([new], user)
    assert new.lineno == 2 and new.value.lineno == 2
