"""Loop variables under the user's names, without the copies SSA form would print.

A while node's loop variable `k` is one Python name for several nodes: its
initial value, the body's and the test's input, the body's result and the
loop's output. Generated code may use one name for all of them when doing so
changes nothing:

- the initial value is used by this loop only (once), so writing the name in
  the loop cannot change a value read elsewhere: `n` is the argument and the
  loop variable, instead of `n_1 = n` before the loop;
- the body's result is used only as that result, and nothing the body
  evaluates after computing it reads the old value (directly, or inside an
  if whose branches assign it), nor does another loop variable take the old
  value: `steps = steps + 1`, instead of `add = steps + 1` and a parallel
  assignment `n_1, steps = cond, add` at the end of the body.
"""

from __future__ import annotations

from collections.abc import Mapping

from runtime.ir.graph import Graph, Node
from runtime.ir.opcodes import SUBGRAPH_FIELDS

__all__ = ["shares_initial_name", "writes_in_place"]

_SILENT = ("input", "capture", "constant")


def shares_initial_name(loop: Node, index: int, users: Mapping[Node, list[Node]]) -> bool:
    """Whether loop variable `index` may take its initial value's name (`users`: of the loop's graph)."""
    init = loop.inputs[index]
    return init.op not in ("capture", "constant") and users.get(init) == [loop]


def writes_in_place(body: Graph, index: int, users: Mapping[Node, list[Node]]) -> bool:
    """Whether the body may compute loop variable `index`'s next value straight into its name."""
    out, var = body.outputs[index], body.inputs[index]
    if out.op in _SILENT or out.op in SUBGRAPH_FIELDS or users.get(out) != [out]:
        return False
    if any(o is var for k, o in enumerate(body.outputs) if k != index):
        return False
    at = out
    if out.op == "getitem" and out.inputs[0].op in SUBGRAPH_FIELDS:
        at = out.inputs[0]
        if at.op != "cond" or not _branches_write_safely(at, out.attrs["index"], var):
            return False
    return not _read_after(body, at, var)


def _read_after(graph: Graph, at: Node, value: Node) -> bool:
    """Whether a node of `graph` after `at` reads `value` (a control node lists what its subgraphs capture)."""
    start = graph.nodes.index(at)
    return any(value in node.inputs for node in graph.nodes[start + 1 :])


def _branches_write_safely(cond: Node, index: int, var: Node) -> bool:
    """Whether each branch of `cond` may assign its output `index` to the name `var` holds."""
    for key in SUBGRAPH_FIELDS["cond"]:
        branch = cond.attrs[key]
        seen = branch.captures.get(var)
        if seen is None:
            continue  # the branch never reads the old value
        if any(o is seen for k, o in enumerate(branch.outputs) if k != index):
            return False
        value = branch.outputs[index]
        if value.op in _SILENT:
            continue  # assigned after everything else the branch does
        at = value
        if value.op == "getitem" and value.inputs[0].op in SUBGRAPH_FIELDS:
            at = value.inputs[0]
            if at.op != "cond" or not _branches_write_safely(at, value.attrs["index"], seen):
                return False
        if _read_after(branch, at, seen):
            return False
    return True
