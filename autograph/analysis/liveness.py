"""Liveness: which names may still be read later, at every CFG node.

A name modified in a loop body is a loop variable only if it is live at the
loop head; a name modified in a branch is an output of the `if` only if it is
live right after it. Names captured by nested user functions count as live
everywhere, since a closure may read them at any time.
"""

from __future__ import annotations

from autograph.analysis.cfg import Cfg, CfgNode

__all__ = ["Liveness", "compute_liveness"]


class Liveness:
    """Live names before and after each CFG node; `always` (captured names) live everywhere.

    Sets of names are bit masks while the fixed point runs (one bit per name),
    so its unions and differences are single operations on machine words; a
    query turns one mask back into names, once.
    """

    def __init__(self, live_in: dict[CfgNode, int], live_out: dict[CfgNode, int], names: list[str], always: frozenset[str]) -> None:
        self._live_in = live_in
        self._live_out = live_out
        self._names = names
        self.always = always
        self._sets: dict[int, frozenset[str]] = {}

    def before(self, node: CfgNode) -> frozenset[str]:
        return self._names_of(self._live_in[node])

    def after(self, node: CfgNode) -> frozenset[str]:
        return self._names_of(self._live_out[node])

    def _names_of(self, mask: int) -> frozenset[str]:
        found = self._sets.get(mask)
        if found is None:
            names = self._names
            found = self._sets[mask] = frozenset(names[i] for i in range(mask.bit_length()) if mask >> i & 1) | self.always
        return found


def compute_liveness(cfg: Cfg, always: frozenset[str] = frozenset()) -> Liveness:
    """Backward may-analysis to a fixed point: in = reads | (out - writes)."""
    bits: dict[str, int] = {}
    names: list[str] = []

    def mask(of: frozenset[str]) -> int:
        found = 0
        for name in of:
            bit = bits.get(name)
            if bit is None:
                bit = bits[name] = 1 << len(names)
                names.append(name)
            found |= bit
        return found

    nodes = cfg.nodes
    reads: dict[CfgNode, int] = {}
    kills: dict[CfgNode, int] = {}
    for node in nodes:  # most nodes read or bind nothing (joins), or bind only for sure
        effects = node.effects
        reads[node] = mask(effects.reads) if effects.reads else 0
        writes = effects.writes
        if writes and effects.maybe_writes:
            writes = writes - effects.maybe_writes
        kills[node] = ~mask(writes) if writes else -1
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
        new_in = reads[node] | (out & kills[node])
        if new_in != live_in[node]:
            live_in[node] = new_in
            for pred in node.prev:
                if pred not in queued:
                    queued.add(pred)
                    work.append(pred)
    return Liveness(live_in, live_out, names, always)
