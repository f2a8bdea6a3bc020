"""Staged `if`: one cond with both branches traced once (conditional expressions: staged_if_exp).

Each branch runs from the same starting state (`set_state(initial)`, then
the branch, then `get_state()`); the first `nouts` names are the outputs.
Leaves of the outputs are matched between the branches (see staged_state):

- Tensors, and Python numbers that differ between the branches, become cond
  outputs (numbers as constants with NumPy's default dtypes; a Python scalar
  against a Tensor takes the Tensor's dtype when its value fits, as NumPy's
  weak scalars do: `y = x if x > 0 else 0` keeps a float32 `x` float32);
- Python values equal in both branches stay Python (a flag set to the same
  value on both sides stays a Python bool);
- a name bound in one branch only, a None against a Tensor, different
  structures or dtypes: a StagingError naming the variable, the user's line
  and the fix. The converter's return value (`retval...`) bound in one branch
  only is filled with zeros in the other, where it is never read (when only
  the false branch binds it, the cond is traced again on `not cond` with the
  false branch first; Python side effects of the branches then run twice).

The cond traces the branches in order; whichever runs second checks itself
against the first, so errors are raised while tracing, before the cond exists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.ir.errors import AutographError, StagingError
from runtime.ir.origin import Origin, map_location, user_origin
from runtime.operators.in_place import check_unchanged, snapshot
from runtime.operators.staged_state import (
    FlatState,
    describe,
    is_return_value,
    leaf_kind,
    rule_error,
    same_python_value,
    type_of_leaf,
    widening_hint,
    zeros_like_type,
)
from runtime.operators.unbound_in_trace import unbound_read
from runtime.operators.undefined import Undefined
from runtime.tracing.frontend import Frontend, get_frontend

__all__ = ["BRANCH", "branch_error", "stage_branches", "staged_if"]

BRANCH = {True: "true branch", False: "false branch"}
# A staged `a and b` is `b if a else a`, and `a or b` is `a if a else b`: what each side is.
_OPERANDS = {
    "'and'": {True: "right operand", False: "left operand"},
    "'or'": {True: "left operand", False: "right operand"},
}


def staged_if(
    cond: Any,
    body: Callable[[], None],
    orelse: Callable[[], None],
    get_state: Callable[[], tuple],
    set_state: Callable[[tuple], None],
    names: tuple[str, ...],
    nouts: int,
    unread: tuple[tuple[str, ...], tuple[str, ...]] = ((), ()),
) -> None:
    """Stage an if statement whose condition is a Tensor (`unread`: see if_stmt)."""
    origin = user_origin()
    initial = get_state()
    before = snapshot(initial)

    def run(branch: Callable[[], None], side: bool) -> Callable[[], tuple]:
        def outputs() -> tuple:
            set_state(initial)
            try:
                branch()
            except Exception as error:
                raised = branch_error(error, side, origin)
                if raised is None:
                    raise
                raise raised from error
            check_unchanged(names, initial, before, origin)
            return get_state()[:nouts]

        return outputs

    results = stage_branches(cond, run(body, True), run(orelse, False), tuple(names[:nouts]), origin, "if", unread)
    _check_deleted(names[:nouts], initial, results, origin)
    set_state(tuple(results) + tuple(initial[nouts:]))


def _check_deleted(names: tuple[str, ...], initial: tuple, results: tuple, origin: Origin | None) -> None:
    """An output bound before the if that both branches `del`: unbound after it, where it is read.

    Python raises UnboundLocalError at the read; staged, the placeholder would
    flow on to the read (and out of the Function) as a value. The converter
    carries a name out of an if only when the code after it may read it.
    """
    for name, before, after in zip(names, initial, results):
        if isinstance(after, Undefined) and not isinstance(before, Undefined) and not is_return_value(name):
            raise rule_error(
                f"'{name}' is deleted in both branches of a tensor-dependent if, so it is unbound "
                f"after the if, where the code reads it",
                origin, f"Give '{name}' a value again after the if (or in a branch) before reading it, "
                f"or do not read it after the if.",
            )


class _Branches:
    """What the branch traced first produced; the second one is checked against it."""

    def __init__(self, names: tuple[str, ...], origin: Origin | None, what: str, frontend: Frontend,
                 may_swap: bool, unread: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())) -> None:
        self.names, self.origin, self.what, self.frontend = names, origin, what, frontend
        self.unread = {True: frozenset(unread[0]), False: frozenset(unread[1])}
        self.sides = _OPERANDS.get(what, BRANCH)
        self.may_swap = may_swap
        self.first: tuple[bool, FlatState] | None = None
        self.second: FlatState | None = None
        self.kinds: list[str] = []

    def traced(self, side: bool, fn: Callable[[], tuple]) -> Callable[[], tuple]:
        def branch() -> tuple:
            state = FlatState.of(self.names, tuple(fn()), self.frontend)
            if self.first is None:
                self.first = (side, state)
                self.kinds = [leaf_kind(v, self.frontend) for v in state.leaves]
                return tuple(self._first_outputs(state))
            self.second = state
            return tuple(self._second_outputs(side, state))

        return branch

    def _first_outputs(self, state: FlatState) -> list:
        out = []
        for kind, value in zip(self.kinds, state.leaves):
            if kind == "staged":
                out.append(value)
            elif kind == "number":
                out.append(self.frontend.constant(value))
        return out

    def _second_outputs(self, side: bool, state: FlatState) -> list:
        first_side, first = self.first
        self.second = state = self._matched(first, first_side, state, side)
        out = []
        for i, (kind, value) in enumerate(zip(self.kinds, state.leaves)):
            produced = self._leaf_output(i, kind, first.leaves[i], value, first_side, side, state.owners[i])
            if produced is not _NO_OUTPUT:
                out.append(produced)
        return out

    def _matched(self, first: FlatState, first_side: bool, state: FlatState, side: bool) -> FlatState:
        """`state` structured like `first`: a return value bound on one side only is spread
        into unbound leaves; any other difference in structure is an error."""
        name = first.mismatched_name(state)
        while name is not None and self._fillable(name, side):
            spread = state.spread_undefined(name, first.tree_of(name))
            if spread is None:
                if (self.may_swap and self._fillable(name, first_side)
                        and first.spread_undefined(name, state.tree_of(name)) is not None):
                    raise _TraceFalseFirst  # only the false branch returns: it goes first
                break
            state = spread
            name = first.mismatched_name(state)
        if name is None:
            return state
        trees = (f"{first.tree_of(name)} in the {self.sides[first_side]}, "
                 f"{state.tree_of(name)} in the {self.sides[side]}")
        if is_return_value(name):
            raise self._error(
                f"the function returns values of different structures in the two branches of a "
                f"tensor-dependent {self.what} ({trees})",
                "Return values of the same structure on every path (a function that sometimes "
                "falls off the end returns None there).",
            )
        raise self._error(
            f"{self._named(name)} has a different structure in the two branches of a tensor-dependent "
            f"{self.what} ({trees})",
            f"Give {self._named(name)} the same structure (same nesting, same list lengths) in both branches.",
        )

    def _leaf_output(self, i, kind, before, value, first_side, side, name) -> object:
        second_kind = leaf_kind(value, self.frontend)
        if kind in ("staged", "number"):
            if second_kind in ("staged", "number"):
                weak = self._weak_scalar(before, value)
                if weak is not None:
                    return weak
                self._check_types(name, before, value, first_side, side)
                return value if second_kind == "staged" else self.frontend.constant(value)
            if second_kind == "undefined" and self._fillable(name, side):
                return zeros_like_type(type_of_leaf(before, self.frontend), self.frontend)
            if second_kind == "undefined":
                raise self._undefined(name, first_side, before)
            raise self._mixed(name, before, first_side, value, side)
        if kind == "undefined":
            if second_kind == "undefined":
                return _NO_OUTPUT
            if self._fillable(name, first_side) and second_kind in ("staged", "number") and self.may_swap:
                raise _TraceFalseFirst
            raise self._undefined(name, side, value)
        if second_kind == "python" and same_python_value(before, value):
            return _NO_OUTPUT
        if second_kind == "undefined":
            raise self._undefined(name, first_side, before)
        raise self._mixed(name, before, first_side, value, side)

    def _fillable(self, name: str, side: bool) -> bool:
        """Whether `name` may hold zeros where the `side` branch leaves it unbound: nothing reads
        it there (the converter's return value, or a name in `unread`, see if_stmt)."""
        return is_return_value(name) or name in self.unread[side]

    def _weak_scalar(self, before: Any, value: Any) -> Any:
        """A Python scalar against a Tensor takes the Tensor's dtype, as in NumPy arithmetic.

        `y = x if x > 0 else 0` with a float32 `x` gives a float32 `y`. When the
        scalar is in the branch traced first, the cond is traced again with the
        Tensor's branch first (on `not cond`), since the first branch's outputs
        are already fixed.
        """
        staged = self.frontend.is_staged
        if staged(before) and _fits(value, before.dtype):
            return self.frontend.constant(value, before.dtype)
        if self.may_swap and staged(value) and _fits(before, value.dtype) and value.dtype != np.asarray(before).dtype:
            raise _TraceFalseFirst
        return None

    def _check_types(self, name, before, value, first_side, side) -> None:
        arrays = self.frontend.is_composite(before), self.frontend.is_composite(value)
        if arrays[0] != arrays[1]:
            raise self._mixed(name, before, first_side, value, side)
        if arrays[0]:
            if type(before) is not type(value):
                raise self._mixed(name, before, first_side, value, side)
            return
        a, b = type_of_leaf(before, self.frontend), type_of_leaf(value, self.frontend)
        if a.dtype != b.dtype and is_return_value(name):
            raise self._error(
                f"the function returns {a.dtype} in the {self.sides[first_side]} and {b.dtype} in "
                f"the {self.sides[side]} of a tensor-dependent {self.what}",
                f"Return values of the same dtype on every path (for example 0.0 rather than 0 "
                f"for a float, or cast with .astype(np.{a.dtype})).{widening_hint(a.dtype, b.dtype)}",
            )
        if a.dtype != b.dtype and self.what in _OPERANDS:
            raise self._error(
                f"the operands of a tensor-dependent {self.what} have different dtypes: {a.dtype} "
                f"in the {self.sides[first_side]}, {b.dtype} in the {self.sides[side]}",
                f"Staged, {self.what} returns one of its operands from a cond, which has one dtype. "
                f"Compare explicitly to get a bool ((x > 0) and (n != 0)), or give both operands "
                f"the same dtype.",
            )
        if a.dtype != b.dtype:
            raise self._error(
                f"{self._named(name)} is {a.dtype} in the {self.sides[first_side]} and {b.dtype} in the "
                f"{self.sides[side]} of a tensor-dependent {self.what}",
                f"Give {self._named(name)} the same dtype in both branches (for example write 0.0 rather "
                f"than 0 for a float, or cast with .astype(np.{a.dtype})).{widening_hint(a.dtype, b.dtype)}",
            )

    def _named(self, name: str) -> str:
        """How a message names a carried value: the variable, or a conditional expression's value
        (whose `name` is the condition's text)."""
        return f"'{name}'" if self.what == "if" else "the value"

    def _undefined(self, name: str, defined_side: bool, value: object) -> Exception:
        if is_return_value(name):  # a Python value, which cannot be spread into a Tensor
            return self._error(
                f"the function returns {describe(value, self.frontend)} from only the "
                f"{self.sides[defined_side]} of a tensor-dependent {self.what}",
                "Return a Tensor or a number there, of the same kind as on the function's other paths; "
                "a graph cannot return a Python object from a path chosen when it runs.",
            )
        return self._error(
            f"'{name}' is defined only in the {self.sides[defined_side]} of a tensor-dependent {self.what}",
            f"Initialise '{name}' before the if (or assign it in both branches).",
        )

    def _mixed(self, name, before, first_side, value, side) -> Exception:
        if is_return_value(name):
            return self._error(
                f"the function returns {describe(before, self.frontend)} in the "
                f"{self.sides[first_side]} and {describe(value, self.frontend)} in the {self.sides[side]} "
                f"of a tensor-dependent {self.what}",
                "Return a value of the same dtype on every path (a function that sometimes falls "
                "off the end returns None there).",
            )
        return self._error(
            f"{self._named(name)} is {describe(before, self.frontend)} in the {self.sides[first_side]} and "
            f"{describe(value, self.frontend)} in the {self.sides[side]} of a tensor-dependent {self.what}",
            f"Give {self._named(name)} a Tensor (or the same Python value) in both branches; a cond cannot "
            f"return None or a Python object on one side only.",
        )

    def _error(self, summary: str, fix: str) -> Exception:
        return rule_error(summary, self.origin, fix)

    def merge(self, outputs: tuple) -> tuple:
        """The variables after the cond: cond outputs, or the Python values both sides agree on."""
        _, first = self.first
        second = self.second
        outputs = list(outputs)
        leaves = []
        for kind, before, after in zip(self.kinds, first.leaves, second.leaves):
            if kind == "staged" or (kind == "number" and not same_python_value(before, after)):
                leaves.append(outputs.pop(0))
            elif kind == "number":
                outputs.pop(0)
                leaves.append(before)
            else:
                leaves.append(before)
        return first.rebuild(leaves)


_NO_OUTPUT = object()


class _TraceFalseFirst(Exception):
    """The false branch must be traced first (it alone fixes a return value or a dtype)."""


def _fits(value: object, dtype: np.dtype) -> bool:
    """Whether a Python scalar (not a NumPy one) converts to `dtype` without changing value."""
    kinds = {bool: "b", int: "iufc", float: "fc"}.get(type(value))
    if kinds is None or np.dtype(dtype).kind not in kinds:
        return False
    try:
        return bool(np.asarray(value, dtype=dtype) == value)
    except (OverflowError, ValueError):
        return False


def stage_branches(cond, true_fn, false_fn, names, origin, what, unread=((), ())) -> tuple:
    frontend = get_frontend(cond)
    order = ((True, true_fn), (False, false_fn))
    try:
        return _stage_in_order(frontend, cond, order, names, origin, what, True, unread)
    except _TraceFalseFirst:
        # Branch functions reset the state themselves, so tracing again is safe; their
        # Python side effects run a second time in this one case.
        return _stage_in_order(frontend, np.logical_not(cond), order[::-1], names, origin, what, False, unread)


def _stage_in_order(frontend, pred, order, names, origin, what, may_swap: bool, unread) -> tuple:
    branches = _Branches(names, origin, what, frontend, may_swap, unread)
    (first_side, first_fn), (second_side, second_fn) = order
    outputs = frontend.stage_cond(
        pred, branches.traced(first_side, first_fn), branches.traced(second_side, second_fn), names
    )
    return branches.merge(outputs)


def branch_error(error: Exception, side: bool, origin: Origin | None) -> Exception | None:
    """What an error raised while a branch of a tensor-dependent if is traced becomes: a `raise`
    of the user's, or a read of a name the branch has not bound; None when it passes unchanged."""
    return _raise_in_branch(error, side, origin) or unbound_read(
        error, f"the {BRANCH[side]} of the tensor-dependent if", origin, "if")


def _raise_in_branch(error: Exception, side: bool, origin: Origin | None) -> StagingError | None:
    """A user's `raise` reached while a branch is traced: it would fail every trace.

    `if x <= 0: raise ValueError(...)` on a tensor `x` raises while tracing whatever
    `x` is, since both branches are traced; the error says so and how to check at run
    time instead. Other errors (a bug in the branch, our own errors) pass unchanged.
    """
    if isinstance(error, AutographError):
        return None
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    site = None if tb is None else map_location(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
    if site is None or not site.text.lstrip().startswith("raise"):
        return None
    where = f" at {origin}" if origin is not None else ""
    shown = f"{type(error).__name__}({str(error)!r})"
    return StagingError(
        f"the {BRANCH[side]} of the tensor-dependent if{where} raises {shown} while it is "
        f"traced: a staged if traces both branches whatever the value, so the raise happens "
        f"at every trace\n{site.excerpt()}\nCheck the condition when the graph runs with an "
        f"assert (assert not <condition>, message raises InvalidArgumentError), or raise from "
        f"an ag.py_function."
    )
