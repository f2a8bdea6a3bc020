"""Liveness: which names may still be read later, at every CFG node.

A name modified in a loop body is a loop variable only if it is live at the
loop head; a name modified in a branch is an output of the `if` only if it is
live right after it. Names captured by nested user functions count as live
everywhere, since a closure may read them at any time.
"""

from __future__ import annotations

from autograph.analysis.cfg import Cfg, CfgNode
from autograph.analysis.name_masks import NameMasks

__all__ = ["Liveness", "compute_liveness"]


class Liveness:
    """Live names before and after each CFG node; `always` (captured names) live everywhere.

    Sets of names are bit masks while the fixed point runs (one bit per name,
    see name_masks), so its unions and differences are single operations on
    machine words; a query turns one mask back into names, once.
    """

    def __init__(self, live_in: dict[CfgNode, int], live_out: dict[CfgNode, int], masks: NameMasks, always: frozenset[str]) -> None:
        self._live_in = live_in
        self._live_out = live_out
        self._masks = masks
        self.always = always
        self._sets: dict[int, frozenset[str]] = {}

    def before(self, node: CfgNode) -> frozenset[str]:
        return self._names_of(self._live_in[node])

    def after(self, node: CfgNode) -> frozenset[str]:
        return self._names_of(self._live_out[node])

    def mask_before(self, node: CfgNode) -> int:
        """`before(node)` less `always`, as a mask of `NameMasks`."""
        return self._live_in[node]

    def _names_of(self, mask: int) -> frozenset[str]:
        found = self._sets.get(mask)
        if found is None:
            found = self._sets[mask] = self._masks.names_of(mask) | self.always
        return found


def compute_liveness(cfg: Cfg, always: frozenset[str] = frozenset(), masks: NameMasks | None = None) -> Liveness:
    """Backward may-analysis to a fixed point: in = reads | (out - surely bound).

    `masks`: the CFG's name masks, when the caller made them for other analyses too.
    """
    if masks is None:
        masks = NameMasks(cfg)
    reads = masks.reads
    kills = masks.kills
    nodes = cfg.nodes
    live_in = dict.fromkeys(nodes, 0)
    live_out = dict(live_in)
    work = list(nodes)
    queued = set(work)
    while work:
        node = work.pop()
        queued.discard(node)
        out = 0
        for succ in node.next:
            out |= live_in[succ]
        live_out[node] = out
        kill = kills.get(node)
        new_in = reads[node] | (out if kill is None else out & ~kill)
        if new_in != live_in[node]:
            live_in[node] = new_in
            for pred in node.prev:
                if pred not in queued:
                    queued.add(pred)
                    work.append(pred)
    return Liveness(live_in, live_out, masks, always)
