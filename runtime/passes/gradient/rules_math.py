"""Vector-Jacobian products of elementwise math, reductions, products and linear algebra.

A rule gets the transform (`t`, whose `em` emits nodes), the forward node and
the gradient `g` of its output, and returns `(input node, its gradient)`
pairs. Elementwise rules are written with ordinary ops, so the backward pass
of `y = np.tanh(x)` is the node `g * (1 - y * y)`; each binary result is
summed back to its input's shape (`sum_to`), which undoes broadcasting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.ir.graph import Node
from runtime.ops.arguments import bind_arguments
from runtime.ops.calls import resolve_call

__all__ = ["MATH_RULES", "call_args", "PIECEWISE_CONSTANT"]

Pairs = list[tuple[Node, Any]]

# Ops whose result does not change under small changes of a float input: no gradient (None).
PIECEWISE_CONSTANT = frozenset({
    "sign", "floor", "ceil", "rint", "trunc", "round", "around", "fix", "floor_divide", "argmax",
    "argmin", "argsort", "nanargmax", "nanargmin", "equal", "not_equal", "less", "less_equal",
    "greater", "greater_equal", "isnan", "isinf", "isfinite", "signbit", "logical_and", "logical_or",
    "logical_not", "logical_xor", "isclose", "searchsorted", "digitize", "count_nonzero", "any", "all",
    "zeros_like", "ones_like", "full_like", "empty_like", "shape", "size", "ndim", "heaviside",
    "spacing", "nextafter", "bincount", "nonzero", "argwhere", "flatnonzero",
})


def call_args(node: Node) -> tuple[tuple, dict]:
    """The forward call's (args, kwargs), with input Nodes in place and literals as Python values."""
    return resolve_call(node.inputs, node.attrs)


def _nodes(*pairs: tuple[Any, Any]) -> Pairs:
    return [(x, g) for x, g in pairs if isinstance(x, Node) and g is not None]


def _unary(derivative: Callable[[Any, Node, Node, Node], Node]):
    """A rule for y = f(x): `derivative(em, x, y, g)` is the gradient of x."""

    def rule(t, node: Node, g: Node) -> Pairs:
        args, kwargs = call_args(node)
        _refuse_kwargs(node, kwargs)
        x = args[0]
        if not _wants(x):
            return []
        return [(x, t.em.call("sum_to", derivative(t.em, x, node, g), x))]

    return rule


def _wants(x: Any) -> bool:
    """Whether `x` is an input that takes a gradient (a float node)."""
    return isinstance(x, Node) and x.type.dtype.kind in "fc"


def _refuse_kwargs(node: Node, kwargs: dict) -> None:
    extra = set(kwargs) - {"dtype", "casting", "order"}
    if extra:
        from runtime.passes.gradient.errors import not_differentiable

        raise not_differentiable(node, f"with {', '.join(sorted(extra))}=")


def _binary(rule_a, rule_b):
    """A rule for y = f(a, b); each side's gradient is summed back to that side's shape."""

    def rule(t, node: Node, g: Node) -> Pairs:
        args, kwargs = call_args(node)
        _refuse_kwargs(node, kwargs)
        a, b = args[0], args[1]
        pairs = []
        if _wants(a) and rule_a is not None:
            pairs.append((a, t.em.call("sum_to", rule_a(t.em, a, b, node, g), a)))
        if _wants(b) and rule_b is not None:
            pairs.append((b, t.em.call("sum_to", rule_b(t.em, a, b, node, g), b)))
        return pairs

    return rule


def _c(em, *args):
    return em.call(*args)


LN2 = float(np.log(2.0))
LN10 = float(np.log(10.0))

