"""Emitter: a converted gast tree straight to source text, noting where each statement lands.

    emitted = emit(fn)
    emitted.text     # 'def f(x):\\n    y = x\\n    return y'
    emitted.starts   # [(1, 3), (2, 4), (3, 5)]: (output line, the user's line)

The text is what `ast.unparse` prints for the same tree (precedence,
quoting and layout alike) except that no blank line is put before a nested
def or class, and that a return or a one-target assignment (`retval = ...`,
a lowered return) of an `ag__.if_exp` whose values come from other lines
than its test puts each value on a line of its own, mapped to the user's
line it came from:

    return ag__.if_exp(x > 0,        # the if's line
        lambda: 1,                   # its `return 1`
        lambda: 0, 'return')         # the `return 0` after it

and that a flat elif chain (`ag__.if_chain`) puts each arm on a line of its
own, mapped to the line of its `elif`.

Printing from gast directly spares converting the whole tree
to `ast` first, and knowing the line each statement is written on spares
parsing the text again to build the source map.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import gast

from autograph.source import literals
from autograph.source.expressions import ATOM, BOR, TEST, TUPLE, YIELD, Expressions

__all__ = ["Emitted", "emit"]

Expression = Callable[..., str]  # Expressions.text: an expression node (and a precedence) to its text


@dataclass(frozen=True)
class Emitted:
    """Source text (no final newline) and the (output line, user line) of each located statement."""

    text: str
    starts: list[tuple[int, int]]
    # output lines that begin inside a string literal (a docstring's second line on): text that
    # whoever indents the whole output must leave as it is, or the string's value changes
    continued: tuple[int, ...] = ()


def emit(node: gast.AST) -> Emitted:
    """Print one statement (a def, usually) or one expression (a lambda)."""
    writer = _Writer()
    if isinstance(node, gast.stmt):
        writer.statement(node)
        return Emitted("\n".join(writer.lines), writer.starts, tuple(writer.continued))
    lineno = getattr(node, "lineno", None)
    text = writer.expr(node)
    continued = tuple(range(2, text.count("\n") + 2))
    return Emitted(text, [] if lineno is None else [(1, lineno)], continued)


def _type_comment(node: gast.AST) -> str:
    comment = getattr(node, "type_comment", None)
    return "" if comment is None else f" # type: {comment}"


def _is_docstring(node: gast.stmt) -> bool:
    return type(node) is gast.Expr and isinstance(node.value, gast.Constant) and isinstance(node.value.value, str)


class _Writer:
    """Output lines, the current indentation and the statement starts seen so far."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.starts: list[tuple[int, int]] = []
        self.line = 1  # the output line the next fill starts on
        self.continued: list[int] = []  # see Emitted.continued
        self.indent = ""
        self.expressions = Expressions()
        self.expr = self.expressions.text

    def fill(self, text: str, node: gast.AST | None = None) -> None:
        """Start a new line; `node` (a statement) maps it to the user's line."""
        if node is not None:
            lineno = getattr(node, "lineno", None)
            if lineno is not None:
                self.starts.append((self.line, lineno))
        self.lines.append(self.indent + text)
        self.advance(text)

    def advance(self, text: str) -> None:
        """Move past a written line; a line break in it is inside a literal (nothing else
        prints one), so the lines after it continue that literal."""
        breaks = text.count("\n")
        if breaks:
            self.continued.extend(range(self.line + 1, self.line + 1 + breaks))
        self.line += 1 + breaks

    def statement(self, node: gast.stmt) -> None:
        _PRINTERS[type(node)](self, node)

    def block(self, body: list[gast.stmt], docstring: bool = False) -> None:
        self.indent += "    "
        if docstring and body and _is_docstring(body[0]):
            value = body[0].value
            prefix = "u" if getattr(value, "kind", None) == "u" else ""
            self.fill(prefix + literals.quoted(value.value, literals.MULTI_QUOTES), body[0])
            body = body[1:]
        for child in body:
            _PRINTERS[type(child)](self, child)
        self.indent = self.indent[:-4]

    def else_block(self, body: list[gast.stmt], word: str = "else") -> None:
        if body:
            self.fill(word + ":")
            self.block(body)

    def decorators(self, node: gast.FunctionDef | gast.ClassDef) -> None:
        for decorator in node.decorator_list:
            self.fill("@" + self.expr(decorator))

    def type_params(self, node: gast.AST) -> str:
        params = getattr(node, "type_params", None)
        return "[" + ", ".join([_type_param(p, self.expr) for p in params]) + "]" if params else ""

    # --- statements with blocks

    def function(self, node: gast.FunctionDef) -> None:
        if node.decorator_list:
            self.decorators(node)
        keyword = "async def " if isinstance(node, gast.AsyncFunctionDef) else "def "
        head = f"{keyword}{node.name}{self.type_params(node)}({self.expressions.arguments(node.args)})"
        if node.returns:
            head += " -> " + self.expr(node.returns)
        self.fill(head + ":" + _type_comment(node), node)
        self.block(node.body, docstring=True)

    def class_def(self, node: gast.ClassDef) -> None:
        self.decorators(node)
        parts = [self.expr(base) for base in node.bases] + [self.expr(k) for k in node.keywords]
        bases = "(" + ", ".join(parts) + ")" if parts else ""
        self.fill(f"class {node.name}{self.type_params(node)}{bases}:", node)
        self.block(node.body, docstring=True)

    def for_loop(self, node: gast.For) -> None:
        keyword = "async for " if isinstance(node, gast.AsyncFor) else "for "
        head = f"{keyword}{self.expr(node.target, TUPLE)} in {self.expr(node.iter)}:"
        self.fill(head + _type_comment(node), node)
        self.block(node.body)
        self.else_block(node.orelse)

    def while_loop(self, node: gast.While) -> None:
        self.fill(f"while {self.expr(node.test)}:", node)
        self.block(node.body)
        self.else_block(node.orelse)

    def if_stmt(self, node: gast.If) -> None:
        self.fill(f"if {self.expr(node.test)}:", node)
        self.block(node.body)
        while len(node.orelse) == 1 and isinstance(node.orelse[0], gast.If):
            node = node.orelse[0]
            self.fill(f"elif {self.expr(node.test)}:", node)
            self.block(node.body)
        self.else_block(node.orelse)

    def with_stmt(self, node: gast.With) -> None:
        keyword = "async with " if isinstance(node, gast.AsyncWith) else "with "
        items = ", ".join([self.with_item(item) for item in node.items])
        self.fill(f"{keyword}{items}:{_type_comment(node)}", node)
        self.block(node.body)

    def with_item(self, item: gast.withitem) -> str:
        text = self.expr(item.context_expr)
        return text + " as " + self.expr(item.optional_vars) if item.optional_vars else text

    def try_stmt(self, node: gast.Try) -> None:
        self.fill("try:", node)
        self.block(node.body)
        keyword = "except*" if isinstance(node, gast.TryStar) else "except"
        for handler in node.handlers:
            head = keyword + (" " + self.expr(handler.type) if handler.type else "")
            if handler.name:
                head += " as " + (handler.name.id if isinstance(handler.name, gast.Name) else handler.name)
            self.fill(head + ":", handler)
            self.block(handler.body)
        self.else_block(node.orelse)
        self.else_block(node.finalbody, "finally")

    def match(self, node: gast.Match) -> None:
        self.fill(f"match {self.expr(node.subject)}:", node)
        self.indent += "    "
        for case in node.cases:
            guard = " if " + self.expr(case.guard) if case.guard else ""
            self.fill(f"case {_pattern(case.pattern, TEST, self.expr)}{guard}:")
            self.block(case.body)
        self.indent = self.indent[:-4]

    # --- simple statements

    def expr_stmt(self, node: gast.Expr) -> None:
        if _is_if_chain(node.value):
            self.spread(self.if_chain_lines(node.value), node)
            return
        self.fill(self.expr(node.value, YIELD), node)

    def if_chain_lines(self, call: gast.Call) -> list[tuple[str, int | None]]:
        """`ag__.if_chain(...)` with each arm (test, body, names) on a line of its own, mapped to
        the user's line of its `elif`: where a staged arm's errors point (runtime.operators.if_chain)."""
        args = call.args
        lines = []
        for at in range(0, len(args) - 1, 3):
            arm = ", ".join(self.expr(arg) for arg in args[at : at + 3]) + ","
            lines.append((arm, getattr(args[at], "lineno", None)))
        tail = ", ".join([self.expr(args[-1])] + [self.expressions.keyword(k) for k in call.keywords]) + ")"
        lines.append((tail, None))
        lines = [(f"    {text}", lineno) for text, lineno in lines]
        lines[0] = (f"{self.expr(call.func)}({lines[0][0][4:]}", call.lineno)
        return lines

    def assign(self, node: gast.Assign) -> None:
        if len(node.targets) == 1 and _spread(node.value) and not _type_comment(node):
            self.spread(self.if_exp_lines(node.value, self.expr(node.targets[0], TUPLE) + " = "), node)
            return
        if len(node.targets) == 1:
            targets = self.expr(node.targets[0], TUPLE) + " = "
        else:
            targets = "".join([self.expr(t, TUPLE) + " = " for t in node.targets])
        self.fill(targets + self.expr(node.value) + _type_comment(node), node)

    def aug_assign(self, node: gast.AugAssign) -> None:
        op = _AUG_OPS[type(node.op)]
        self.fill(f"{self.expr(node.target)} {op}= {self.expr(node.value)}", node)

    def ann_assign(self, node: gast.AnnAssign) -> None:
        target = self.expr(node.target)
        if not node.simple and isinstance(node.target, gast.Name):
            target = f"({target})"
        value = " = " + self.expr(node.value) if node.value else ""
        self.fill(f"{target}: {self.expr(node.annotation)}{value}", node)

    def return_stmt(self, node: gast.Return) -> None:
        if node.value is not None and _spread(node.value):
            self.spread(self.if_exp_lines(node.value, "return "), node)
            return
        self.fill("return " + self.expr(node.value) if node.value else "return", node)

    def spread(self, lines: list[tuple[str, int | None]], node: gast.stmt) -> None:
        """One statement over `lines`, each mapped to its own user line (the first to `node`'s)."""
        (first, _), *rest = lines
        self.fill(first, node)
        for text, lineno in rest:
            if lineno is not None:
                self.starts.append((self.line, lineno))
            self.lines.append(self.indent + text)
            self.advance(text)

    def if_exp_lines(self, call: gast.Call, head: str, indent: str = "    ") -> list[tuple[str, int | None]]:
        """`ag__.if_exp(test, lambda: a, lambda: b, text)` with each lambda on its own line."""
        test, if_true, if_false, *rest = call.args
        tail = ", ".join([self.expr(arg) for arg in rest] + [self.expressions.keyword(k) for k in call.keywords])
        lines = [(f"{head}{self.expr(call.func)}({self.expr(test)},", call.lineno)]
        lines.append((f"{indent}lambda: {self.expr(if_true.body)},", if_true.body.lineno))
        if _spread(if_false.body):
            inner = self.if_exp_lines(if_false.body, indent + "lambda: ", indent + "    ")
            text, lineno = inner[-1]
            lines += inner[:-1] + [(f"{text}, {tail})", lineno)]
        else:
            lines.append((f"{indent}lambda: {self.expr(if_false.body)}, {tail})", if_false.body.lineno))
        return lines

    def delete(self, node: gast.Delete) -> None:
        self.fill("del " + ", ".join([self.expr(t) for t in node.targets]), node)

    def raise_stmt(self, node: gast.Raise) -> None:
        text = "raise"
        if node.exc:
            text += " " + self.expr(node.exc)
            if node.cause:
                text += " from " + self.expr(node.cause)
        self.fill(text, node)

    def assert_stmt(self, node: gast.Assert) -> None:
        message = ", " + self.expr(node.msg) if node.msg else ""
        self.fill(f"assert {self.expr(node.test)}{message}", node)

    def names(self, node: gast.Global | gast.Nonlocal) -> None:
        keyword = "global " if isinstance(node, gast.Global) else "nonlocal "
        self.fill(keyword + ", ".join(node.names), node)

    def import_stmt(self, node: gast.Import) -> None:
        self.fill("import " + ", ".join([_alias(a) for a in node.names]), node)

    def import_from(self, node: gast.ImportFrom) -> None:
        module = "." * (node.level or 0) + (node.module or "")
        self.fill(f"from {module} import " + ", ".join([_alias(a) for a in node.names]), node)

    def keyword_stmt(self, node: gast.stmt) -> None:
        self.fill(_KEYWORDS[type(node)], node)

    def type_alias(self, node: gast.AST) -> None:
        self.fill(f"type {self.expr(node.name)}{self.type_params(node)} = {self.expr(node.value)}", node)


