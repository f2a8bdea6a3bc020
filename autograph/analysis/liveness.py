"""Liveness: which names may still be read later, at every CFG node.

A name modified in a loop body is a loop variable only if it is live at the
loop head; a name modified in a branch is an output of the `if` only if it is
live right after it. Names captured by nested user functions count as live
everywhere, since a closure may read them at any time.
"""

from __future__ import annotations

from dataclasses import dataclass

from autograph.analysis.cfg import Cfg, CfgNode

__all__ = ["Liveness", "compute_liveness"]


@dataclass
class Liveness:
    live_in: dict[CfgNode, frozenset[str]]
    live_out: dict[CfgNode, frozenset[str]]
    always: frozenset[str]

    def before(self, node: CfgNode) -> frozenset[str]:
        return self.live_in[node] | self.always

    def after(self, node: CfgNode) -> frozenset[str]:
        return self.live_out[node] | self.always


def compute_liveness(cfg: Cfg, always: frozenset[str] = frozenset()) -> Liveness:
    """Backward may-analysis to a fixed point: in = reads | (out - writes)."""
    live_in = {node: frozenset() for node in cfg.nodes}
    live_out = dict(live_in)
    work = list(cfg.nodes)
    queued = set(work)
    while work:
        node = work.pop()
        queued.discard(node)
        out: frozenset[str] = frozenset().union(*(live_in[s] for s in node.next))
        live_out[node] = out
        new_in = node.effects.reads | (out - node.effects.definite_writes)
        if new_in != live_in[node]:
            live_in[node] = new_in
            for pred in node.prev:
                if pred not in queued:
                    queued.add(pred)
                    work.append(pred)
    return Liveness(live_in, live_out, always)