UNARY = {
    "negative": lambda em, x, y, g: em.call("negative", g),
    "positive": lambda em, x, y, g: g,
    "exp": lambda em, x, y, g: em.call("multiply", g, y),
    "exp2": lambda em, x, y, g: em.call("multiply", g, em.call("multiply", y, LN2)),
    "expm1": lambda em, x, y, g: em.call("multiply", g, em.call("add", y, 1.0)),
    "log": lambda em, x, y, g: em.call("divide", g, x),
    "log2": lambda em, x, y, g: em.call("divide", g, em.call("multiply", x, LN2)),
    "log10": lambda em, x, y, g: em.call("divide", g, em.call("multiply", x, LN10)),
    "log1p": lambda em, x, y, g: em.call("divide", g, em.call("add", x, 1.0)),
    "sqrt": lambda em, x, y, g: em.call("divide", g, em.call("multiply", y, 2.0)),
    "cbrt": lambda em, x, y, g: em.call("divide", g, em.call("multiply", em.call("multiply", y, y), 3.0)),
    "square": lambda em, x, y, g: em.call("multiply", g, em.call("multiply", x, 2.0)),
    "reciprocal": lambda em, x, y, g: em.call("negative", em.call("multiply", g, em.call("multiply", y, y))),
    "sin": lambda em, x, y, g: em.call("multiply", g, em.call("cos", x)),
    "cos": lambda em, x, y, g: em.call("negative", em.call("multiply", g, em.call("sin", x))),
    "tan": lambda em, x, y, g: em.call("multiply", g, em.call("add", em.call("multiply", y, y), 1.0)),
    "arcsin": lambda em, x, y, g: em.call("divide", g, em.call("sqrt", em.call("subtract", 1.0, em.call("multiply", x, x)))),
    "arccos": lambda em, x, y, g: em.call("negative", em.call("divide", g, em.call("sqrt", em.call("subtract", 1.0, em.call("multiply", x, x))))),
    "arctan": lambda em, x, y, g: em.call("divide", g, em.call("add", em.call("multiply", x, x), 1.0)),
    "sinh": lambda em, x, y, g: em.call("multiply", g, em.call("cosh", x)),
    "cosh": lambda em, x, y, g: em.call("multiply", g, em.call("sinh", x)),
    "tanh": lambda em, x, y, g: em.call("multiply", g, em.call("subtract", 1.0, em.call("multiply", y, y))),
    "arcsinh": lambda em, x, y, g: em.call("divide", g, em.call("sqrt", em.call("add", em.call("multiply", x, x), 1.0))),
    "arccosh": lambda em, x, y, g: em.call("divide", g, em.call("sqrt", em.call("subtract", em.call("multiply", x, x), 1.0))),
    "arctanh": lambda em, x, y, g: em.call("divide", g, em.call("subtract", 1.0, em.call("multiply", x, x))),
    "absolute": lambda em, x, y, g: em.call("multiply", g, em.call("sign", x)),
    "fabs": lambda em, x, y, g: em.call("multiply", g, em.call("sign", x)),
    "conjugate": lambda em, x, y, g: g,
}


def _pow_b(em, a, b, y, g):
    """d(a ** b)/db = y * log(a), taken as 0 where a <= 0 (as TensorFlow does)."""
    positive = em.call("greater", a, 0)
    safe = em.call("where", positive, a, 1)
    return em.call("multiply", g, em.call("multiply", y, em.call("log", safe)))


def _pow_a(em, a, b, y, g):
    if isinstance(b, (int, float)) and not isinstance(b, bool):  # a literal exponent: b - 1 is known now
        if b == 2:
            return em.call("multiply", g, em.call("multiply", a, 2.0))
        return em.call("multiply", g, em.call("multiply", em.call("power", a, b - 1), float(b)))
    return em.call("multiply", g, em.call("multiply", b, em.call("power", a, em.call("subtract", b, 1))))


def _select(test: str):
    """maximum/minimum: the gradient goes to the side that was chosen (the first on ties)."""

    def side_a(em, a, b, y, g):
        return em.call("where", em.call(test, a, b), g, 0)

    def side_b(em, a, b, y, g):
        return em.call("where", em.call(test, a, b), 0, g)

    return side_a, side_b


def _sq_sum(em, a, b):
    return em.call("add", em.call("multiply", a, a), em.call("multiply", b, b))


