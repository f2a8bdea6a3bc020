"""item_assignment: `x[key] = value` and `x[key] op= value` rebind `x` to `ag__.setitem(...)`.

    out[i] = v          ->  out = ag__.setitem(out, i, v)
    out[i:j] += v       ->  out = ag__.setitem(out, ag__.slice_(i, j, None), lambda: v, '+')
    p[0] = 1            ->  p = ag__.setitem(p, 0, 1, None, "'p', a parameter (...)")

Rebinding makes the update an ordinary assignment of `x`, which control flow
then carries through loops and branches. A staged update is a new array,
faithful only when nothing else shares `x`'s memory, so this pass proves,
from the function's text, that `x` is the function's own: every binding of
`x` makes a new array (`np.zeros(...)`, `np.array(...)`, `.copy()`,
arithmetic), and every use of `x` reads values without keeping them (an
operand, an argument of a NumPy function that copies, `x.shape`, `return x`).
Otherwise the reason is passed along and a staged write is refused
(runtime.operators.item_assignment); Python mode is always the plain
statement. Names the function does not bind (globals, closure values) and
targets other than a plain name (`self.a[i]`, `x[i][j]`) are left as written.
"""

from __future__ import annotations

import gast
import numpy as np

from autograph.converters.captured_subscripts import _key
from autograph.source.origins import inherit_location
from autograph.source.templates import constant, load_name, replace

__all__ = ["ItemAssignments"]

_NUMPY = frozenset({"np", "numpy"})
# NumPy functions whose result is a new array (never a view of an argument)
_FRESH = frozenset({
    "zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like", "array", "copy",
    "arange", "eye", "identity", "linspace", "logspace", "geomspace", "concatenate", "stack", "hstack", "vstack",
    "column_stack", "tile", "repeat", "outer", "dot", "matmul", "where", "cumsum", "cumprod", "sort", "diff",
    "append", "pad", "kron", "einsum", "tri", "triu", "tril", "meshgrid", "clip", "round", "abs", "exp", "log",
    "sqrt", "sin", "cos", "tanh", "maximum", "minimum", "add", "subtract", "multiply", "divide",
    *(name for name, value in vars(np).items() if isinstance(value, np.ufunc)),  # (without out=) new arrays
})
# NumPy functions that may return a view of an argument (or the argument itself)
_VIEWS = frozenset({
    "asarray", "asanyarray", "ascontiguousarray", "reshape", "ravel", "transpose", "squeeze", "expand_dims",
    "swapaxes", "moveaxis", "rollaxis", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_to",
    "broadcast_arrays", "diagonal", "real", "imag", "flip", "fliplr", "flipud", "rot90", "split", "array_split",
    "hsplit", "vsplit", "dsplit", "matrix_transpose", "permute_dims", "unstack", "nditer", "lib",
})
_FRESH_METHODS = frozenset({"copy", "astype", "flatten"})
# methods and attributes that read values without keeping the array (never a view)
_READING_METHODS = frozenset({
    "copy", "astype", "flatten", "sum", "mean", "max", "min", "std", "var", "prod", "any", "all", "argmax",
    "argmin", "item", "tolist", "dot", "cumsum", "cumprod", "round", "clip", "nonzero", "argsort", "trace", "take",
    "conj", "ptp", "__len__",
    # a list's or dict's own methods, which keep no reference to it (not keys/values/items: views)
    "append", "extend", "insert", "pop", "remove", "index", "count", "reverse", "clear", "get", "update",
    "setdefault", "popitem",
})
_READING_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "size", "itemsize", "nbytes"})
_READING_BUILTINS = frozenset({
    "print", "len", "float", "int", "bool", "abs", "str", "repr", "format", "isinstance", "dict",  # dict(x): a new dict
})
_OPERATORS = {
    gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.FloorDiv: "//", gast.Mod: "%",
    gast.Pow: "**", gast.MatMult: "@", gast.BitAnd: "&", gast.BitOr: "|", gast.BitXor: "^",
    gast.LShift: "<<", gast.RShift: ">>",
}
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def _target_name(target: gast.expr) -> str | None:
    if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
        return target.value.id
    return None


def _is_numpy_call(node: gast.AST, names: frozenset[str]) -> bool:
    func = node.func if isinstance(node, gast.Call) else None
    return (
        isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
        and func.value.id in _NUMPY and func.attr in names
    )


def _appends(value: gast.AST, name: str) -> bool:
    """`ag__.list_append(name, v)`, the lists pass's `name.append(v)`: the same list, grown in place."""
    func = value.func if isinstance(value, gast.Call) else None
    return (
        isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and func.value.id == "ag__"
        and func.attr == "list_append" and bool(value.args) and isinstance(value.args[0], gast.Name)
        and value.args[0].id == name
    )


