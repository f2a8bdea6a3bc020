"""Gradients of staged control flow: a cond becomes a cond, a while loop a pair of loops.

A cond's gradient is a cond on the same predicate whose branches recompute
their forward values and differentiate them; each branch gives one gradient
per outer value either branch captured (zeros where it did not use it), and
one per Variable either branch read.

A while loop's gradient needs every iteration's state, so the forward loop
runs again in an augmented form that also counts its iterations and pushes
its loop variables at the start of each one onto stacks (TensorArray-like
lists: memory grows with the iterations). A backward loop then runs the
iterations in reverse: it pops the state, recomputes that iteration's body
and applies the body's vector-Jacobian product, carrying the gradients of
the loop variables and accumulating those of captured values and Variables:

    forward:  while c(x): x = f(x, w)
    augmented: k = 0; while c(x): S.push(x); x = f(x, w); k += 1
    backward: for j in k-1 .. 0: x = S[j]; (gx, gw') = vjp(f, x, w)(gx); gw += gw'

Results like tanh(x) that the VJP reads are pushed too and read back, not recomputed, and only the
stacks the backward body reads are pushed (`residuals`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from runtime.ir.graph import Graph, Node
from runtime.ir.subgraphs import outer_inputs
from runtime.ir.types import TensorType
from runtime.passes.gradient.build import (
    Emitter,
    clone_into,
    differentiable,
    is_float,
    is_handle,
    like_handle,
)
from runtime.passes.gradient.residuals import candidates, final_body, live_nodes

__all__ = ["differentiate_control", "variables_read"]

_INT = TensorType(np.dtype(np.int64), ())
# the taped loop checks that each TensorArray element is written once: the backward loop reads
# elements from the final array, which must hold what every iteration wrote
_WRITE_ONCE = {"ta_write": "ta_write_once", "ta_scatter": "ta_scatter_once"}
_BOOL = TensorType(np.dtype(np.bool_), ())


def variables_read(graph: Graph, found: dict[int, tuple[Any, TensorType]] | None = None) -> dict:
    """id -> (Variable, type) of every float Variable read in `graph` and its subgraphs."""
    found = {} if found is None else found
    for node in graph.nodes:
        if node.op == "read_variable" and is_float(node.type):
            variable = node.attrs["ref"]()
            if variable is not None:
                found.setdefault(id(variable), (variable, node.type))
        for value in node.attrs.values():
            if isinstance(value, Graph):
                variables_read(value, found)
    return found


def differentiate_control(bp, node: Node, slots: Sequence[Any]) -> list[tuple[Any, Node]]:
    """(outer input node or Variable, gradient) pairs for a cond or while node."""
    _refuse_reassigned_variables(bp, node)
    if node.op == "cond":
        return _cond(bp, node, slots)
    return _while(bp, node, slots)


def _refuse_reassigned_variables(bp, node: Node) -> None:
    """The backward pass re-reads the Variables a branch or loop body reads: none may change meanwhile."""
    read = variables_read_nodes(node)
    if not read:
        return
    nodes = bp.graph.nodes  # the whole graph so far: an assign after the tape's block counts too
    position = next(i for i, n in enumerate(nodes) if n is node)
    for later in nodes[position:]:
        for assign in _assigns(later):
            variable = assign.attrs["ref"]()
            if variable is not None and id(variable) in read:
                from runtime.ir.errors import StagingError

                reader = read[id(variable)]
                where = f"{assign.origin}: " if assign.origin is not None else ""
                raise StagingError(
                    f"{where}the Variable '{variable.name}' is assigned here, after it was read at "
                    f"{reader.origin} inside a staged if or loop that is differentiated; the gradient "
                    f"recomputes that if or loop and would read the new value. Read the Variable into a "
                    f"tensor before the if or loop, or assign it after tape.gradient."
                )


def variables_read_nodes(node: Node) -> dict[int, Node]:
    """id(Variable) -> a read of it, inside the subgraphs of a cond or while node."""
    found: dict[int, Node] = {}
    for value in node.attrs.values():
        if isinstance(value, Graph):
            for inner in value.nodes:
                if inner.op == "read_variable" and inner.attrs["ref"]() is not None:
                    found.setdefault(id(inner.attrs["ref"]()), inner)
                elif inner.op in ("cond", "while"):
                    for key, read in variables_read_nodes(inner).items():
                        found.setdefault(key, read)
    return found


def _assigns(node: Node) -> list[Node]:
    if node.op in ("assign_variable", "initialize_variable"):
        return [node]
    found = []
    for value in node.attrs.values():
        if isinstance(value, Graph):
            for inner in value.nodes:
                found += _assigns(inner)
    return found


def _zeros(em: Emitter, like: Node) -> Node:
    """A new zero gradient for `like` that nothing else holds."""
    if is_handle(like.type):
        return em.empty_list(like)
    return em.node("fresh_zeros", (like,), {})


def _variable_zeros(em: Emitter, type_: TensorType) -> Node:
    return em.node("fresh_zeros", (em.constant(np.zeros(type_.shape, type_.dtype)),), {})


# -- cond -------------------------------------------------------------------------
def _cond(bp, node: Node, slots: Sequence[Any]) -> list[tuple[Any, Node]]:
    em = bp.em
    true_graph, false_graph = node.attrs["true"], node.attrs["false"]
    outers = [o for o in node.inputs[1:] if differentiable(o.type) and o in bp.active]
    variables = variables_read(true_graph)
    variables_read(false_graph, variables)
    seeds = list(slots)
    branches = []
    for branch in (true_graph, false_graph):
        sub = Graph(f"{branch.name}_grad", parent=em.graph)
        sub_em = Emitter(sub, em.origin)
        env = clone_into(sub, branch, {}, em.origin, recompute=True)
        targets = [env[o] for o in branch.outputs]
        sources = [sub.captures[o] for o in outers if o in sub.captures]
        sweep = type(bp)(sub_em, sub)
        sweep.run(targets, seeds, sources)
        results = []
        for outer in outers:
            capture = sub.captures.get(outer)
            g = sweep.materialized(capture) if capture is not None else None
            results.append(_zeros(sub_em, outer) if g is None else sub_em.cast_like(g, outer))
        for key, (_, type_) in variables.items():
            g = sweep.variables.get(key)
            results.append(_variable_zeros(sub_em, type_) if g is None else g[1])
        sub.set_outputs(results)
        branches.append(sub.finish())
    if not outers and not variables:
        return []
    types = tuple([o.type for o in outers] + [t for _, t in variables.values()])
    grad_node = em.node(
        "cond", (node.inputs[0], *outer_inputs(branches)), {"true": branches[0], "false": branches[1]},
        type_=types, name="cond_grad",
    )
    pairs: list[tuple[Any, Node]] = []
    items = [*outers, *[v for v, _ in variables.values()]]
    for index, (item, type_) in enumerate(zip(items, types)):
        pairs.append((item, em.node("getitem", (grad_node,), {"index": index}, type_=type_, name="grad")))
    return pairs


# -- while ------------------------------------------------------------------------
def _while(bp, node: Node, slots: Sequence[Any]) -> list[tuple[Any, Node]]:
    body = node.attrs["body"]
    count = len(body.inputs)
    types = list(node.type)
    counter, trips = counted(node)
    stacked = [
        i for i in range(count)
        if (not is_handle(types[i]) or _gradient_list(node.inputs[i]) or _gradient_list(body.outputs[i]))
        and i != counter
    ]
    carried = [i for i in range(count) if differentiable(types[i])]
    captures = [
        c.attrs["outer"] for c in body.captures.values()
        if differentiable(c.type) and c.attrs["outer"] in bp.active
    ]
    variables = variables_read(body)
    seeds = [slots[i] for i in carried]
    reaches_sources = captures or variables or any(node.inputs[i] in bp.active for i in carried)
    if all(s is None for s in seeds) or not reaches_sources:
        return []
    return _backward_loop(bp, node, stacked, carried, captures, variables, seeds, counter, trips)


_WRITES = frozenset({"ta_write", "ta_write_once", "ta_scatter", "ta_scatter_once"})


def _gradient_list(value: Node, depth: int = 0) -> bool:
    """Whether a handle is a gradient list (a loop's gradient, differentiated again) rather than a
    TensorArray. A TensorArray only gains elements, so its final value holds what every iteration
    wrote; a gradient list is replaced at each iteration, so a loop carrying one stacks it."""
    if depth > 64:
        return True  # stacking is always right, only slower
    op = value.op
    if op.startswith("grad_list") or op == "fresh_zeros":
        return True
    if op in _WRITES:
        return _gradient_list(value.inputs[0], depth + 1)
    if op == "capture":
        return _gradient_list(value.attrs["outer"], depth + 1)
    if op == "getitem" and value.inputs[0].op in ("cond", "while"):
        control, index = value.inputs[0], value.attrs["index"]
        if control.op == "cond":
            return any(_gradient_list(control.attrs[b].outputs[index], depth + 1) for b in ("true", "false"))
        body = control.attrs["body"]
        return index < len(body.outputs) and (
            _gradient_list(control.inputs[index], depth + 1) or _gradient_list(body.outputs[index], depth + 1)
        )
    return False


def counted(loop: Node) -> tuple[int | None, int | None]:
    """(index, trip count) of a loop variable counting 0, 1, ... that alone ends the loop, else
    (None, the loop's maximum_iterations). A known count preallocates the stacks; a counter
    needs no stack (at iteration j it is j)."""
    cond, body = loop.attrs["cond"], loop.attrs["body"]
    limit = loop.attrs.get("maximum_iterations")
    test = cond.outputs[0]
    for index, start in enumerate(loop.inputs[: len(body.inputs)]):
        step = body.outputs[index]
        if (
            limit is None and _int_constant(start) == 0 and step.op == "add" and test.op == "less"
            and step.inputs[0] is body.inputs[index] and _call_args(step) == (body.inputs[index], 1)
            and len(_call_args(test)) == 2 and _call_args(test)[0] is cond.inputs[index]
        ):
            bound = _call_args(test)[1]
            trips = bound if type(bound) is int else _int_constant(bound)
            if trips is not None:
                return index, max(trips, 0)
    return None, limit


def _call_args(node: Node) -> tuple:
    from runtime.passes.gradient.rules_math import call_args

    args, kwargs = call_args(node)
    return () if kwargs else args


def _int_constant(node: Any) -> int | None:
    if not isinstance(node, Node) or node.op != "constant":
        return None
    value = np.asarray(node.attrs["value"])
    if value.ndim != 0 or value.dtype.kind not in "iu":
        return None
    return int(value)


def _augmented_forward(em: Emitter, node: Node, stacked: list[int], counter: int | None, trips: int | None,
                       saved: Sequence[Node] = ()):
    """The forward loop again, also counting iterations and pushing each one's starting state.

    With a known trip count the stacks are preallocated; a counted loop writes them at its own
    counter, which the compiler turns into plain list stores."""
    cond, body = node.attrs["cond"], node.attrs["body"]
    count = len(body.inputs)
    types = list(node.type)
    parent = em.graph
    new_body = Graph("while_body", parent=parent)
    new_cond = Graph("while_cond", parent=parent)
    results = {}
    for sub, original in ((new_body, body), (new_cond, cond)):
        xs = [sub.add_input(t, n.name) for t, n in zip(types, original.inputs)]
        k = sub.add_input(_INT, "iteration")
        stacks = [sub.add_input(like_handle(), "stack") for _ in (*stacked, *saved)]
        env = clone_into(sub, original, dict(zip(original.inputs, xs)), em.origin, ops=_WRITE_ONCE)
        results[id(sub)] = (xs, k, stacks, env)
    xs, k, stacks, env = results[id(new_body)]
    sub_em = Emitter(new_body, em.origin)
    at = k if counter is None else xs[counter]
    pushed = [  # a list (dtype object) is pushed as it is, not made an array
        sub_em.node("ta_write", (s, at, xs[i]),
                    {"dynamic": trips is None, "dtype": None if is_handle(types[i]) else types[i].dtype},
                    like_handle(), name="push")
        for s, i in zip(stacks, stacked)
    ]
    pushed += [sub_em.node("ta_write", (s, at, env[n]), {"dynamic": trips is None, "dtype": n.type.dtype},
                           like_handle(), name="push_saved")
               for s, n in zip(stacks[len(stacked):], saved)]
    next_k = sub_em.call("add", k, 1)
    new_body.set_outputs([*(env[o] for o in body.outputs), next_k, *pushed])
    new_body.finish()
    _, _, _, cond_env = results[id(new_cond)]
    new_cond.set_outputs([cond_env[cond.outputs[0]]])
    new_cond.finish()
    first_new = len(parent.nodes)
    zero = em.constant(np.int64(0))
    size = 0 if trips is None else trips
    empties = [em.node("ta_new", (em.constant(np.int64(size)),), {"dynamic": trips is None}, like_handle(),
                       name="stack") for _ in (*stacked, *saved)]
    all_types = (*types, _INT, *(like_handle() for _ in empties))
    loop = em.node(
        "while", (*node.inputs[:count], zero, *empties, *outer_inputs([new_cond, new_body])),
        {"cond": new_cond, "body": new_body, "maximum_iterations": node.attrs.get("maximum_iterations"),
         "taped_from": node},
        type_=all_types, name="loop_taped",
    )
    outs = [em.node("getitem", (loop,), {"index": i}, type_=t, name="taped") for i, t in enumerate(all_types)]
    _move_before(parent, first_new, node)
    return outs[:count], outs[count], outs[count + 1:]


def _move_before(graph: Graph, first_new: int, loop: Node) -> None:
    """Put the taped loop (and what it needs) right before the loop it repeats.

    Its inputs are the loop's own (and constants it brings along), so it may
    stand there, and `merge_taped_loops` lets it stand for the loop, which
    then runs no more. A graph an eager tape evaluates in order keeps the
    nodes where they are.
    """
    if getattr(graph, "evaluated_in_order", False) or loop not in graph.nodes[:first_new]:
        return
    made = graph.nodes[first_new:]
    del graph.nodes[first_new:]
    at = graph.nodes.index(loop)
    graph.nodes[at:at] = made


def _backward_loop(bp, node, stacked, carried, captures, variables, seeds, counter, trips):
    """The loop that runs the iterations in reverse; (input or Variable, gradient) pairs out of it.

    Its body is built first with placeholders for the taped loop's stacks (`residuals`): the
    taped loop then pushes only the loop variables and saved values that body still reads."""
    em = bp.em
    types = list(node.type)
    loop_types = [_INT, *(types[i] for i in carried), *(c.type for c in captures),
                  *(t for _, t in variables.values())]
    saved = candidates(node.attrs["body"])
    scratch, popped, holders, clones = _backward_body(bp, em, node, loop_types, stacked, carried, captures,
                                                      variables, counter, saved)
    live = live_nodes(scratch, set(clones))
    kept = [i for i in stacked if popped[i] in live]
    kept_saved = [n for n, c in zip(saved, clones) if c in live]
    finals, iterations, stacks = _augmented_forward(em, node, kept, counter, trips, kept_saved)
    back = final_body(scratch, live, em, loop_types, holders, finals, dict(zip(kept, stacks)),
                       {clones[saved.index(n)]: s for n, s in zip(kept_saved, stacks[len(kept):])})
    inits = [em.call("subtract", iterations, 1)]
    inits += [_zeros(em, finals[i]) if s is None else s for s, i in zip(seeds, carried)]
    inits += [_zeros(em, c) for c in captures]
    inits += [_variable_zeros(em, t) for _, t in variables.values()]
    back_cond = Graph("while_cond", parent=em.graph)
    cond_inputs = [back_cond.add_input(t, "j" if n == 0 else "g") for n, t in enumerate(loop_types)]
    back_cond.set_outputs([Emitter(back_cond, em.origin).call("greater_equal", cond_inputs[0], 0)])
    back_cond.finish()
    loop = em.node(
        "while", (*inits, *outer_inputs([back_cond, back])),
        {"cond": back_cond, "body": back, "maximum_iterations": None}, type_=tuple(loop_types), name="loop_grad",
    )
    pairs: list[tuple[Any, Node]] = []
    items = [*(node.inputs[i] for i in carried), *captures, *(v for v, _ in variables.values())]
    for index, (item, type_) in enumerate(zip(items, loop_types[1:]), start=1):
        got = em.node("getitem", (loop,), {"index": index}, type_=type_, name="grad")
        if index > len(carried):
            bp.owned.add(got)  # an accumulator that started as fresh zeros: no other value shares it
        pairs.append((item, got))
    return pairs


def _backward_body(bp, em, node, loop_types, stacked, carried, captures, variables, counter, saved):
    """One reverse iteration: pop the state, recompute the body, apply its vector-Jacobian product.

    Built in a scratch graph whose extra inputs stand for the stacks and final values."""
    body = node.attrs["body"]
    back = Graph("while_body", parent=em.graph)
    sub_em = Emitter(back, em.origin)
    inputs = [back.add_input(t, "j" if n == 0 else "grad") for n, t in enumerate(loop_types)]
    j, g_vars = inputs[0], inputs[1: 1 + len(carried)]
    g_caps = inputs[1 + len(carried): 1 + len(carried) + len(captures)]
    g_variables = inputs[1 + len(carried) + len(captures):]
    state: dict[Node, Node] = {}
    holders: dict[Node, tuple[str, int]] = {}
    popped: dict[int, Node] = {}
    for i in stacked:
        holder = back.add_input(like_handle(), "stack")
        holders[holder] = ("stack", i)
        popped[i] = state[body.inputs[i]] = sub_em.node("ta_read", (holder, j), {"dense": True}, node.type[i],
                                                        name="popped")
    for i, x in enumerate(body.inputs):
        if i == counter:
            state[x] = j  # a counted loop's counter is j at iteration j
        elif i not in stacked:  # a TensorArray: the final one holds every element written
            state[x] = back.add_input(like_handle(), "final")
            holders[state[x]] = ("final", i)
    env = clone_into(back, body, state, em.origin, recompute=True)
    sweep = type(bp)(sub_em, back)
    for outer, acc in zip(captures, g_caps):
        capture = back.captures.get(outer)
        if capture is not None:
            sweep.grads[capture] = acc  # accumulate straight into the carried gradient
            sweep.owned.add(acc)
    sources = [state[body.inputs[i]] for i in carried]
    sources += [back.captures[c] for c in captures if c in back.captures]
    sweep.run([env[body.outputs[i]] for i in carried], list(g_vars), sources)
    outputs = [sub_em.call("subtract", j, 1)]
    for i in carried:
        g = sweep.materialized(state[body.inputs[i]])
        outputs.append(_zeros(sub_em, state[body.inputs[i]]) if g is None else sub_em.cast_like(g, body.inputs[i]))
    for outer, acc in zip(captures, g_caps):
        capture = back.captures.get(outer)
        g = sweep.materialized(capture) if capture is not None else None
        outputs.append(acc if g is None else sub_em.cast_like(g, outer))
    for key, acc in zip(variables, g_variables):
        got = sweep.variables.get(key)
        outputs.append(acc if got is None else sub_em.add(acc, sub_em.cast_like(got[1], acc)))
    back.set_outputs(outputs)
    return back, popped, holders, [env[n] for n in saved]
