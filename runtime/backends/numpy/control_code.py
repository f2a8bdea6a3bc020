"""The code of cond and while nodes: `if/else`, `while`, and the names their values go by.

A mixin of the code generator's emitter (`runtime.backends.numpy.codegen`):
a cond becomes `if test:` with each branch assigning the cond's outputs, a
while becomes `while test:` (or `while True:` with a `break` when the test
is more than one expression) with its loop variables under the user's names
(`runtime.backends.numpy.loop_names`).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from runtime.backends.numpy.inlining import Expr, inlined, placeholder, substitute
from runtime.backends.numpy.loop_names import shares_initial_name, writes_in_place
from runtime.ir.graph import Graph, Node
from runtime.ir.opcodes import SUBGRAPH_FIELDS
from runtime.ir.subgraphs import outer_inputs
from runtime.ops.registry import get_op

__all__ = ["ControlFlowCode", "users_of", "SILENT"]

SILENT = ("input", "capture", "constant")  # opcodes that print no statement
DEEP_INDENT = 48  # a cond branch this deep is a function of its own (`_branch_function`)


def users_of(graph: Graph) -> dict[Node, list[Node]]:
    """Each node's users, once per use; a graph output counts itself as a user."""
    users: dict[Node, list[Node]] = defaultdict(list)
    for node in graph.nodes:
        for inp in node.inputs:
            users[inp].append(node)
    for out in graph.outputs:
        users[out].append(out)
    return users


