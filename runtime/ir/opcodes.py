"""The structural opcodes: what every backend must know besides the registered ops.

Registered ops (`runtime.ops`) compute values; these shape the program.
"input", "capture" and "constant" are a graph's leaves; "cond" and "while"
hold subgraphs in their attrs (named in `SUBGRAPH_FIELDS`), and "getitem"
reads one output of such a multi-output node.
"""

from __future__ import annotations

__all__ = [
    "INPUT", "CAPTURE", "CONSTANT", "COND", "WHILE", "GETITEM", "LEAVES", "STRUCTURAL", "SUBGRAPH_FIELDS",
]

INPUT = "input"
CAPTURE = "capture"  # an input standing for a node of an enclosing graph: attrs["outer"]
CONSTANT = "constant"  # attrs["value"]: the NumPy value
COND = "cond"  # attrs "true", "false": the branches; inputs: the predicate, then the captured outer nodes
WHILE = "while"  # attrs "cond", "body"; inputs: the initial loop variables, then the captured outer nodes
GETITEM = "getitem"  # attrs["index"]: which output of a cond/while

LEAVES = frozenset({INPUT, CAPTURE, CONSTANT})
STRUCTURAL = LEAVES  # the opcodes that are no registered op
SUBGRAPH_FIELDS: dict[str, tuple[str, ...]] = {COND: ("true", "false"), WHILE: ("cond", "body")}
