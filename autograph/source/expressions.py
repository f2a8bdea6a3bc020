"""Expressions: a gast expression as text, parenthesised exactly where `ast.unparse` would.

Every printer takes the precedence its context demands and wraps itself in
parentheses when it binds more loosely:

    BinOp(a + b) at TERM (the left of `*`)   ->  (a + b) * c
    Tuple at TEST (a return value)           ->  return (a, b)
    Tuple at TUPLE (an assignment target)    ->  a, b = b, a

A context that demands nothing gives TEST. The quirks of `ast.unparse` are
kept on purpose (a value of `a or b or not c` is parenthesised, a walrus's
operands are atoms), so converted text is the same whichever printed it.
"""

from __future__ import annotations

from collections.abc import Callable

import gast

from autograph.source import literals

__all__ = ["Expressions", "ATOM", "BOR", "EXPR", "TEST", "TUPLE", "YIELD"]

NAMED_EXPR, TUPLE, YIELD, TEST, OR, AND, NOT, CMP = 1, 2, 3, 4, 5, 6, 7, 8
EXPR = BOR = 9
BXOR, BAND, SHIFT, ARITH, TERM, FACTOR, POWER, AWAIT, ATOM = 10, 11, 12, 13, 14, 15, 16, 17, 18

_BINOPS = {
    gast.Add: ("+", ARITH), gast.Sub: ("-", ARITH), gast.Mult: ("*", TERM), gast.MatMult: ("@", TERM),
    gast.Div: ("/", TERM), gast.Mod: ("%", TERM), gast.FloorDiv: ("//", TERM), gast.LShift: ("<<", SHIFT),
    gast.RShift: (">>", SHIFT), gast.BitOr: ("|", BOR), gast.BitXor: ("^", BXOR), gast.BitAnd: ("&", BAND),
    gast.Pow: ("**", POWER),
}  # fmt: skip
_UNARY = {gast.Not: ("not ", NOT), gast.Invert: ("~", FACTOR), gast.UAdd: ("+", FACTOR), gast.USub: ("-", FACTOR)}
_COMPARE = {
    gast.Eq: " == ", gast.NotEq: " != ", gast.Lt: " < ", gast.LtE: " <= ", gast.Gt: " > ", gast.GtE: " >= ",
    gast.Is: " is ", gast.IsNot: " is not ", gast.In: " in ", gast.NotIn: " not in ",
}  # fmt: skip


_NAME = gast.Name
_REPR_SPELLED = frozenset({str, int, bool, type(None)})


def _wrap(text: str, needed: bool) -> str:
    return f"({text})" if needed else text


def _items(parts: list[str]) -> str:
    """Comma-separated; a single item keeps its trailing comma (a one-tuple)."""
    return parts[0] + "," if len(parts) == 1 else ", ".join(parts)


