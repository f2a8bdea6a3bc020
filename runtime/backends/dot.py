"""Graphviz DOT text for a staged graph, and rendering it with the `dot` program.

A picture answers "what did my function stage?" faster than a node list.
Each node is a box labelled with its op and type (`add` / `float32[None, 3]`),
carries the user's `file:line` as its tooltip, and the subgraphs of control
flow (the branches of a `cond`, the test and body of a `while`) are drawn as
clusters next to the node that owns them:

    >>> print(to_dot(graph))            # doctest: +SKIP
    digraph "double" {
      n0 [label="a\\nint64[]" shape=invhouse tooltip="model.py:3"];
      n1 [label="add\\nint64[]" tooltip="model.py:4  return a + a"];
      n0 -> n1; n0 -> n1;
      ...
    }

DOT text needs nothing installed; SVG and PNG need Graphviz's `dot` program.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import Any

import numpy as np

from runtime.ir.errors import AutographError
from runtime.ir.graph import Graph, Node
from runtime.ir.subgraphs import named_subgraphs
from runtime.ir.types import TensorType
from runtime.ops.calls import render_call

__all__ = ["to_dot", "render", "dot_available", "GraphvizMissingError", "FORMATS"]

FORMATS = ("dot", "svg", "png")
_INSTALL_HINT = (
    "Graphviz's 'dot' program is needed to draw {fmt}, and it is not on PATH. "
    "Install Graphviz (Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz; "
    "conda: conda install graphviz), or write DOT text instead (an output file ending in .dot)."
)
_INPUT_OPS = ("input", "capture")


class GraphvizMissingError(AutographError, RuntimeError):
    """Rendering needs Graphviz's `dot` program and it is not installed."""


def dot_available() -> bool:
    return shutil.which("dot") is not None


def render(dot_text: str, fmt: str = "svg", timeout: float = 60.0) -> bytes:
    """Run Graphviz `dot` on DOT text; `fmt` is "svg" or "png"."""
    if fmt not in ("svg", "png"):
        raise ValueError(f"cannot render to {fmt!r}; use one of 'svg', 'png'")
    program = shutil.which("dot")
    if program is None:
        raise GraphvizMissingError(_INSTALL_HINT.format(fmt=fmt.upper()))
    done = subprocess.run(
        [program, f"-T{fmt}"], input=dot_text.encode("utf-8"),
        capture_output=True, timeout=timeout, check=False,
    )
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()
        raise RuntimeError(f"Graphviz 'dot' failed (exit {done.returncode}): {message}")
    return done.stdout


def to_dot(graph: Graph) -> str:
    """The graph as DOT text: nodes, data edges, and control-flow subgraphs as clusters."""
    writer = _DotWriter()
    lines = [
        f"digraph {_quote(graph.name)} {{",
        "  rankdir=TB;",
        '  node [shape=box style="rounded,filled" fillcolor="#f5f5f5" '
        'fontname="Helvetica" fontsize=10];',
        '  edge [fontname="Helvetica" fontsize=9];',
    ]
    lines += ["  " + line for line in writer.graph_body(graph)]
    lines += ["  " + line for line in writer.edges]
    lines.append("}")
    return "\n".join(lines) + "\n"


