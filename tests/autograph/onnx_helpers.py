"""What the ONNX tests share: counting the op types of an exported model."""

from __future__ import annotations

import collections


def op_counts(graph) -> collections.Counter:
    """Op types of an ONNX graph and all its subgraphs (If branches, Loop bodies)."""
    counts = collections.Counter()
    for node in graph.node:
        counts[node.op_type] += 1
        for attribute in node.attribute:
            if attribute.g.node:
                counts += op_counts(attribute.g)
    return counts
