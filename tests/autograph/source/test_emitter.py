"""emitter: prints what ast.unparse prints, and knows the line each statement starts on."""

import ast

import gast
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograph.source.emitter import emit
from tests.autograph.source.repository import python_files

SYNTAX = '''
import os.path as p, sys
from .. import a as b
from .mod import *

@decorate(1)
@other.attr
async def f(a, /, b: int = 1, *args: "x", c, d=2, **kw) -> list[int]:
    """Doc line one.

    @param a: kept, the blank line above too
    """
    global g
    x: int
    (y): int = 3
    obj.attr: str = "s"
    async with open(a) as (h, i), other():
        async for j, k in pairs:
            await thing
            yield
            y = yield x
            z = yield from gen()
    x = (n := 10) + (lambda: 0)() + (lambda q, *r, s=1, **t: q)(1)
    a[1:2, ::3], a[:], a[i, j] = (b, c) = [*d, *e]
    del a[0], b.c
    x = {**m, 'k': v} | {1, 2} | {*()}
    x = [i for i in range(3) if i if not i] + [(a, b) for a, b in z]
    x = {k: v async for k, v in items()}, {s for s in t}, (g for g in h)
    x = f"{a!r:>{width}} {b['key']} {'q'} {c:.3f} {{}} \\n {x if y else z}"
    x = f'{"a"}' f"{'b'}" rf"\\d{x}" f"""{'"'}"""
    x = -a ** -b, (-a) ** b, (a ** b) ** c, a ** (b ** c), not a == b, (not a) == b
    x = a if b else c if d else e, (a if b else c) if d else e
    x = a or b or not c, a and (b or c) and d, (a, b), (a,), ()
    x = 1 .real, 1.5.real, (a + b).c, (a + b)[c], (a + b)(c), -1 .bit_length()
    x = a < b < c, a is not b, a not in b, (a < b) < c
    x = 1e400, -1e400j, 0.1, 10 ** 20, b'bytes', 'quote\\'s', "both '\\""
    assert x, "message"
    raise ValueError("no") from None
    try:
        pass
    except (A, B) as e:
        pass
    except:
        raise
    else:
        pass
    finally:
        pass
    while x:
        break
    else:
        continue
    if a:
        pass
    elif b:
        pass
    elif c:
        pass
    else:
        if d:
            pass
    for x, in y:
        x += 1
        x @= 2
        x **= 3
    return a, b

class C(Base, metaclass=Meta):
    """Class doc."""
    attr = 1

    def method(self):
        nonlocal_name = 1
        def inner():
            nonlocal nonlocal_name
            return
        return inner

def matcher(command):
    match command:
        case [1, *rest] | {'a': b, **kw} if rest:
            pass
        case Point(x=0, y=0) | Point(1, 2, z=3) as p:
            pass
        case (1 | 2) as q:
            pass
        case None | True | -1 | 1 + 2j | "s" | a.b:
            pass
        case [*_]:
            pass
        case _:
            pass
    try:
        pass
    except* ValueError as e:
        pass
'''


def _unparse(node: gast.AST) -> str:
    """What ast.unparse prints, less the blank line it puts before every def and class."""
    return ast.unparse(gast.gast_to_ast(node))


def _statement_lines(tree: ast.AST, gtree: gast.AST) -> list[tuple[int, int]]:
    """(line in the printed text, user line) of every statement, by walking a re-parse beside the tree."""

    def statements(node):
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, field, None) or ():
                yield from statements(child)

    pairs = []
    for printed, user in zip(statements(tree), statements(gtree)):
        if getattr(printed, "lineno", None) is not None and getattr(user, "lineno", None) is not None:
            pairs.append((printed.lineno, user.lineno))
    return pairs


def _joined(text: str) -> tuple[list[str], set[int]]:
    """The lines of `text` with a spread `ag__.if_exp` return joined back into one line, as
    ast.unparse prints it, and the (1-based) numbers of the continuation lines joined."""
    lines: list[str] = []
    continued = set()
    for number, line in enumerate(text.split("\n"), 1):
        if lines and lines[-1].endswith(",") and line.lstrip().startswith("lambda: ") and "ag__.if_exp(" in lines[-1]:
            lines[-1] += " " + line.lstrip()
            continued.add(number)
        elif line:
            lines.append(line)
    return lines, continued


def _check(gnode: gast.stmt) -> None:
    emitted = emit(gnode)
    expected = _unparse(gnode)
    lines, continued = _joined(emitted.text)
    assert lines == [line for line in expected.split("\n") if line]
    reparsed = ast.parse(emitted.text).body[0]
    assert ast.dump(reparsed) == ast.dump(ast.parse(expected).body[0])
    starts = [(line, user) for line, user in emitted.starts if line not in continued]
    assert sorted(starts) == sorted(_statement_lines(reparsed, gnode))


def test_every_construct_prints_as_ast_unparse_does():
    for node in gast.parse(SYNTAX).body:
        _check(node)


@pytest.mark.parametrize("folder", ["autograph", "runtime", "tests", "bench", "fixtures"])
def test_repository_sources_print_as_ast_unparse_does(folder):
    for path in python_files(folder):
        try:
            tree = gast.parse(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, SyntaxError):
            continue  # fixtures of unreadable files
        for node in tree.body:
            _check(node)