class _DotWriter:
    """Gives every node one DOT id and collects edges, which may cross clusters."""

    def __init__(self) -> None:
        self._ids: dict[int, str] = {}
        self._clusters = 0
        self.edges: list[str] = []

    def node_id(self, node: Node) -> str:
        key = id(node)
        if key not in self._ids:
            self._ids[key] = f"n{len(self._ids)}"
        return self._ids[key]

    def graph_body(self, graph: Graph) -> list[str]:
        lines: list[str] = []
        for node in graph.nodes:
            lines.append(self._node_line(node))
            lines += self._input_edges(node)
            for label, subgraph in named_subgraphs(node):
                lines += self._cluster(node, label, subgraph)
        lines += self._outputs(graph)
        return lines

    def _node_line(self, node: Node) -> str:
        attrs = {"label": _label(node), "tooltip": _tooltip(node)}
        if node.op in _INPUT_OPS:
            attrs.update(shape="invhouse", fillcolor="#dbe9f6")
        elif node.op == "constant":
            attrs.update(shape="box", style="filled", fillcolor="#ffffff", color="#999999")
        elif node.op in ("cond", "while"):
            attrs.update(shape="diamond" if node.op == "cond" else "hexagon", fillcolor="#fde6c8")
        return f"{self.node_id(node)} [{_attr_list(attrs)}];"

    def _input_edges(self, node: Node) -> list[str]:
        lines = [f"{self.node_id(source)} -> {self.node_id(node)};" for source in node.inputs]
        outer = node.attrs.get("outer") if node.op == "capture" else None
        if isinstance(outer, Node):
            # Capture edges cross a cluster border: they are drawn at top level.
            self.edges.append(
                f"{self.node_id(outer)} -> {self.node_id(node)} "
                '[style=dashed color="#888888" tooltip="captured"];'
            )
        return lines

    def _cluster(self, owner: Node, label: str, subgraph: Graph) -> list[str]:
        self._clusters += 1
        lines = [
            f"subgraph cluster_{self._clusters} {{",
            f"  label={_quote(f'{_op_and_name(owner)}: {label}')};",
            '  style="rounded,dashed"; color="#c08030"; fontname="Helvetica"; fontsize=10;',
        ]
        lines += ["  " + line for line in self.graph_body(subgraph)]
        lines.append("}")
        for output in subgraph.outputs:
            self.edges.append(
                f"{self.node_id(output)} -> {self.node_id(owner)} "
                f'[style=dotted color="#c08030" tooltip={_quote(label + " result")}];'
            )
        return lines

    def _outputs(self, graph: Graph) -> list[str]:
        if graph.parent is not None or not graph.outputs:
            return []
        sink_id = "outputs"
        lines = [
            f'{sink_id} [label="outputs" shape=house fillcolor="#dff0d8" '
            f"tooltip={_quote(graph.name + ' outputs')}];"
        ]
        for index, output in enumerate(graph.outputs):
            lines.append(f'{self.node_id(output)} -> {sink_id} [label="{index}"];')
        return lines


def _label(node: Node) -> str:
    head = node.op
    if node.op in _INPUT_OPS:
        head = node.name
    elif node.op == "constant":
        head = "const " + _short_value(node.attrs.get("value"))
    elif node.op == "getitem" and "index" in node.attrs:
        head = f"getitem [{node.attrs['index']}]"
    elif node.attrs and not any(True for _ in named_subgraphs(node)):
        head = _call_text(node)
    if node.op not in (*_INPUT_OPS, "constant") and _display_name(node) != node.op:
        head = f"{head}\n{node.name}"
    return f"{head}\n{_type_str(node.type)}"


def _display_name(node: Node) -> str:
    """The node's name, or just its op when the name is the op's own (`while_`, `add_2`)."""
    if re.fullmatch(re.escape(node.op) + r"_?(_\d+)?", node.name):
        return node.op
    return node.name


def _call_text(node: Node) -> str:
    """`not_equal(n, 1)`: the op with its literal arguments, which are attrs, not edges.
    Attrs that are no literal (a Variable's weak reference, an origin, a function) are left out."""
    attrs = {key: value for key, value in node.attrs.items() if key == "args" or _is_literal(value)}
    try:
        text = render_call(node.op, [n.name for n in node.inputs], attrs)
    except (IndexError, TypeError, ValueError):
        return node.op
    return text if len(text) <= 40 else text[:37] + "..."


def _is_literal(value: Any) -> bool:
    if isinstance(value, (tuple, list)):
        return all(_is_literal(item) for item in value)
    return value is None or isinstance(value, (bool, int, float, complex, str, np.generic, np.dtype, slice))


def _op_and_name(node: Node) -> str:
    name = _display_name(node)
    return node.op if name == node.op else f"{node.op} {name}"


def _type_str(type_: TensorType | tuple[TensorType, ...]) -> str:
    if isinstance(type_, TensorType):
        return str(type_)
    return "(" + ", ".join(str(t) for t in type_) + ")"


def _short_value(value: Any) -> str:
    if value is None:
        return ""
    array = np.asarray(value)
    if array.size <= 4:
        text = np.array2string(array, separator=", ", threshold=4)
    else:
        text = f"{array.dtype.name}{list(array.shape)}"
    return text if len(text) <= 30 else text[:27] + "..."


def _tooltip(node: Node) -> str:
    if node.origin is None:
        if node.op == "input":
            return f"argument {node.name}"
        if node.op == "capture" and isinstance(node.attrs.get("outer"), Node):
            return f"captured {node.attrs['outer'].name}"
        return node.name
    text = node.origin.text.strip()
    return f"{node.origin}  {text}" if text else str(node.origin)


def _attr_list(attrs: dict[str, str]) -> str:
    return " ".join(f"{key}={_quote(value)}" for key, value in attrs.items())


def _quote(text: str) -> str:
    """A DOT double-quoted string; newlines become DOT's centred line breaks."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'