BINARY = {
    "add": (lambda em, a, b, y, g: g, lambda em, a, b, y, g: g),
    "subtract": (lambda em, a, b, y, g: g, lambda em, a, b, y, g: em.call("negative", g)),
    "multiply": (lambda em, a, b, y, g: em.call("multiply", g, b), lambda em, a, b, y, g: em.call("multiply", g, a)),
    "divide": (lambda em, a, b, y, g: em.call("divide", g, b),
               lambda em, a, b, y, g: em.call("negative", em.call("divide", em.call("multiply", g, y), b))),
    "true_divide": None,
    "power": (_pow_a, _pow_b),
    "float_power": (_pow_a, _pow_b),
    "maximum": _select("greater_equal"),
    "fmax": _select("greater_equal"),
    "minimum": _select("less_equal"),
    "fmin": _select("less_equal"),
    "arctan2": (lambda em, a, b, y, g: em.call("divide", em.call("multiply", g, b), _sq_sum(em, a, b)),
                lambda em, a, b, y, g: em.call("negative", em.call("divide", em.call("multiply", g, a), _sq_sum(em, a, b)))),
    "hypot": (lambda em, a, b, y, g: em.call("multiply", g, em.call("divide", a, y)),
              lambda em, a, b, y, g: em.call("multiply", g, em.call("divide", b, y))),
    "logaddexp": (lambda em, a, b, y, g: em.call("multiply", g, em.call("exp", em.call("subtract", a, y))),
                  lambda em, a, b, y, g: em.call("multiply", g, em.call("exp", em.call("subtract", b, y)))),
    "remainder": (lambda em, a, b, y, g: g,
                  lambda em, a, b, y, g: em.call("negative", em.call("multiply", g, em.call("floor_divide", a, b)))),
    "fmod": (lambda em, a, b, y, g: g,
             lambda em, a, b, y, g: em.call("negative", em.call("multiply", g, em.call("trunc", em.call("divide", a, b))))),
    "copysign": (lambda em, a, b, y, g: em.call("multiply", g, em.call("multiply", em.call("sign", a), em.call("sign", y))), None),
}
BINARY["true_divide"] = BINARY["divide"]
BINARY["mod"] = BINARY["remainder"]


# -- reductions -------------------------------------------------------------------
def _reduction(kind: str, fn: Callable):
    def rule(t, node: Node, g: Node) -> Pairs:
        args, kwargs = call_args(node)
        bound = bind_arguments(fn, args, kwargs)
        x = next(iter(bound.values()))
        if not isinstance(x, Node):
            return []
        if bound.get("where") is not None or bound.get("initial") is not None:
            from runtime.passes.gradient.errors import not_differentiable

            raise not_differentiable(node, "with where= or initial=")
        attrs = {"kind": kind, "axis": _axis(bound.get("axis")), "keepdims": bool(bound.get("keepdims", False)),
                 "ddof": int(bound.get("ddof", 0) or 0)}
        return [(x, t.em.node("reduce_grad", (g, x, node), attrs))]

    return rule


def _axis(axis: Any) -> Any:
    if isinstance(axis, list):
        return tuple(axis)
    return axis


def _ufunc_reduce(kind: str):
    def rule(t, node: Node, g: Node) -> Pairs:
        args, kwargs = call_args(node)
        x = args[0]
        axis = args[1] if len(args) > 1 else kwargs.get("axis", 0)
        keepdims = bool(kwargs.get("keepdims", False))
        if not isinstance(x, Node):
            return []
        attrs = {"kind": kind, "axis": _axis(axis), "keepdims": keepdims, "ddof": 0}
        return [(x, t.em.node("reduce_grad", (g, x, node), attrs))]

    return rule


def _scan(helper: str, fn: Callable):
    def rule(t, node: Node, g: Node) -> Pairs:
        args, kwargs = call_args(node)
        bound = bind_arguments(fn, args, kwargs)
        x = next(iter(bound.values()))
        if not isinstance(x, Node):
            return []
        return [(x, t.em.node(helper, (g, x), {"axis": bound.get("axis")}))]

    return rule


# -- products and linear algebra ----------------------------------------------------
def _product(helper: str):
    def rule(t, node: Node, g: Node) -> Pairs:
        args, _ = call_args(node)
        a, b = args[0], args[1]
        pairs = []
        for which, x in enumerate((a, b)):
            if isinstance(x, Node):
                pairs.append((x, t.em.node(helper, (g, _as_node(t, a), _as_node(t, b)), {"which": which})))
        return pairs

    return rule


