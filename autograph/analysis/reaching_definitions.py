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


@dataclass
class ReachingDefinitions:
    """`reach_in[node]` is a bit set: bit i stands for the definition `defs[i]`, a (name, node) pair.

    Sets of definitions as ints make the fixed point's unions and kills single
    operations on machine words instead of set comprehensions over pairs.
    """

    reach_in: dict[CfgNode, int]
    defs: list[tuple[str, CfgNode | None]]
    by_name: dict[str, int]  # every definition of a name, as a bit mask
    unbound_bit: dict[str, int]  # the bit of a name's UNBOUND pseudo-definition

    def definitions(self, node: CfgNode, name: str) -> list[CfgNode | None]:
        mask = self.reach_in[node] & self.by_name.get(name, 0)
        return [self.defs[i][1] for i in range(mask.bit_length()) if mask >> i & 1]

    def may_be_unbound(self, node: CfgNode, name: str) -> bool:
        bit = self.unbound_bit.get(name)
        return bit is not None and bool(self.reach_in[node] >> bit & 1)

    def unbound(self, node: CfgNode, name: str) -> bool:
        """Whether no binding of `name` at all reaches `node`."""
        mask = self.reach_in[node] & self.by_name.get(name, 0)
        bit = self.unbound_bit.get(name)
        return bool(mask) and bit is not None and mask == 1 << bit


def _deletes(node: CfgNode) -> frozenset[str]:
    if isinstance(node.ast, gast.Delete):
        return frozenset(t.id for t in node.ast.targets if isinstance(t, gast.Name))
    return frozenset()


class _Numbering:
    """Gives each (name, definition) pair its bit, and each name the mask of its definitions."""

    def __init__(self) -> None:
        self.defs: list[tuple[str, CfgNode | None]] = []
        self.index: dict[tuple[str, CfgNode | None], int] = {}
        self.by_name: dict[str, int] = {}
        self.unbound_bit: dict[str, int] = {}

    def bit(self, name: str, definition: CfgNode | None) -> int:
        key = (name, definition)
        found = self.index.get(key)
        if found is None:
            found = self.index[key] = len(self.defs)
            self.defs.append(key)
            self.by_name[name] = self.by_name.get(name, 0) | 1 << found
            if definition is UNBOUND:
                self.unbound_bit[name] = found
        return 1 << found


def _transfer(cfg: Cfg, local_names: frozenset[str], numbering: _Numbering) -> tuple[int, dict[CfgNode, tuple[int, int]]]:
    """The entry's definitions, and (kill, gen) masks of every node that binds a name."""
    bit = numbering.bit
    start = 0
    for name in sorted(local_names):
        start |= bit(name, UNBOUND)
    gen: dict[CfgNode, int] = {}
    for node in cfg.nodes:
        writes = node.effects.writes
        if writes:
            deleted = _deletes(node) if type(node.ast) is gast.Delete else ()
            mask = 0
            for name in writes:
                mask |= bit(name, UNBOUND if name in deleted else node)
            gen[node] = mask
    by_name = numbering.by_name
    transfer = {}
    for node, mask in gen.items():
        effects = node.effects
        kill = 0
        for name in effects.writes - effects.maybe_writes if effects.maybe_writes else effects.writes:
            kill |= by_name[name]
        transfer[node] = (kill, mask)
    return start, transfer


def compute_reaching_definitions(cfg: Cfg, local_names: frozenset[str]) -> ReachingDefinitions:
    """Forward may-analysis to a fixed point; `local_names` start unbound (not parameters)."""
    numbering = _Numbering()
    start, transfer = _transfer(cfg, local_names, numbering)
    reach_in = dict.fromkeys(cfg.nodes, 0)
    reach_out = dict(reach_in)
    work = list(reversed(cfg.nodes))
    queued = set(work)
    while work:
        node = work.pop()
        queued.discard(node)
        if node is cfg.entry:
            incoming = start
        else:
            incoming = 0
            for pred in node.prev:
                incoming |= reach_out[pred]
        reach_in[node] = incoming
        rule = transfer.get(node)
        out = incoming if rule is None else (incoming & ~rule[0]) | rule[1]
        if out != reach_out[node]:
            reach_out[node] = out
            for succ in node.next:
                if succ not in queued:
                    queued.add(succ)
                    work.append(succ)
    return ReachingDefinitions(reach_in, numbering.defs, numbering.by_name, numbering.unbound_bit)
