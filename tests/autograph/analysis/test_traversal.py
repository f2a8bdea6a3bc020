"""traversal: the table-driven walks agree with gast's own, less contexts and operators."""

import ast

import gast

from autograph.analysis.traversal import Transformer, iter_children, statements, walk

SOURCE = """
def f(x, *args, k=1, **kw):
    '''doc'''
    y = [i * 2 for i in range(x) if i % 2] + (lambda q: q + x)(3)
    if not x < y <= 3 and x:
        del y
    for a, b in zip(args, args):
        with open(a) as h:
            try:
                z = f(b)[::2]
            except (ValueError, KeyError) as e:
                raise RuntimeError(f"{e!r:>4}") from e
            finally:
                x += 1
    class C(object):
        def m(self):
            nonlocal x
            global g
            return -x
    match x:
        case [1, *rest] if rest:
            pass
        case {"k": v, **others}:
            pass
    return z
"""

_LEAVES = (gast.expr_context, gast.boolop, gast.operator, gast.unaryop, gast.cmpop)


def tree():
    return gast.parse(SOURCE).body[0]


def test_walk_is_gast_walk_without_leaves():
    fn = tree()
    expected = [n for n in gast.walk(fn) if not isinstance(n, _LEAVES)]
    assert list(walk(fn)) == expected


def test_iter_children_is_iter_child_nodes_without_leaves():
    for node in gast.walk(tree()):
        expected = [c for c in gast.iter_child_nodes(node) if not isinstance(c, _LEAVES)]
        assert list(iter_children(node)) == expected


def test_statements_are_every_statement_at_any_depth():
    fn = tree()
    expected = {id(n) for n in gast.walk(fn) if isinstance(n, (gast.stmt, gast.excepthandler, gast.match_case))}
    assert {id(n) for n in statements(fn.body)} | {id(fn)} == expected


class _Renames(Transformer):
    """Renames names, drops `pass`, splits `del` into two statements."""

    def visit_Name(self, node):
        return gast.Name(id=node.id.upper(), ctx=node.ctx, annotation=None, type_comment=None)

    def visit_Pass(self, node):
        return None

    def visit_Delete(self, node):
        self.generic_visit(node)
        return [node, gast.Expr(value=gast.Constant(value=None, kind=None))]


class _PlainRenames(gast.NodeTransformer):
    visit_Name = _Renames.visit_Name
    visit_Pass = _Renames.visit_Pass
    visit_Delete = _Renames.visit_Delete


def test_transformer_rewrites_like_node_transformer():
    ours, theirs = tree(), tree()
    _Renames().visit(ours)
    _PlainRenames().visit(theirs)
    assert ast.dump(gast.gast_to_ast(ours)) == ast.dump(gast.gast_to_ast(theirs))


class _Calls(Transformer):
    """Wraps every call, leaving names and constants (which it never visits) alone."""

    def visit_Call(self, node):
        self.generic_visit(node)
        return gast.Call(func=gast.Name(id="wrap", ctx=gast.Load(), annotation=None, type_comment=None),
                         args=[node], keywords=[])


class _PlainCalls(gast.NodeTransformer):
    visit_Call = _Calls.visit_Call


class _OwnVisit(Transformer):
    """Overrides visit itself: it sees every name, even though it has no visit_Name."""

    def visit(self, node):
        if isinstance(node, gast.Name):
            return gast.Name(id=node.id.upper(), ctx=node.ctx, annotation=None, type_comment=None)
        return self.generic_visit(node)


def test_names_and_constants_are_skipped_only_by_transformers_that_keep_them():
    assert _Calls._keeps_names and _Calls._keeps_constants
    assert not _Renames._keeps_names and not _OwnVisit._keeps_names
    ours, theirs = tree(), tree()
    _Calls().visit(ours)
    _PlainCalls().visit(theirs)
    assert ast.dump(gast.gast_to_ast(ours)) == ast.dump(gast.gast_to_ast(theirs))
    renamed, expected = tree(), tree()
    _OwnVisit().visit(renamed)
    assert {n.id for n in gast.walk(renamed) if isinstance(n, gast.Name)} == {
        n.id.upper() for n in gast.walk(expected) if isinstance(n, gast.Name)
    }


class _Passes(Transformer):
    """Counts `pass` statements; statements only, so it never enters an expression."""

    statements_only = True

    def __init__(self):
        self.seen = 0

    def visit_Pass(self, node):
        self.seen += 1
        return node

    def visit_Lambda(self, node):
        raise AssertionError("a statements-only transformer entered an expression")


def test_a_statements_only_transformer_reaches_every_block_and_no_expression():
    fn = tree()
    passes = _Passes()
    passes.generic_visit(fn)
    assert passes.seen == sum(isinstance(n, gast.Pass) for n in gast.walk(fn)) == 2


class _Attributes(Transformer):
    """Counts attributes: it must see those of plain names too (`np.sum`)."""

    def __init__(self):
        self.seen = []

    def visit_Attribute(self, node):
        self.seen.append(node.attr)
        return self.generic_visit(node)


def test_attributes_of_names_are_skipped_only_by_transformers_that_keep_them():
    assert _Calls._keeps_attributes
    assert not _Attributes._keeps_attributes and not _OwnVisit._keeps_attributes
    counter = _Attributes()
    counter.visit(gast.parse("def f(x):\n    return np.sum(x.data, axis=self.axis)\n"))
    assert sorted(counter.seen) == ["axis", "data", "sum"]