def _as_node(t, value: Any) -> Node:
    return value if isinstance(value, Node) else t.em.constant(value)


def _matmul(t, node: Node, g: Node) -> Pairs:
    """Plain ops for ranks 1 and 2 with known ranks (no broadcasting); the helper op otherwise."""
    args, kwargs = call_args(node)
    a, b = args[0], args[1]
    ra = a.type.rank if isinstance(a, Node) else None
    rb = b.type.rank if isinstance(b, Node) else None
    if kwargs or ra not in (1, 2) or rb not in (1, 2) or (ra, rb) == (1, 1):
        return _product("matmul_grad")(t, node, g)
    em = t.em
    pairs = []
    if _wants(a):
        # (m,k)@(k,n): g @ b.T; (k,)@(k,n): b @ g; (m,k)@(k,): outer(g, b)
        ga = em.call("matmul", g, em.invariant("transpose", b)) if rb == 2 else em.call("outer", g, b)
        pairs.append((a, ga))
    if _wants(b):
        gb = em.call("matmul", em.invariant("transpose", a), g) if ra == 2 else em.call("outer", a, g)
        pairs.append((b, gb))
    return pairs


def _inner(t, node: Node, g: Node) -> Pairs:
    """np.inner(a, b) is einsum over the last axes."""
    args, _ = call_args(node)
    a, b = (_as_node(t, v) for v in args[:2])
    if a.type.rank is None or b.type.rank is None:
        from runtime.passes.gradient.errors import not_differentiable

        raise not_differentiable(node, "of operands of unknown rank")
    la, lb = "abcdefgh"[: a.type.rank - 1], "ijklmnop"[: b.type.rank - 1]
    spec = f"{la}z,{lb}z->{la}{lb}"
    return _einsum_pairs(t, spec, (a, b), g, args[:2])


def _outer(t, node: Node, g: Node) -> Pairs:
    args, _ = call_args(node)
    a, b = (t.em.call("ravel", _as_node(t, v)) for v in args[:2])
    pairs = []
    if isinstance(args[0], Node):
        pairs.append((args[0], t.em.call("reshape_like", t.em.call("matmul", g, b), args[0])))
    if isinstance(args[1], Node):
        pairs.append((args[1], t.em.call("reshape_like", t.em.call("matmul", a, g), args[1])))
    return pairs


def _einsum(t, node: Node, g: Node) -> Pairs:
    args, kwargs = call_args(node)
    subscripts, operands = args[0], args[1:]
    if not isinstance(subscripts, str) or "..." in subscripts or any(k != "optimize" for k in kwargs):
        from runtime.passes.gradient.errors import not_differentiable

        raise not_differentiable(node, "with ellipses, operand lists or extra arguments")
    spec = subscripts.replace(" ", "")
    if "->" not in spec:
        letters = spec.replace(",", "")
        spec += "->" + "".join(sorted(ch for ch in set(letters) if letters.count(ch) == 1))
    for part in spec.split("->")[0].split(","):
        if len(set(part)) != len(part):
            from runtime.passes.gradient.errors import not_differentiable

            raise not_differentiable(node, "with a repeated index inside one operand (a diagonal)")
    return _einsum_pairs(t, spec, tuple(_as_node(t, o) for o in operands), g, operands)


def _einsum_pairs(t, spec: str, nodes: tuple, g: Node, originals) -> Pairs:
    pairs = []
    for which, original in enumerate(originals):
        if isinstance(original, Node):
            pairs.append((original, t.em.node(
                "einsum_grad", (g, *nodes), {"subscripts": spec, "which": which},
                type_=original.type,
            )))
    return pairs


