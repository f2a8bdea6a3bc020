"""origins: generated statements map back to the user's lines."""

import gast
import pytest

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


def test_line_origins_are_made_on_first_lookup_then_registered_as_a_dict():
    from autograph.source.origins import LineOrigins
    from runtime.ir import origin

    lines = ["\n"] * 9 + ["def f(x):\n", "    y = x\n", "    return y\n"]  # the file: f on lines 10-12
    origins = LineOrigins("<generated f#0>", [(3, 1), (4, 2), (5, 3)], 6, "model.py", 10, lines, "f")
    origin.register_source_map("<generated f#0>", origins)
    assert origins._origins is None
    found = origin.map_location("<generated f#0>", 4)
    assert found == origin.Origin("model.py", 11, "    y = x\n", "f")
    assert dict(origins) == {
        3: origin.Origin("model.py", 10, "def f(x):\n", "f"),
        4: found,
        5: origin.Origin("model.py", 12, "    return y\n", "f"),
        6: origin.Origin("model.py", 12, "    return y\n", "f"),
    }
    assert type(origin._SOURCE_MAPS["<generated f#0>"]) is dict
    beyond = LineOrigins("<generated g#0>", [(3, 9)], 3, "model.py", 10, lines, "g")
    assert beyond[3] == origin.Origin("model.py", 18, "", "g")  # past the end of the file: no text
    del origin._SOURCE_MAPS["<generated f#0>"]


def test_line_origins_with_an_offset_map_as_with_the_starts_moved_down():
    from autograph.source.origins import LineOrigins

    lines = ["def f(x):\n", "    y = x\n", "    return y\n"]
    moved = LineOrigins("<generated f#1>", [(3, 1), (4, 2), (5, 3)], 6, "model.py", 1, lines, "f")
    offset = LineOrigins("<generated f#2>", [(1, 1), (2, 2), (3, 3)], 6, "model.py", 1, lines, "f", offset=2)
    assert [offset[line] for line in range(3, 7)] == [moved[line] for line in range(3, 7)]
    for missing in (1, 2, 7):
        with pytest.raises(KeyError):
            offset[missing]
    assert dict(offset) == dict(moved)
    from runtime.ir import origin

    for name in ("<generated f#1>", "<generated f#2>"):  # iterating registered the finished dicts
        del origin._SOURCE_MAPS[name]