class ControlFlowCode:
    """The emitter's methods for cond and while nodes (the emitter provides names, lines and operands)."""

    names: dict[Node, str]
    same: dict[Node, Node]
    hints: dict[Node, str]
    inline: dict[Node, Node]
    int_counters: set[Node]
    lines: list[str]
    origins: dict[int, Any]
    functions: list[tuple[list[str], dict[int, Any]]]
    globals: dict[str, Any]
    _commented: Any
    ns: Any

    def _plan_loop(self, node: Node, users) -> None:
        """One name per loop variable, the user's: for the body's and test's inputs, the loop's
        outputs, and the initial value where nothing else reads it."""
        body, cond = node.attrs["body"], node.attrs["cond"]
        for index, inp in enumerate(body.inputs):
            outputs = [u for u in users.get(node, ()) if u.op == "getitem" and u.attrs["index"] == index]
            owner = next((u for u in outputs if u in self.names), inp)  # named already: a branch's result
            if owner is inp and shares_initial_name(node, index, users) and inp not in self.int_counters:
                init = node.inputs[index]
                named = self.names.get(self.same.get(init, init))
                if named is None:  # made for the loop: it takes the variable's name
                    self.hints.setdefault(init, inp.name)
                    owner = init
                elif named == inp.name:  # the variable's value under its own name already
                    owner = init
            for member in (inp, cond.inputs[index], *outputs):
                self.share(member, owner)


    # -- control flow ---------------------------------------------------
    def _outputs(self, node: Node, users) -> dict[int, str]:
        """Names of a cond/while's outputs: the first getitem reading each names it."""
        names: dict[int, str] = {}
        for user in users.get(node, ()):
            if user.op == "getitem" and user.inputs[0] is node:
                index = user.attrs["index"]
                if index in names:
                    self.names[user] = names[index]
                else:
                    names[index] = self.name_of(user)
        return names

    def _cond(self, node: Node, indent: int, users) -> None:
        test = self._operand(node.inputs[0], indent, users)
        outputs = self._outputs(node, users)
        self.write(indent, f"if {test}:", node.origin)
        branch = self._branch if indent + 1 < DEEP_INDENT else self._branch_function
        branch(node.attrs["true"], indent + 1, outputs)
        self.write(indent, "else:")
        branch(node.attrs["false"], indent + 1, outputs)

    def _branch_function(self, graph: Graph, indent: int, outputs: dict[int, str]) -> None:
        """A branch `DEEP_INDENT` levels in, written as a function of its own (after the main one)
        and called there: Python's parser takes 100 levels of indentation, and staged elif chains
        nest a cond per arm. It reads what the branch captures as parameters of the same names,
        and returns the cond's outputs, so the code inside reads as it would inline."""
        params = self._captured_names(graph)
        name = self.ns.create("branch")
        returned = [outputs[i] for i in sorted(outputs)]
        outer = self.lines, self.origins, self._commented
        self.lines, self.origins, self._commented = [], {}, None
        self.write(0, f"def {name}({', '.join(params)}):")
        self._branch(graph, 1, outputs)
        if returned:
            self.write(1, f"return {', '.join(returned)}")
        self.functions.append((self.lines, self.origins))
        self.lines, self.origins, self._commented = outer
        call = f"{name}({', '.join(params)})"
        self.write(indent, f"{', '.join(returned)} = {call}" if returned else call)

    def _captured_names(self, graph: Graph) -> list[str]:
        """The names of the values `graph` captures from outside it (variables; constants are
        literals or globals), in capture order. Its subgraphs capture through it."""
        names: dict[str, None] = {}
        for outer in outer_inputs([graph]):
            name = self.name_of(outer)
            if name.isidentifier() and name not in self.globals:
                names[name] = None
        return list(names)

    def _branch(self, graph: Graph, indent: int, outputs: dict[int, str]) -> None:
        users = self._name_results(graph, outputs)
        written = self.emit_graph(graph, indent, users)
        for index, name in sorted(outputs.items()):
            value = self.carried(graph.outputs[index])
            if value != name:
                self.write(indent, f"{name} = {value}")
                written += 1
        if not written:
            self.write(indent, "pass")

    def _name_results(self, graph: Graph, outputs: dict[int, str]) -> dict[Node, list[Node]]:
        """A branch result computed only to be returned is assigned to the cond's output directly.

        Returns the branch's users (emit_graph reads them too).
        """
        users = users_of(graph)
        for index, name in outputs.items():
            out = graph.outputs[index]
            if out.op in SILENT or out in self.names or out in self.same:
                continue
            if users.get(out) == [out]:
                self.names[out] = name
        return users

    def _while(self, node: Node, indent: int, users) -> None:
        cond, body = node.attrs["cond"], node.attrs["body"]
        limit = node.attrs.get("maximum_iterations")
        body_users = users_of(body)
        loop_vars = []
        for index, (init, inp) in enumerate(zip(node.inputs, body.inputs)):
            out = body.outputs[index]
            if writes_in_place(body, index, body_users):
                self.share(out, inp)
            elif out.op not in SILENT and body_users.get(out) == [out]:
                self.hints.setdefault(out, inp.name)  # the next value of `x`: `x_1`
            name = self.name_of(inp)
            loop_vars.append(name)
            value = "0" if inp in self.int_counters else self.name_of(init)
            if inp.type.dtype == object and not self._sole_user(init, node, users):
                value += ".copy()"
            if value != name:  # a copy or a literal: nothing that can fail, no user line of its own
                self.write(indent, f"{name} = {value}")
        counter = self.ns.create("iterations") if limit is not None else None
        if counter is not None:
            self.write(indent, f"{counter} = 0")
        test = self._inline_test(cond)
        if test is not None:
            head = test.text
            if counter is not None:
                bounded = substitute(f"{counter} < {limit} and {placeholder(0)}", {placeholder(0): test})
                head = bounded.text if bounded is not None else f"{counter} < {limit} and ({test.text})"
            self.write(indent, f"while {head}:", node.origin)
        else:
            self.write(indent, "while True:", node.origin)
            if counter is not None:
                self.write(indent + 1, f"if {counter} >= {limit}:")
                self.write(indent + 2, "break")
            self.emit_graph(cond, indent + 1)
            self.write(indent + 1, f"if not {self.name_of(cond.outputs[0])}:")
            self.write(indent + 2, "break")
        start = len(self.lines)
        if counter is not None:
            self.write(indent + 1, f"{counter} += 1")
        self.emit_graph(body, indent + 1, body_users)
        values = [self.carried(out) for out in body.outputs]
        pairs = [(t, v) for t, v in zip(loop_vars, values) if t != v]
        if pairs:
            left = ", ".join(t for t, _ in pairs)
            right = ", ".join(v for _, v in pairs)
            self.write(indent + 1, f"{left} = {right}")
        if len(self.lines) == start:
            self.write(indent + 1, "pass")

    def _inline_test(self, cond: Graph) -> Expr | None:
        """The loop test as one expression when the test graph is one op with operands inlined (or none)."""
        work = [n for n in cond.nodes if n.op not in SILENT]
        for node in cond.nodes:
            if node.op in ("capture", "constant"):
                self.emit_node(node, 0, {})
        out = cond.outputs[0]
        if not work:
            return Expr(self.name_of(out) if out.op != "constant" else str(bool(out.attrs["value"])))
        if out.op in SILENT or out.op in SUBGRAPH_FIELDS or get_op(out.op).effectful:
            return None
        users = users_of(cond)
        plan = inlined(cond, users, self._accepts)
        if any(n is not out and n not in plan for n in work):
            return None
        self.inline.update(plan)
        expr = self._expression(out, users, operand=True)
        if expr is None:
            for n in plan:
                del self.inline[n]
        return expr