def _spread(value: gast.expr) -> bool:
    """Whether `value` is an `ag__.if_exp` call whose values come from other lines than its test
    (a chain of returns, see conditional_returns): printed one value a line, so each maps to its own."""
    if type(value) is not gast.Call or len(value.args) < 4:
        return False
    func = value.func
    if type(func) is not gast.Attribute or func.attr != "if_exp" or type(func.value) is not gast.Name:
        return False
    if func.value.id != "ag__":
        return False
    if_true, if_false = value.args[1], value.args[2]
    if type(if_true) is not gast.Lambda or type(if_false) is not gast.Lambda:
        return False
    line = getattr(value, "lineno", None)
    return any(getattr(side.body, "lineno", line) != line for side in (if_true, if_false))


def _is_if_chain(value: gast.expr) -> bool:
    """Whether `value` is a flat elif chain's call (autograph.converters.if_chains)."""
    if type(value) is not gast.Call or len(value.args) < 4:
        return False
    func = value.func
    return (type(func) is gast.Attribute and func.attr == "if_chain" and type(func.value) is gast.Name
            and func.value.id == "ag__")


def _alias(node: gast.alias) -> str:
    return f"{node.name} as {node.asname}" if node.asname else node.name


def _type_param(node: gast.AST, expr: Expression) -> str:
    if type(node).__name__ == "TypeVarTuple":
        return "*" + node.name
    if type(node).__name__ == "ParamSpec":
        return "**" + node.name
    bound = getattr(node, "bound", None)
    return f"{node.name}: {expr(bound)}" if bound else node.name