def test_a_return_of_values_from_other_lines_puts_each_on_its_own_mapped_line():
    """conditional_returns makes one return of an if chain: each value keeps its `return`'s line."""
    source = (
        "def sign(x):\n"
        "    return ag__.if_exp(x > 0,\n"
        "        lambda: 1,\n"
        "        lambda: ag__.if_exp(x < 0,\n"
        "            lambda: -1,\n"
        "            lambda: 0, 'return'), 'return')"
    )
    fn = gast.parse(source).body[0]
    outer = fn.body[0].value
    inner = outer.args[2].body
    for node, line in ((outer.args[1].body, 12), (inner, 13), (inner.args[1].body, 14), (inner.args[2].body, 15)):
        node.lineno = line  # where the user's returns were
    emitted = emit(fn)
    assert emitted.text == source
    assert emitted.starts == [(1, 1), (2, 2), (3, 12), (4, 13), (5, 14), (6, 15)]


def test_a_return_of_values_from_its_own_line_stays_one_line():
    source = "def f(x):\n    return ag__.if_exp(x > 0, lambda: 1, lambda: 0, 'x > 0')"
    assert emit(gast.parse(source).body[0]).text == source


def test_lambda_is_printed_as_an_expression_starting_on_line_one():
    node = gast.parse("\n\nf = lambda x, *y: (x, y)").body[0].value
    assert emit(node).text == "lambda x, *y: (x, y)"
    assert emit(node).starts == [(1, 3)]


def test_docstring_with_newlines_moves_later_statements_down():
    node = gast.parse('def f():\n    """a\n\n    b"""\n    return 1\n').body[0]
    assert emit(node).starts == [(1, 1), (2, 2), (5, 5)]


# --- random expressions: the emitter and ast.unparse agree, and the text parses back

_names = st.sampled_from(["a", "b", "c"]).map(lambda n: gast.Name(id=n, ctx=gast.Load(), annotation=None, type_comment=None))
_constants = st.sampled_from([0, 1, -1, 1.5, 1e400, "s", "it's", 'q"', "", "{}", b"b", None, True, ...]).map(
    lambda v: gast.Constant(value=v, kind=None)
)
_binops = st.sampled_from([gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow, gast.BitOr, gast.LShift, gast.MatMult])
_cmpops = st.sampled_from([gast.Lt, gast.Eq, gast.In, gast.IsNot, gast.NotIn])


def _extend(children):
    load = gast.Load
    return st.one_of(
        st.builds(lambda left, op, right: gast.BinOp(left=left, op=op(), right=right), children, _binops, children),
        st.builds(lambda op, operand: gast.UnaryOp(op=op(), operand=operand), st.sampled_from([gast.Not, gast.USub, gast.Invert]), children),
        st.builds(lambda op, values: gast.BoolOp(op=op(), values=values), st.sampled_from([gast.And, gast.Or]), st.lists(children, min_size=2, max_size=4)),
        st.builds(lambda left, ops: gast.Compare(left=left, ops=[o() for o, _ in ops], comparators=[c for _, c in ops]), children, st.lists(st.tuples(_cmpops, children), min_size=1, max_size=3)),
        st.builds(lambda body, test, orelse: gast.IfExp(test=test, body=body, orelse=orelse), children, children, children),
        st.builds(lambda elts: gast.Tuple(elts=elts, ctx=load()), st.lists(children, max_size=3)),
        st.builds(lambda elts: gast.List(elts=elts, ctx=load()), st.lists(children, max_size=3)),
        st.builds(lambda value: gast.Attribute(value=value, attr="x", ctx=load()), children),
        st.builds(lambda value, index: gast.Subscript(value=value, slice=index, ctx=load()), children, children),
        st.builds(lambda func, args: gast.Call(func=func, args=args, keywords=[]), children, st.lists(children, max_size=2)),
        st.builds(lambda value: gast.Await(value=value), children),
        st.builds(lambda value: gast.Yield(value=value), children),
        st.builds(lambda body: gast.Lambda(args=gast.arguments(args=[], posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]), body=body), children),
        st.builds(lambda value: gast.JoinedStr(values=[gast.Constant(value="v=", kind=None), gast.FormattedValue(value=value, conversion=-1, format_spec=None)]), children),
        st.builds(lambda value: gast.NamedExpr(target=gast.Name(id="w", ctx=gast.Store(), annotation=None, type_comment=None), value=value), children),
        st.builds(lambda value: gast.Starred(value=value, ctx=load()), children),
    )  # fmt: skip


_expressions = st.recursive(st.one_of(_names, _constants), _extend, max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(_expressions)
def test_random_expressions_print_as_ast_unparse_does(expression):
    try:
        expected = ast.unparse(gast.gast_to_ast(expression))
    except ValueError:  # a backslash ast.unparse cannot avoid inside an f-string
        with pytest.raises(ValueError):
            emit(expression)
        return
    assert emit(expression).text == expected
    statement = gast.Expr(value=expression)
    assert emit(statement).text == _unparse(statement)
