"""origins: generated statements map back to the user's lines."""

import gast

from autograph.source.origins import inherit_location, line_map


def test_line_map_pairs_statements_and_fills_continuations():
    # user "def f(x):\n\n    y = x\n    return (y,\n            y)" printed on lines 1-4
    assert line_map([(1, 1), (2, 3), (3, 4)], 4) == {1: 1, 2: 3, 3: 4, 4: 4}


def test_line_map_first_statement_on_a_line_wins_and_leading_lines_stay_unmapped():
    assert line_map([(2, 5), (2, 7), (4, 9)], 4) == {2: 5, 3: 5, 4: 9}


def test_inherit_location_fills_only_new_nodes():
    user = gast.parse("\nx = 1").body[0]
    new = gast.Expr(value=gast.Name(id="y", ctx=gast.Load(), annotation=None, type_comment=None))
    inherit_location([new], user)
    assert new.lineno == 2 and new.value.lineno == 2
