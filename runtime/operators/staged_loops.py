"""Staged while and for loops: one while_loop, its body traced once.

The loop variables are exactly the `names` the converter passes, flattened
into leaves (see staged_state): Tensors and TensorArrays travel as they are;
Python numbers become tensors with NumPy's default dtypes (0 -> int64,
0.0 -> float64); other Python values (None, strings, objects) must not be
changed by the body. A leaf whose dtype or rank changes in one iteration
(`x = 0` then `x = x + 0.5`) is a StagingError that suggests the initial value
with the right dtype; dimensions that change are left to the while_loop
(which generalises them, or honours `opts["shape_invariants"]`).

A `while` whose test is a Python value at first and becomes a Tensor after
some iterations (the Python iterations run while tracing) is staged from the
state at that point: `while_stmt` hands over when the test first returns a
Tensor, and the rest of the loop is one staged while_loop.

A `for` loop counts a hidden index from 0 to the iterable's length
(staged_iterables) and binds the target to the item at that index; its
`extra_test` (from `break`/`return`) joins the loop condition.

Names the body binds before reading but that are unbound when the loop
starts (`Undefined`), and empty lists the body appends to (staged_lists),
have no type yet: the body is then traced once more into a throwaway graph
to learn it (Python side effects in the body, such as print, happen twice
in that case). Such a name gets a zero of its type as initial value, and a
staged check makes the graph raise InvalidArgumentError if the loop ran zero
times (the converter's return value is exempt: it is never read then).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.ir.errors import StagingError
from runtime.ir.origin import user_origin
from runtime.ir.types import TensorType
from runtime.operators.staged_iterables import as_staged_iterable, unpack_item
from runtime.operators.staged_lists import PendingList, ProbeList
from runtime.operators.staged_state import (
    FlatState,
    describe,
    is_return_value,
    leaf_kind,
    rule_error,
    same_python_value,
    type_of_leaf,
    zeros_like_type,
)
from runtime.operators.target_names import loop_target, name_targets
from runtime.operators.unbound_in_trace import unbound_read
from runtime.operators.undefined import Undefined
from runtime.tracing.frontend import get_frontend

__all__ = ["staged_while", "staged_for", "tensor_break_in_python_loop"]

_CARRIED = ("staged", "number")


def staged_while(
    first_test: Any,
    test: Callable[[], Any],
    body: Callable[[], None],
    get_state: Callable[[], tuple],
    set_state: Callable[[tuple], None],
    names: tuple[str, ...],
    opts: dict,
) -> None:
    """Stage a while loop whose test (already evaluated once as `first_test`) is a Tensor."""
    del first_test  # evaluated again inside the loop's condition graph
    loop = _Loop(tuple(names), get_state, set_state, opts or {}, "while")
    loop.stage(lambda counter: test(), lambda counter: body(), counted=False)


def staged_for(
    iter_: Any,
    extra_test: Callable[[], Any] | None,
    body: Callable[[Any], None],
    get_state: Callable[[], tuple],
    set_state: Callable[[tuple], None],
    names: tuple[str, ...],
    opts: dict,
) -> None:
    """Stage a for loop over a Tensor, TensorArray, staged range/list, enumerate or zip."""
    opts = opts or {}
    iterable = as_staged_iterable(iter_)
    length = iterable.staged_length()
    frontend = get_frontend(iter_)

    def test(counter: Any) -> Any:
        more = counter < length
        if extra_test is None:
            return more
        keep_going = extra_test()
        if not frontend.is_staged(keep_going):
            return more if keep_going else frontend.constant(False)
        return np.logical_and(more, keep_going)

    target = loop_target(opts.get("iterate_names"), body)

    def step(counter: Any) -> None:
        item = unpack_item(iterable.staged_item(counter), opts.get("iterate_names"))
        name_targets(item, target)
        body(item)

    _Loop(tuple(names), get_state, set_state, opts, "for").stage(test, step, counted=True)


def tensor_break_in_python_loop(keep_going: Any, names: tuple[str, ...], opts: dict) -> StagingError:
    """The error for `break` on a Tensor condition inside a loop over a Python value."""
    del keep_going, names
    target = (opts or {}).get("iterate_names") or "i"
    return rule_error(
        "a tensor-dependent break (or return) inside a Python for loop",
        user_origin(),
        f"The loop iterates over a Python value, so it runs while tracing and cannot stop on a "
        f"value known only when the graph runs. Iterate over ag.range(n) or over a Tensor (for "
        f"{target} in ag.range(...)) so the loop is staged, or make the break condition a Python value.",
    )


class _Loop:
    """One staged loop: its state, entry values, checks and the while_loop call."""

    def __init__(self, names, get_state, set_state, opts: dict, what: str) -> None:
        self.names, self.get_state, self.set_state = names, get_state, set_state
        self.opts, self.what = opts, what
        self.origin = user_origin()
        self.frontend = get_frontend()

    def stage(self, test: Callable[[Any], Any], step: Callable[[Any], None], counted: bool) -> None:
        initial = self._with_pending_lists(self.get_state())
        initial, was_none = self._none_as_unbound(initial)
        unbound = [isinstance(v, Undefined) for v in initial]
        if any(isinstance(v, (Undefined, PendingList)) for v in initial):
            initial = self._discover(initial, step)
        initial = tuple(None if n in was_none and isinstance(v, Undefined) else v for n, v in zip(self.names, initial))
        unread = set(self.opts.get("unread_at_head") or ())
        first_bound = [n for n, was, v in zip(self.names, unbound, initial)
                       if was and not isinstance(v, Undefined) and not is_return_value(n) and n not in unread]
        state = FlatState.of(self.names, initial, self.frontend)
        kinds = [leaf_kind(v, self.frontend) for v in state.leaves]
        counted = counted or bool(first_bound)
        carried = [self._to_staged(v) for v, k in zip(state.leaves, kinds) if k in _CARRIED]
        prefix = [self.frontend.constant(np.int64(0))] if counted else []

        entered: list[tuple] = []

        def enter(values: tuple) -> Any:
            counter = values[0] if counted else None
            entered[:] = [self._rebuild(state, kinds, values[len(prefix):])]
            self.set_state(entered[0])
            return counter

        def cond_fn(*values: Any) -> Any:
            result = test(enter(values))
            if not counted:
                self._check_test_kept_state(entered[0])
            return result if self.frontend.is_staged(result) else self.frontend.constant(bool(result))

        def body_fn(*values: Any) -> tuple:
            counter = enter(values)
            self._trace_step(step, counter)
            after = FlatState.of(self.names, self.get_state(), self.frontend)
            return tuple([counter + 1] if counted else []) + self._iteration_outputs(state, kinds, after)

        outputs = self.frontend.stage_while(
            cond_fn, body_fn, prefix + carried, self.opts.get("maximum_iterations"),
            self._shape_invariants(state, kinds, carried), self._leaf_names(state, kinds, counted),
        )
        self.set_state(self._rebuild(state, kinds, outputs[len(prefix):]))
        if first_bound:
            self._check_ran(outputs[0], first_bound, was_none)

    def _trace_step(self, step: Callable[[Any], None], counter: Any) -> None:
        """Trace one pass of the body; a name it reads unbound is the rule's StagingError."""
        try:
            step(counter)
        except NameError as error:
            raised = unbound_read(error, f"the body of the staged {self.what} loop", self.origin, "loop")
            if raised is None:
                raise
            raise raised from error

    # -- entry ----------------------------------------------------------
    def _none_as_unbound(self, values: tuple) -> tuple[tuple, frozenset[str]]:
        """None in a loop variable every iteration binds before reading it (`opts['bound_before_read']`,
        see the converter's none_before_loop) is typed from the body, like a name first bound there."""
        rebound = self.opts.get("bound_before_read")
        if not rebound:
            return values, frozenset()
        was_none = frozenset(n for n, v in zip(self.names, values) if v is None and n in rebound)
        return tuple(Undefined(n) if n in was_none else v for n, v in zip(self.names, values)), was_none

    def _with_pending_lists(self, values: tuple) -> tuple:
        return tuple(
            PendingList(v, n) if type(v) is list and not v else v for n, v in zip(self.names, values)
        )

    def _to_staged(self, value: Any) -> Any:
        if self.frontend.is_staged(value) or self.frontend.is_composite(value):
            return value
        return self.frontend.constant(value)

    def _discover(self, initial: tuple, step: Callable[[Any], None]) -> tuple:
        """Trace the body once in a throwaway graph to type what is still untyped."""
        state = FlatState.of(self.names, initial, self.frontend)
        with self.frontend.discovery_scope():
            leaves = [self._probe(v) for v in state.leaves]
            self.set_state(state.rebuild(leaves))
            self._trace_step(step, self.frontend.placeholder(TensorType(np.int64, ())))
            after = self.get_state()
            found = {n: _types_of(a, self.frontend) for n, a, v in zip(self.names, after, initial)
                     if isinstance(v, Undefined)}
        self.set_state(tuple(v.original if isinstance(v, PendingList) else v for v in initial))
        probes = {id(p.original): q for p, q in zip(state.leaves, leaves) if isinstance(p, PendingList)}
        result = []
        for name, value in zip(self.names, initial):
            if isinstance(value, PendingList):
                staged = probes[id(value.original)].staged()
                result.append(value.original if staged is None else staged)
            elif isinstance(value, Undefined):
                result.append(self._first_value(name, found[name]))
            else:
                result.append(value)
        return tuple(result)

    def _probe(self, value: Any) -> Any:
        if isinstance(value, PendingList):
            return ProbeList(value.name, self.origin)
        if self.frontend.is_staged(value) or leaf_kind(value, self.frontend) == "number":
            return self.frontend.placeholder(type_of_leaf(value, self.frontend))
        return value

    def _first_value(self, name: str, found: tuple) -> Any:
        tree_state, types = found
        if tree_state is None:
            return Undefined(name)
        leaves = []
        for value, type_ in zip(tree_state.leaves, types):
            if self.frontend.is_composite(value):
                raise rule_error(
                    f"the {type(value).__name__} '{name}' is first created inside a staged {self.what} loop",
                    self.origin, f"Create '{name}' before the loop and write to it inside.",
                )
            leaves.append(value if type_ is None else zeros_like_type(type_, self.frontend))
        return tree_state.rebuild(leaves)[0]

    # -- one iteration ----------------------------------------------------
    def _rebuild(self, state: FlatState, kinds: list[str], carried) -> tuple:
        carried = list(carried)
        leaves = [carried.pop(0) if k in _CARRIED else v for v, k in zip(state.leaves, kinds)]
        return state.rebuild(leaves)

    def _iteration_outputs(self, state: FlatState, kinds: list[str], after: FlatState) -> tuple:
        name = state.mismatched_name(after)
        if name is not None:
            raise self._structure_error(name, state, after)
        out = []
        for before, kind, value, owner in zip(state.leaves, kinds, after.leaves, state.owners):
            if kind in _CARRIED:
                self._check_leaf(owner, before, value)
                out.append(self._to_staged(value))
            elif kind == "python" and not same_python_value(before, value):
                raise self._python_changed(owner, before, value)
            elif kind == "undefined" and not isinstance(value, Undefined):
                raise self._python_changed(owner, before, value)
        return tuple(out)

    def _check_leaf(self, name: str, before: Any, value: Any) -> None:
        kind = leaf_kind(value, self.frontend)
        if self.frontend.is_composite(before) or self.frontend.is_composite(value):
            if type(before) is not type(value):
                raise self._python_changed(name, before, value)
            return
        if kind not in _CARRIED:
            raise self._python_changed(name, before, value)
        start, end = type_of_leaf(before, self.frontend), type_of_leaf(value, self.frontend)
        if start.dtype != end.dtype:
            raise rule_error(
                f"'{name}' changes dtype inside a staged {self.what} loop: {start.dtype} before "
                f"the loop, {end.dtype} after an iteration",
                self.origin, f"Initialise '{name}' with a {end.dtype} value before the loop "
                f"(for example {name} = {_example(before, end.dtype, name)}).{_keep_hint(start.dtype, end.dtype)}",
            )
        if start.rank != end.rank and not self._has_invariant(before):
            raise rule_error(
                f"'{name}' changes rank inside a staged {self.what} loop: {start} before the "
                f"loop, {end} after an iteration",
                self.origin, f"Keep the rank of '{name}' fixed, or declare its shape with "
                f"ag.set_loop_options(shape_invariants=[({name}, None)]).{_unknown_rank_hint(end)}",
            )

    def _structure_error(self, name: str, state: FlatState, after: FlatState) -> StagingError:
        if state.tree_of(name).kind == "list":
            return rule_error(
                f"the Python list '{name}' changes length inside a staged {self.what} loop",
                self.origin, f"Start '{name}' as an empty list before the loop (it then becomes a "
                f"staged list), or accumulate with ag.TensorArray.",
            )
        return rule_error(
            f"'{name}' changes structure inside a staged {self.what} loop: "
            f"{state.tree_of(name)} before the loop, {after.tree_of(name)} after an iteration",
            self.origin, f"Keep the structure of '{name}' the same in every iteration.",
        )

    def _check_test_kept_state(self, entered: tuple) -> None:
        """A staged while's test must not rebind a loop variable (`while (n := n + 1) < x`).

        The condition graph returns only the test's bool: a value the test binds
        never reaches the body or the next test, so the loop would run forever
        (or with stale values) where Python's would stop. `opts["test_setters"]`
        names the nested function through which the test sets a name, if any.
        """
        setters = self.opts.get("test_setters") or {}
        for name, before, now in zip(self.names, entered, self.get_state()):
            if now is not before and name in setters:
                raise rule_error(
                    f"the test of a staged while loop calls '{setters[name]}', which sets '{name}' "
                    f"through nonlocal; a staged loop's test can only compute its condition",
                    self.origin, f"Call '{setters[name]}' outside the test: once before the loop and "
                    f"again at the end of the body, and test '{name}' (or what the call returned).",
                )
            if now is not before:
                raise rule_error(
                    f"the test of a staged while loop assigns '{name}' (with := or through a "
                    f"function it calls); a staged loop's test can only compute its condition",
                    self.origin, f"Assign '{name}' in the loop body instead: give it its first "
                    f"value before the loop and its next one at the end of the body.",
                )

    def _python_changed(self, name: str, before: Any, value: Any) -> StagingError:
        if is_return_value(name):
            return rule_error(
                f"the function returns {describe(value, self.frontend)} from inside a staged "
                f"{self.what} loop but {describe(before, self.frontend)} when the loop ends without "
                f"returning",
                self.origin, "Return a value of the same dtype after the loop too (every path "
                "of a staged function must return the same kind of value).",
            )
        return rule_error(
            f"'{name}' is {describe(before, self.frontend)} before a staged {self.what} loop and "
            f"{describe(value, self.frontend)} after an iteration; a staged loop carries only "
            f"Tensors and numbers",
            self.origin, f"Initialise '{name}' before the loop with a value of the type the loop "
            f"gives it (a number or array of the right dtype rather than None).",
        )

    # -- options and results ---------------------------------------------
    def _has_invariant(self, value: Any) -> bool:
        return any(v is value for v, _ in self.opts.get("shape_invariants") or ())

    def _shape_invariants(self, state: FlatState, kinds: list[str], carried: list) -> list | None:
        """(value, shape) pairs, each value mapped to the loop variable staged for it."""
        given = self.opts.get("shape_invariants")
        if not given:
            return None
        staged = dict(zip((id(v) for v, k in zip(state.leaves, kinds) if k in _CARRIED), carried))
        return [(staged.get(id(value), value), shape) for value, shape in given]

    def _leaf_names(self, state: FlatState, kinds: list[str], counted: bool) -> tuple[str, ...]:
        owners = [o for o, k in zip(state.owners, kinds) if k in _CARRIED]
        return tuple((["iteration"] if counted else []) + owners)

    def _check_ran(self, iterations: Any, first_bound: list[str], was_none: frozenset[str]) -> None:
        listed = ", ".join(f"'{n}' (None before the loop)" if n in was_none else f"'{n}'" for n in first_bound)
        self.frontend.stage_assert(
            iterations > 0,
            f"{listed} is first bound inside the {self.what} loop and read after "
            f"it, but the loop ran zero times; give it a value before the loop",
            self.origin,
        )