def _tensordot(t, node: Node, g: Node) -> Pairs:
    """np.tensordot as the einsum it is."""
    args, kwargs = call_args(node)
    a, b = (_as_node(t, v) for v in args[:2])
    axes = args[2] if len(args) > 2 else kwargs.get("axes", 2)
    ra, rb = a.type.rank, b.type.rank
    if isinstance(axes, int):
        axes = (tuple(range(ra - axes, ra)), tuple(range(axes)))
    xa, xb = ([axes[0]] if isinstance(axes[0], int) else list(axes[0])), ([axes[1]] if isinstance(axes[1], int) else list(axes[1]))
    la = list("abcdefghijkl"[:ra])
    lb = list("mnopqrstuvwx"[:rb])
    for i, j in zip(xa, xb):
        lb[j % rb] = la[i % ra]
    out = [c for k, c in enumerate(la) if k not in [i % ra for i in xa]]
    out += [c for k, c in enumerate(lb) if k not in [j % rb for j in xb]]
    spec = f"{''.join(la)},{''.join(lb)}->{''.join(out)}"
    return _einsum_pairs(t, spec, (a, b), g, args[:2])


def _inv(t, node: Node, g: Node) -> Pairs:
    (a,), _ = call_args(node)
    return [(a, t.em.node("inv_grad", (g, node), {}))]


def _solve(t, node: Node, g: Node) -> Pairs:
    args, _ = call_args(node)
    a, b = args[0], args[1]
    pairs = []
    an, bn = _as_node(t, a), _as_node(t, b)
    if isinstance(a, Node):
        pairs.append((a, t.em.node("solve_grad", (g, an, node), {"which": 0}, type_=an.type)))
    if isinstance(b, Node):
        pairs.append((b, t.em.node("solve_grad", (g, an, node), {"which": 1}, type_=bn.type)))
    return pairs


def _det(t, node: Node, g: Node) -> Pairs:
    (a,), _ = call_args(node)
    return [(a, t.em.node("det_grad", (g, a, node), {}))]


def _norm(t, node: Node, g: Node) -> Pairs:
    args, kwargs = call_args(node)
    bound = bind_arguments(np.linalg.norm, args, kwargs)
    x, order = bound["x"], bound.get("ord")
    rank = x.type.rank
    axis = _axis(bound.get("axis"))
    vector_like = axis is None or isinstance(axis, int) or rank == 1
    if order not in (None, "fro", 2) or (order == 2 and not vector_like):
        from runtime.passes.gradient.errors import not_differentiable

        raise not_differentiable(node, f"with ord={order!r} (the 2-norm and the Frobenius norm differentiate)")
    attrs = {"axis": axis, "keepdims": bool(bound.get("keepdims", False))}
    return [(x, t.em.node("norm_grad", (g, x, node), attrs))]


def _cast(t, node: Node, g: Node) -> Pairs:
    x = node.inputs[0]
    if x.type.dtype.kind not in "fc":
        return []
    if g.type.dtype.kind == "c" and x.type.dtype.kind != "c":
        g = t.em.call("real", g)  # a real value made complex: its gradient is the real part
    return [(x, t.em.cast_like(g, x))]


MATH_RULES: dict[str, Callable] = {name: _unary(fn) for name, fn in UNARY.items()}
MATH_RULES["abs"] = MATH_RULES["absolute"]
MATH_RULES.update({name: _binary(*pair) for name, pair in BINARY.items()})
for _kind, _names in {
    "sum": ("sum", "nansum"), "mean": ("mean",), "prod": ("prod",), "max": ("max", "amax"),
    "min": ("min", "amin"), "var": ("var",), "std": ("std",),
}.items():
    for _name in _names:
        MATH_RULES[_name] = _reduction(_kind, getattr(np, _name))
MATH_RULES.update({
    "add_reduce": _ufunc_reduce("sum"), "multiply_reduce": _ufunc_reduce("prod"),
    "maximum_reduce": _ufunc_reduce("max"), "minimum_reduce": _ufunc_reduce("min"),
    "cumsum": _scan("cumsum_grad", np.cumsum), "cumprod": _scan("cumprod_grad", np.cumprod),
    "matmul": _matmul, "dot": _product("dot_grad"), "inner": _inner, "outer": _outer,
    "einsum": _einsum, "tensordot": _tensordot, "linalg_inv": _inv, "linalg_solve": _solve,
    "linalg_det": _det, "linalg_norm": _norm, "cast": _cast,
})