def _fresh(value: gast.expr) -> bool:
    """Whether `value` makes a new array (or list or dict), which no other name holds."""
    if isinstance(value, (gast.BinOp, gast.UnaryOp, gast.List, gast.Dict, gast.ListComp, gast.DictComp)):
        return True
    if isinstance(value, gast.Call):
        if _is_numpy_call(value, _FRESH) or isinstance(value.func, gast.Name) and value.func.id in ("list", "dict"):
            return True
        func = value.func
        return isinstance(func, gast.Attribute) and func.attr in _FRESH_METHODS
    return False


class ItemAssignments:
    """The rewrites of item assignments in one function, with why each name may not be its own."""

    def __init__(self, fn: gast.FunctionDef, first_line: int = 1) -> None:
        self.reasons: dict[str, str | None] = {}
        self.row_reasons: dict[str, str] = {}  # refusals that hold only when the array is not a vector
        self.offset = first_line - 1  # tree lines count from the function's first line
        written = self._written(fn)
        if not written:
            return
        parents: dict[gast.AST, gast.AST] = {}
        stores: dict[str, list[gast.Name]] = {name: [] for name in written}
        loads: dict[str, list[gast.Name]] = {name: [] for name in written}
        declared: set[str] = set()
        nested: set[str] = set()
        self._walk(fn, parents, stores, loads, declared, nested, inside=False)
        args = fn.args
        params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]}
        for name in written:
            if name in declared or (name not in params and not stores[name]):
                continue  # a global or closure value: left as written
            if name in params and self._copied_first(fn, name):
                params = params - {name}  # `x = x.copy()` before any other use: the function's own from there
            self.reasons[name] = self._reason(name, params, stores[name], loads[name], nested, parents)

    @staticmethod
    def _copied_first(fn: gast.FunctionDef, name: str) -> bool:
        """Whether the first top-level statement that mentions `name` rebinds it to a new array."""
        for stmt in fn.body:
            if not any(isinstance(n, gast.Name) and n.id == name for n in gast.walk(stmt)):
                continue
            return (
                isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and stmt.targets[0].id == name and _fresh(stmt.value)
            )
        return False

    @staticmethod
    def _written(fn: gast.FunctionDef) -> set[str]:
        names = set()
        for node in gast.walk(fn):
            if isinstance(node, gast.Assign) and len(node.targets) == 1:
                name = _target_name(node.targets[0])
            elif isinstance(node, gast.AugAssign):
                name = _target_name(node.target)
            else:
                continue
            if name is not None:
                names.add(name)
        return names

    def _walk(self, node, parents, stores, loads, declared, nested, inside: bool) -> None:
        for child in gast.iter_child_nodes(node):
            parents[child] = node
            if isinstance(child, (gast.Global, gast.Nonlocal)):
                declared.update(child.names)
            if isinstance(child, gast.Name) and child.id in stores:
                if inside:
                    nested.add(child.id)
                elif isinstance(child.ctx, gast.Store):
                    stores[child.id].append(child)
                elif isinstance(child.ctx, gast.Load):
                    loads[child.id].append(child)
            self._walk(child, parents, stores, loads, declared, nested, inside or isinstance(child, _SCOPES))

    def _reason(self, name, params, stores, loads, nested, parents) -> str | None:
        if name in params:
            return (f"'{name}', a parameter (NumPy would write into the caller's array). Copy it first, as the "
                    f"function's first use of it: {name} = {name}.copy()")
        if name in nested:
            return f"'{name}', which a nested function or lambda uses (and could keep). Write into a copy: y = {name}.copy()"
        for store in stores:
            parent = parents.get(store)
            line = self._line(store, parents)
            if isinstance(parent, gast.Assign) and parent.targets == [store]:
                if not _fresh(parent.value) and not _appends(parent.value, name):
                    return (f"'{name}', which line {line} binds to a value that may share memory with another "
                            f"(only np.zeros/np.array/.copy()/arithmetic results and the like are the function's own). "
                    f"Copy it there: {name} = (...).copy()")
            elif not isinstance(parent, gast.AugAssign):
                return (f"'{name}', which line {line} binds by a loop, an unpacking or a with statement (it may be "
                        f"a view). Write into a copy: y = {name}.copy()")
        for load in loads:
            if self._an_item_bound(load, parents):
                line = self._line(load, parents)
                self.row_reasons.setdefault(name, (
                    f"'{name}', whose row line {line} binds to a name (a view of {name}'s memory when {name} has "
                    f"two or more dimensions, which NumPy's write would change too). Bind a copy there "
                    f"({name}[i].copy()), or write into a copy of {name}"))
                continue
            if not self._reads_only(load, parents):
                line = self._line(load, parents)
                return (f"'{name}', which line {line} shares with another name or object (as is, or a view of "
                        f"part of it), which NumPy's write would change too. Share a copy there ({name}.copy(), "
                        f"{name}[i].copy()), or write into a copy of {name}")
        return None

    def _line(self, node, parents) -> object:
        while node is not None and getattr(node, "lineno", None) is None:
            node = parents.get(node)
        line = getattr(node, "lineno", None)
        return "?" if line is None else line + self.offset

    @staticmethod
    def _an_item_bound(node: gast.AST, parents) -> bool:
        """`y = x[i]` with one index: a scalar of a vector (a copy), but a row (a view) of a matrix."""
        sub = parents.get(node)
        if not (isinstance(sub, gast.Subscript) and sub.value is node and isinstance(sub.ctx, gast.Load)):
            return False
        if isinstance(sub.slice, (gast.Slice, gast.Tuple)):
            return False
        assign = parents.get(sub)
        return isinstance(assign, gast.Assign) and assign.value is sub and all(
            isinstance(t, gast.Name) for t in assign.targets)

    def _reads_only(self, node: gast.AST, parents) -> bool:
        """Whether this use of the array reads its values without keeping the array or a view of it."""
        parent = parents.get(node)
        if isinstance(parent, (gast.BinOp, gast.UnaryOp, gast.Compare)):
            return True
        if isinstance(parent, gast.Subscript):
            if parent.value is not node:
                return True  # used as an index: NumPy copies
            if isinstance(parent.ctx, gast.Store):
                return True  # the item assignment itself
            return self._reads_only(parent, parents)
        if isinstance(parent, gast.Attribute):
            if parent.attr in _READING_ATTRIBUTES:
                return True
            call = parents.get(parent)
            return parent.attr in _READING_METHODS and isinstance(call, gast.Call) and call.func is parent
        if isinstance(parent, gast.keyword):
            parent, node = parents.get(parent), parent
        if isinstance(parent, gast.Call) and node is not parent.func:
            assign = parents.get(parent)
            if isinstance(node, gast.Name) and _appends(parent, node.id) and isinstance(assign, gast.Assign) and [
                    t.id for t in assign.targets if isinstance(t, gast.Name)] == [node.id]:
                return True  # `x = ag__.list_append(x, v)`: x grown in place, rebound to itself
            func = parent.func
            if _is_numpy_call(parent, _VIEWS):
                return False
            if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and func.value.id in _NUMPY:
                return True
            if isinstance(func, gast.Attribute) and func.attr == "print":
                return True  # ag.print
            return isinstance(func, gast.Name) and func.id in _READING_BUILTINS
        if isinstance(parent, gast.Return):
            return True
        if isinstance(parent, gast.Tuple) and isinstance(parents.get(parent), gast.Return):
            return True
        if isinstance(parent, gast.Assign) and node is parent.value:
            return all(isinstance(t, gast.Subscript) for t in parent.targets)  # values copied into an array
        if isinstance(parent, gast.AugAssign) and node is parent.value:
            return True
        if isinstance(parent, (gast.If, gast.While, gast.IfExp)) and node is parent.test:
            return True
        return False

    # -- the rewrites ----------------------------------------------------------
    def assign(self, node: gast.Assign) -> gast.AST:
        name = _target_name(node.targets[0]) if len(node.targets) == 1 else None
        if name is None or name not in self.reasons:
            return node
        return self._rewrite(node, node.targets[0], node.value, None)

    def aug_assign(self, node: gast.AugAssign) -> gast.AST:
        name = _target_name(node.target)
        if name is None or name not in self.reasons or type(node.op) not in _OPERATORS:
            return node
        return self._rewrite(node, node.target, node.value, _OPERATORS[type(node.op)])

    def _rewrite(self, node: gast.stmt, target: gast.Subscript, value: gast.expr, op: str | None) -> gast.AST:
        name = target.value.id
        reason, rows = self.reasons[name], self.row_reasons.get(name)
        key = _key(target.slice)
        inherit_location([key], node)
        extra = ", op, reason, rows" if rows is not None and reason is None else (
            "" if op is None and reason is None else ", op, reason")
        # x[k] op= v: Python reads x[k] before it evaluates v (an IndexError comes before v's errors)
        deferred = op is not None and not isinstance(value, gast.Constant) and not any(
            isinstance(n, gast.NamedExpr) for n in gast.walk(value))
        (stmt,) = replace(
            f"name = ag__.setitem(array, key, {'lambda: value' if deferred else 'value'}{extra})", node,
            name=load_name(name, gast.Store()), array=load_name(name), key=key, value=value,
            op=constant(op), reason=constant(reason), rows=constant(rows),
        )
        return stmt