def _pattern(node: gast.pattern, prec: int, expr: Expression) -> str:
    """A match pattern (MatchAs and MatchOr parenthesise like expressions)."""
    kind = type(node)
    if kind is gast.MatchValue:
        return expr(node.value)
    if kind is gast.MatchSingleton:
        return literals.constant(node.value)
    if kind is gast.MatchSequence:
        return "[" + ", ".join([_pattern(p, TEST, expr) for p in node.patterns]) + "]"
    if kind is gast.MatchStar:
        return "*" + (node.name if node.name is not None else "_")
    if kind is gast.MatchMapping:
        parts = [f"{expr(k)}: {_pattern(p, TEST, expr)}" for k, p in zip(node.keys, node.patterns, strict=True)]
        if node.rest is not None:
            parts.append("**" + node.rest)
        return "{" + ", ".join(parts) + "}"
    if kind is gast.MatchClass:
        parts = [_pattern(p, TEST, expr) for p in node.patterns]
        pairs = zip(node.kwd_attrs, node.kwd_patterns, strict=True)
        parts.extend([f"{attr}={_pattern(p, TEST, expr)}" for attr, p in pairs])
        return f"{expr(node.cls, ATOM)}({', '.join(parts)})"
    if kind is gast.MatchAs:
        if node.name is None:
            return "_"
        if node.pattern is None:
            return node.name
        text = f"{_pattern(node.pattern, BOR, expr)} as {node.name}"
        return f"({text})" if prec > TEST else text
    if kind is gast.MatchOr:
        text = " | ".join([_pattern(p, BOR + 1, expr) for p in node.patterns])
        return f"({text})" if prec > BOR else text
    raise TypeError(f"cannot print a {kind.__name__} pattern")


