"""naming: fresh readable names that never collide with the user's."""

import gast

from autograph.source.naming import Namespace


def test_hints_then_numbered():
    ns = Namespace(set())
    assert [ns.new("if_body"), ns.new("if_body"), ns.new("if_body")] == ["if_body", "if_body_1", "if_body_2"]
    assert [ns.new("break_"), ns.new("break_")] == ["break_", "break_1"]


def test_user_names_keywords_and_builtins_avoided():
    tree = gast.parse("def f(get_state):\n    loop_body = 1\n    import numpy as np\n")
    ns = Namespace.for_tree(tree)
    assert ns.new("get_state") == "get_state_1"
    assert ns.new("loop_body") == "loop_body_1"
    assert ns.new("np") == "np_1"
    assert ns.new("len") == "len_1"
    assert ns.new("ag__") == "ag__1"
