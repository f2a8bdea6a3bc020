"""templates: names renamed, nodes substituted, statement lists and nonlocal lists spliced."""

import gast

from autograph.source.templates import replace, replace_expr


def text(nodes) -> str:
    return "\n".join(gast.unparse(n).strip() for n in nodes)


def test_rename_substitute_and_splice():
    body = gast.parse("y = x\nprint(y)").body
    code = replace(
        """
        def fn(arg):
            nonlocal state
            body
        result = fn(value)
        """,
        fn="loop_body",
        arg="itr",
        state=["a", "b"],
        body=body,
        value=gast.parse("1 + 2", mode="eval").body,
        result=gast.Name(id="out", ctx=gast.Load(), annotation=None, type_comment=None),
    )
    assert text(code) == (
        "def loop_body(itr):\n    nonlocal a, b\n    y = x\n    print(y)\nout = loop_body(1 + 2)"
    )
    assert isinstance(code[1].targets[0].ctx, gast.Store)


def test_empty_nonlocal_is_dropped_and_trees_are_fresh():
    first = replace("def f():\n    nonlocal names\n    return 1", names=[])
    second = replace("def f():\n    nonlocal names\n    return 1", names=[])
    assert text(first) == "def f():\n    return 1"
    assert first[0] is not second[0]
    assert first[0].body[0] is not second[0].body[0]


def test_location_comes_from_loc():
    user = gast.parse("\n\nx = 1").body[0]
    expr = replace_expr("ag__.not_(a)", user, a="flag")
    assert expr.lineno == 3
    assert expr.func.lineno == 3


def test_the_builder_cache_is_bounded():
    from autograph.source import templates

    for i in range(templates._BUILDERS + 10):
        replace_expr(f"ag__.value_or_undefined(lambda: self.attr_{i}, text)", text=gast.Constant(value="x", kind=None))
    assert templates._builder.cache_info().currsize == templates._BUILDERS
    (new,) = replace("x = 1")
    assert isinstance(new, gast.Assign)