_AUG_OPS = {
    gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.MatMult: "@", gast.Div: "/", gast.Mod: "%",
    gast.FloorDiv: "//", gast.LShift: "<<", gast.RShift: ">>", gast.BitOr: "|", gast.BitXor: "^",
    gast.BitAnd: "&", gast.Pow: "**",
}  # fmt: skip
_KEYWORDS = {gast.Pass: "pass", gast.Break: "break", gast.Continue: "continue"}
_STATEMENTS = {
    gast.FunctionDef: "function", gast.AsyncFunctionDef: "function", gast.ClassDef: "class_def",
    gast.For: "for_loop", gast.AsyncFor: "for_loop", gast.While: "while_loop", gast.If: "if_stmt",
    gast.With: "with_stmt", gast.AsyncWith: "with_stmt", gast.Try: "try_stmt", gast.Match: "match",
    gast.Expr: "expr_stmt", gast.Assign: "assign", gast.AugAssign: "aug_assign", gast.AnnAssign: "ann_assign",
    gast.Return: "return_stmt", gast.Delete: "delete", gast.Raise: "raise_stmt", gast.Assert: "assert_stmt",
    gast.Global: "names", gast.Nonlocal: "names", gast.Import: "import_stmt", gast.ImportFrom: "import_from",
    gast.Pass: "keyword_stmt", gast.Break: "keyword_stmt", gast.Continue: "keyword_stmt",
}  # fmt: skip
for _optional, _printer in (("TryStar", "try_stmt"), ("TypeAlias", "type_alias")):
    if hasattr(gast, _optional):
        _STATEMENTS[getattr(gast, _optional)] = _printer


class _Printers(dict):
    """gast statement class -> the _Writer method that prints it; a TypeError for any other class."""

    def __missing__(self, cls: type) -> Callable[[_Writer, gast.stmt], None]:
        raise TypeError(f"cannot print a {cls.__name__} statement")


_PRINTERS: dict[type, Callable[[_Writer, gast.stmt], None]] = _Printers(
    {cls: getattr(_Writer, name) for cls, name in _STATEMENTS.items()}
)