def _types_of(value: Any, frontend) -> tuple:
    """The structure of a value first bound in the loop, and each leaf's type (None: Python)."""
    if isinstance(value, Undefined):
        return (None, ())
    state = FlatState.of(("v",), (value,), frontend)
    return (state, [type_of_leaf(v, frontend) if not frontend.is_composite(v) else None
                    for v in state.leaves])


def _example(before: Any, dtype: np.dtype, name: str) -> str:
    """An initial value of `dtype`: a Python literal for NumPy's defaults, else a NumPy scalar."""
    if isinstance(before, (bool, int, float, complex, np.generic)):
        item = np.asarray(before).astype(dtype).item()
        if np.dtype(dtype) == np.asarray(item).dtype:
            return repr(item)
        return f"np.{np.dtype(dtype).name}({item!r})"
    return f"{name}.astype(np.{dtype})"


def _keep_hint(start: np.dtype, end: np.dtype) -> str:
    """For a float the loop widens (float32 -> float64): how to keep the narrower dtype instead.

    The usual cause is a strong int64 or float64 operand: a staged loop's
    counter (`x * i` over range/ag.range is int64 * float32 -> float64 in
    NumPy, where the unstaged loop's Python int would keep float32) or a
    float64 array.
    """
    if not (np.issubdtype(start, np.floating) and np.issubdtype(end, np.floating) and np.can_cast(start, end)):
        return ""
    hint = f" To keep it {start}, cast what widens it inside the loop with .astype(np.{start})"
    if np.result_type(start, np.int64) == end:
        return f"{hint}: a staged loop's counter is an int64 Tensor, and {start} * int64 is {end}."
    return f"{hint}."


def _unknown_rank_hint(end: Any) -> str:
    """Where a value of unknown rank comes from, most often: a py_function whose shape is not declared."""
    if end.rank is not None:
        return ""
    return (" A value of unknown rank is most often an ag.py_function result: declare its shape "
            "there, as ag.py_function(func, inp, Tout, shape=()) for a scalar.")