class Expressions:
    """Prints expressions; `avoid_backslashes` for the inside of an f-string's replacement field."""

    def __init__(self, avoid_backslashes: bool = False) -> None:
        self.avoid_backslashes = avoid_backslashes
        self._inner: Expressions | None = None

    def text(self, node: gast.AST, prec: int = TEST) -> str:
        """`node` printed where the context demands `prec`.

        A method, not `__call__`: calling an instance goes through its type's
        call slot, about three times the cost of a method call, and this runs
        for every expression printed.
        """
        if type(node) is _NAME:  # close to half of all expressions: printed without a printer call
            return node.id
        return _PRINTERS[type(node)](self, node, prec)

    def _name(self, node: gast.Name, prec: int) -> str:
        return node.id

    def _constant(self, node: gast.Constant, prec: int) -> str:
        value = node.value
        spelled = getattr(node, "spelling", None)  # a number as the user wrote it (source/spelling.py)
        if spelled is not None:
            return spelled
        if type(value) in _REPR_SPELLED and not self.avoid_backslashes and getattr(node, "kind", None) is None:
            return repr(value)  # most constants: spelled as literals.constant spells them, with less asking
        if isinstance(value, tuple):
            return "(" + _items([literals.constant(v, self.avoid_backslashes) for v in value]) + ")"
        if value is ...:
            return "..."
        prefix = "u" if getattr(node, "kind", None) == "u" else ""
        return prefix + literals.constant(value, self.avoid_backslashes)

    def _attribute(self, node: gast.Attribute, prec: int) -> str:
        value = node.value
        space = " " if isinstance(value, gast.Constant) and isinstance(value.value, int) else ""
        return f"{self.text(value, ATOM)}{space}.{node.attr}"

    def _call(self, node: gast.Call, prec: int) -> str:
        parts = [self.text(arg) for arg in node.args]
        if node.keywords:
            parts.extend([self._keyword(k, TEST) for k in node.keywords])
        return f"{self.text(node.func, ATOM)}({', '.join(parts)})"

    def keyword(self, node: gast.keyword) -> str:
        """A call's keyword argument (`within=('try', 3)`, `**options`)."""
        return self._keyword(node, TEST)

    def _keyword(self, node: gast.keyword, prec: int) -> str:
        value = self.text(node.value)
        return "**" + value if node.arg is None else f"{node.arg}={value}"

    def _subscript(self, node: gast.Subscript, prec: int) -> str:
        index = node.slice
        if isinstance(index, gast.Tuple) and index.elts:
            inside = _items([self.text(e) for e in index.elts])
        else:
            inside = self.text(index)
        return f"{self.text(node.value, ATOM)}[{inside}]"

    def _slice(self, node: gast.Slice, prec: int) -> str:
        lower = self.text(node.lower) if node.lower else ""
        upper = self.text(node.upper) if node.upper else ""
        return f"{lower}:{upper}:{self.text(node.step)}" if node.step else f"{lower}:{upper}"

    def _starred(self, node: gast.Starred, prec: int) -> str:
        return "*" + self.text(node.value, EXPR)

    def _binop(self, node: gast.BinOp, prec: int) -> str:
        op, own = _BINOPS[type(node.op)]
        left, right = (own + 1, own) if own == POWER else (own, own + 1)
        return _wrap(f"{self.text(node.left, left)} {op} {self.text(node.right, right)}", prec > own)

    def _unaryop(self, node: gast.UnaryOp, prec: int) -> str:
        op, own = _UNARY[type(node.op)]
        return _wrap(op + self.text(node.operand, own), prec > own)

    def _boolop(self, node: gast.BoolOp, prec: int) -> str:
        own, word = (AND, " and ") if isinstance(node.op, gast.And) else (OR, " or ")
        # each later operand demands one more level (as ast.unparse does)
        parts = [self.text(value, min(own + 1 + i, ATOM)) for i, value in enumerate(node.values)]
        return _wrap(word.join(parts), prec > own)

    def _compare(self, node: gast.Compare, prec: int) -> str:
        parts = [self.text(node.left, EXPR)]
        for op, right in zip(node.ops, node.comparators):
            parts.append(_COMPARE[type(op)])
            parts.append(self.text(right, EXPR))
        return _wrap("".join(parts), prec > CMP)

    def _ifexp(self, node: gast.IfExp, prec: int) -> str:
        text = f"{self.text(node.body, OR)} if {self.text(node.test, OR)} else {self.text(node.orelse, TEST)}"
        return _wrap(text, prec > TEST)

    def _namedexpr(self, node: gast.NamedExpr, prec: int) -> str:
        return _wrap(f"{self.text(node.target, ATOM)} := {self.text(node.value, ATOM)}", prec > NAMED_EXPR)

    def _lambda(self, node: gast.Lambda, prec: int) -> str:
        args = self.arguments(node.args)
        head = "lambda " + args if args else "lambda"
        return _wrap(f"{head}: {self.text(node.body, TEST)}", prec > TEST)

    def _await(self, node: gast.Await, prec: int) -> str:
        return _wrap("await " + self.text(node.value, ATOM) if node.value else "await", prec > AWAIT)

    def _yield(self, node: gast.Yield, prec: int) -> str:
        return _wrap("yield " + self.text(node.value, ATOM) if node.value else "yield", prec > YIELD)

    def _yieldfrom(self, node: gast.YieldFrom, prec: int) -> str:
        return _wrap("yield from " + self.text(node.value, ATOM), prec > YIELD)

    def _tuple(self, node: gast.Tuple, prec: int) -> str:
        if not node.elts:
            return "()"
        return _wrap(_items([self.text(e) for e in node.elts]), prec > TUPLE)

    def _list(self, node: gast.List, prec: int) -> str:
        return "[" + ", ".join([self.text(e) for e in node.elts]) + "]"

    def _set(self, node: gast.Set, prec: int) -> str:
        return "{" + ", ".join([self.text(e) for e in node.elts]) + "}" if node.elts else "{*()}"

    def _dict(self, node: gast.Dict, prec: int) -> str:
        parts = [
            "**" + self.text(v, EXPR) if k is None else f"{self.text(k)}: {self.text(v)}"
            for k, v in zip(node.keys, node.values)
        ]
        return "{" + ", ".join(parts) + "}"

    def _generators(self, generators: list[gast.comprehension]) -> str:
        parts = []
        for gen in generators:
            parts.append(" async for " if gen.is_async else " for ")
            parts.append(f"{self.text(gen.target, TUPLE)} in {self.text(gen.iter, OR)}")
            parts.extend([" if " + self.text(test, OR) for test in gen.ifs])
        return "".join(parts)

    def _listcomp(self, node: gast.ListComp, prec: int) -> str:
        return f"[{self.text(node.elt)}{self._generators(node.generators)}]"

    def _generatorexp(self, node: gast.GeneratorExp, prec: int) -> str:
        return f"({self.text(node.elt)}{self._generators(node.generators)})"

    def _setcomp(self, node: gast.SetComp, prec: int) -> str:
        return f"{{{self.text(node.elt)}{self._generators(node.generators)}}}"

    def _dictcomp(self, node: gast.DictComp, prec: int) -> str:
        return f"{{{self.text(node.key)}: {self.text(node.value)}{self._generators(node.generators)}}}"

    def _joinedstr(self, node: gast.JoinedStr, prec: int) -> str:
        if self._inner is None:
            self._inner = Expressions(avoid_backslashes=True)
        inner = self._inner
        return literals.joined_str(node, lambda value: inner.text(value, OR), self.avoid_backslashes)

    def _formattedvalue(self, node: gast.FormattedValue, prec: int) -> str:
        if self._inner is None:
            self._inner = Expressions(avoid_backslashes=True)
        inner = self._inner
        return literals.field(node, lambda value: inner.text(value, OR))

    def arg(self, node: gast.Name) -> str:
        """A parameter (gast spells it as a Name), with its annotation."""
        annotation = getattr(node, "annotation", None)
        return f"{node.id}: {self.text(annotation)}" if annotation else node.id

    def arguments(self, node: gast.arguments) -> str:
        """A parameter list, without its parentheses."""
        if not (node.posonlyargs or node.defaults or node.vararg or node.kwonlyargs or node.kwarg):
            return ", ".join([self.arg(param) for param in node.args])  # plain names: most generated defs
        parts = []
        positional = node.posonlyargs + node.args
        defaults = [None] * (len(positional) - len(node.defaults)) + node.defaults
        for index, (param, default) in enumerate(zip(positional, defaults), 1):
            text = self.arg(param)
            parts.append(f"{text}={self.text(default)}" if default else text)
            if index == len(node.posonlyargs):
                parts[-1] += ", /"
        if node.vararg or node.kwonlyargs:
            parts.append("*" + self.arg(node.vararg) if node.vararg else "*")
        for param, default in zip(node.kwonlyargs, node.kw_defaults):
            text = self.arg(param)
            parts.append(f"{text}={self.text(default)}" if default else text)
        if node.kwarg:
            parts.append("**" + self.arg(node.kwarg))
        return ", ".join(parts)


# gast class -> the Expressions method that prints it
_PRINTERS: dict[type, Callable[[Expressions, gast.AST, int], str]] = {
    getattr(gast, name): getattr(Expressions, "_" + name.lower())
    for name in (
        "Name Constant Attribute Call Subscript Slice Starred BinOp UnaryOp BoolOp Compare IfExp NamedExpr "
        "Lambda Await Yield YieldFrom Tuple List Set Dict ListComp GeneratorExp SetComp DictComp JoinedStr "
        "FormattedValue"
    ).split()
}
_PRINTERS[gast.keyword] = Expressions._keyword
