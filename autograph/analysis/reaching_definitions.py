"""Reaching definitions: which bindings of each name may reach each CFG node.

Every local name starts with a pseudo-definition `UNBOUND` at the function
entry (and `del x` makes one too), so "x may be unbound here" is exactly
"UNBOUND reaches here for x". The converter initialises such names with
`ag__.Undefined('x')` before a staged statement, and only those.
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from autograph.analysis.cfg import Cfg, CfgNode

__all__ = ["ReachingDefinitions", "compute_reaching_definitions", "UNBOUND"]

UNBOUND = None  # the pseudo-definition of a name not bound yet

_Defs = frozenset  # of (name, CfgNode | None)


@dataclass
class ReachingDefinitions:
    reach_in: dict[CfgNode, _Defs]

    def definitions(self, node: CfgNode, name: str) -> list[CfgNode | None]:
        return [d for n, d in self.reach_in[node] if n == name]

    def may_be_unbound(self, node: CfgNode, name: str) -> bool:
        return (name, UNBOUND) in self.reach_in[node]

    def unbound(self, node: CfgNode, name: str) -> bool:
        """Whether no binding of `name` at all reaches `node`."""
        defs = [d for n, d in self.reach_in[node] if n == name]
        return bool(defs) and all(d is UNBOUND for d in defs)


def _deletes(node: CfgNode) -> frozenset[str]:
    if isinstance(node.ast, gast.Delete):
        return frozenset(t.id for t in node.ast.targets if isinstance(t, gast.Name))
    return frozenset()


def compute_reaching_definitions(cfg: Cfg, local_names: frozenset[str]) -> ReachingDefinitions:
    """Forward may-analysis to a fixed point; `local_names` start unbound (not parameters)."""
    start = frozenset((name, UNBOUND) for name in local_names)
    reach_in = {node: frozenset() for node in cfg.nodes}
    reach_out = dict(reach_in)
    work = list(reversed(cfg.nodes))
    queued = set(work)
    while work:
        node = work.pop()
        queued.discard(node)
        incoming = start if node is cfg.entry else frozenset().union(*(reach_out[p] for p in node.prev))
        reach_in[node] = incoming
        writes = node.effects.writes
        definite = node.effects.definite_writes
        deleted = _deletes(node)
        if writes:
            kept = frozenset(d for d in incoming if d[0] not in definite)
            gen = frozenset((n, UNBOUND if n in deleted else node) for n in writes)
            out = kept | gen
        else:
            out = incoming
        if out != reach_out[node]:
            reach_out[node] = out
            for succ in node.next:
                if succ not in queued:
                    queued.add(succ)
                    work.append(succ)
    return ReachingDefinitions(reach_in)
