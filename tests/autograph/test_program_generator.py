"""The program generator covers every construct the differential test needs."""

from __future__ import annotations

import ast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.autograph.program_arguments import arguments
from tests.autograph.program_generator import FEATURES, programs

_CONSTRUCTS = {
    "while": ast.While,
    "for": ast.For,
    "break": ast.Break,
    "continue": ast.Continue,
    "return": ast.Return,
    "raise": ast.Raise,
    "assert": ast.Assert,
    "del": ast.Delete,
    "nonlocal": ast.Nonlocal,
    "walrus": ast.NamedExpr,
    "if-expression": ast.IfExp,
    "and/or": ast.BoolOp,
    "not": ast.Not,
    "augmented assignment": ast.AugAssign,
    "comprehension": ast.ListComp,
    "local function": ast.FunctionDef,
    "global": ast.Global,
    "try": ast.Try,
    "lambda": ast.Lambda,
    "with": ast.With,
    "generator expression": ast.GeneratorExp,
}


_TARGETS = {ast.Attribute: "attribute assignment", ast.Subscript: "item assignment"}


def _body(source: str) -> ast.FunctionDef:
    """The def holding the generated body: `f`, or the method or nested function it calls."""
    module = ast.parse(source)
    for node in module.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name in ("Host", "_outer"):
            return next(n for n in node.body if isinstance(n, ast.FunctionDef))
    return module.body[-1]


def _features(source: str) -> set[str]:
    tree = _body(source)
    found = {name for name, kind in _CONSTRUCTS.items() for node in ast.walk(tree)
             if isinstance(node, kind) and node is not tree}
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.While)) and node.orelse:
            found.add("loop else")
        if isinstance(node, ast.If) and node.orelse and isinstance(node.orelse[0], ast.If):
            found.add("elif")
        if isinstance(node, ast.Compare) and len(node.ops) > 1:
            found.add("chained comparison")
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("enumerate", "zip", "log",
                                                                            "countdown", "tri"):
            found.add(node.func.id)
        if isinstance(node, (ast.For, ast.While)):
            if any(isinstance(n, ast.Return) for n in ast.walk(node)):
                found.add("return in a loop")
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple):
            found.add("tuple unpacking")
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found |= {_TARGETS[type(t)] for t in targets if type(t) in _TARGETS}
        if isinstance(node, ast.Starred) and isinstance(node.ctx, ast.Store):
            found.add("starred target")
        if isinstance(node, ast.Assign) and len(node.targets) > 1:
            found.add("chained assignment")
        if isinstance(node, ast.Try):
            found |= {name for name, block in (("try else", node.orelse), ("finally", node.finalbody))
                      if block}
            found |= {"except as" for handler in node.handlers if handler.name}
            if any(isinstance(n, (ast.Return, ast.Break, ast.Continue))
                   for stmt in node.finalbody for n in ast.walk(stmt)):
                found.add("jump in finally")
        if isinstance(node, ast.For) and "." in ast.unparse(node.target):
            found.add("attribute as loop target")
        if isinstance(node, (ast.For, ast.While)) and any(
            isinstance(n, ast.FunctionDef) for n in ast.walk(node)
        ):
            found.add("local function in a loop")
        if isinstance(node, (ast.Constant, ast.JoinedStr)) and node.end_lineno > node.lineno:
            found.add("f-string over lines" if isinstance(node, ast.JoinedStr) else "literal over lines")
        if isinstance(node, ast.FunctionDef) and ast.get_docstring(node, clean=False) and node is not tree:
            found.add("helper docstring")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv):
            if isinstance(node.right, ast.Constant) and node.right.value == 0:
                found.add("// 0")
    return found


def _sample(count: int, skip: frozenset[str] = frozenset()) -> list[str]:
    sources: list[str] = []

    @settings(max_examples=count, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(programs(skip=skip))
    def collect(program):
        sources.append(program.source)

    collect()
    return sources


def test_programs_use_every_construct():
    seen: set[str] = set()
    for source in _sample(600):
        seen |= _features(source)
    expected = set(_CONSTRUCTS) | {"loop else", "elif", "chained comparison", "enumerate",
                                   "zip", "log", "countdown", "tri", "return in a loop", "tuple unpacking", "// 0",
                                   "attribute assignment", "item assignment",
                                   "attribute as loop target", "try else", "finally",
                                   "except as", "starred target", "chained assignment",
                                   "local function in a loop", "jump in finally",
                                   "literal over lines", "f-string over lines", "helper docstring"}
    assert expected - seen == set()


def test_bodies_live_in_f_a_method_or_a_nested_function_and_hold_multiline_literals():
    """Converting an indented def re-indents its source: a literal there must keep its text."""
    hosts = {"plain": 0, "method": 0, "nested": 0}
    indented_literals = 0
    for source in _sample(300):
        body = _body(source)
        shape = "method" if "class Host" in source else "nested" if "_outer" in source else "plain"
        hosts[shape] += 1
        if shape != "plain":
            indented_literals += any(
                isinstance(n, (ast.Constant, ast.JoinedStr)) and n.end_lineno > n.lineno for n in ast.walk(body)
            )
        assert source.count("\ndef f(") == 1  # the entry point the fuzzers call
    assert min(hosts.values()) >= 20, hosts
    assert indented_literals >= 5


def test_skipping_hosted_and_multiline_text_keeps_f_plain_without_literals():
    for source in _sample(100, skip=frozenset({"hosted", "multiline_text"})):
        function = source[source.index("\ndef f("):]
        assert "Host" not in function and "_outer" not in function
        assert "'''" not in function and '"""' not in function


def test_skipped_features_are_left_out():
    for program in _sample(200, skip=frozenset({"nonlocal", "global", "attributes", "try", "with"})):
        source = program[program.index("\ndef f("):]  # the prelude's own code has a try
        assert "nonlocal" not in source and "with " not in source
        assert "global" not in source and "b.v" not in source and "try:" not in source


def test_unknown_features_are_refused():
    with pytest.raises(AssertionError, match="unknown features"):
        _sample(1, skip=frozenset({"goto"}))
    assert "nonlocal" in FEATURES


@settings(max_examples=100, derandomize=True, database=None, deadline=None)
@given(st.data())
def test_every_while_loop_has_its_own_counter_guard(data):
    program = data.draw(programs())
    for node in ast.walk(_body(program.source)):  # f's body; the prelude's countdown has its own
        if isinstance(node, ast.While):
            guard = ast.unparse(node.body[0])
            assert guard.startswith("w") and guard.endswith("+= 1"), guard
            assert guard.split()[0] in ast.unparse(node.test)
    assert len(data.draw(arguments(program.kinds))) == len(program.kinds)
