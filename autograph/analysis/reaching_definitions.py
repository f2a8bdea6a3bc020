"""Reaching definitions: which bindings of each name may reach each CFG node.

Every local name starts with a pseudo-definition `UNBOUND` at the function
entry (and `del x` makes one too), so "x may be unbound here" is exactly
"UNBOUND reaches here for x". The converter initialises such names with
`ag__.Undefined('x')` before a staged statement, and only those.

The converter asks only two questions of a node and a name: may UNBOUND
reach it, and may a binding. So the fixed point runs on two bits per name
(see name_masks), not one per binding: a node that surely binds a name
clears both of its bits, then sets the binding bit (or, for a `del`, the
UNBOUND bit). Which bindings reach (`definitions`) is worked out only when
asked, by the same analysis with one bit per binding.
"""

from __future__ import annotations

import gast

from autograph.analysis.cfg import Cfg, CfgNode
from autograph.analysis.name_masks import NameMasks

__all__ = ["ReachingDefinitions", "compute_reaching_definitions", "UNBOUND"]

UNBOUND = None  # the pseudo-definition of a name not bound yet


class ReachingDefinitions:
    """`reach_in[node]`: bit i (a name's bit in `NameMasks`) says UNBOUND of that name may reach
    `node`, bit `width + i` that some binding of it may.
    """

    def __init__(self, cfg: Cfg, local_names: frozenset[str], masks: NameMasks, reach_in: dict[CfgNode, int], width: int) -> None:
        self.reach_in = reach_in
        self._cfg = cfg
        self._local_names = local_names
        self._masks = masks
        self._width = width
        self._definitions: _Definitions | None = None

    def _bit(self, name: str) -> int:
        bit = self._masks.bit(name)
        return 0 if bit is None or bit >> self._width else bit

    def may_be_unbound(self, node: CfgNode, name: str) -> bool:
        return bool(self.reach_in[node] & self._bit(name))

    def unbound(self, node: CfgNode, name: str) -> bool:
        """Whether no binding of `name` at all reaches `node`."""
        bit = self._bit(name)
        reach = self.reach_in[node]
        return bool(reach & bit) and not reach & bit << self._width

    def definitions(self, node: CfgNode, name: str) -> list[CfgNode | None]:
        """The bindings of `name` that may reach `node` (CFG nodes; UNBOUND for the pseudo-definition)."""
        if self._definitions is None:
            self._definitions = _Definitions(self._cfg, self._local_names)
        return self._definitions.at(node, name)


def compute_reaching_definitions(cfg: Cfg, local_names: frozenset[str], masks: NameMasks | None = None) -> ReachingDefinitions:
    """Forward may-analysis to a fixed point; `local_names` start unbound (not parameters).

    `masks`: the CFG's name masks, when the caller made them for other analyses too.
    """
    if masks is None:
        masks = NameMasks(cfg)
    start = masks.mask(local_names)  # before the width is read: it may number names no node reads
    width = len(masks.names)
    kills, writes, deletes = masks.kills, masks.writes, masks.deletes
    transfer: dict[CfgNode, tuple[int, int]] = {}
    for node, kill in kills.items():  # every binding node; bindings that may not happen kill nothing
        deleted = deletes.get(node, 0)
        transfer[node] = (~(kill | kill << width), deleted | (writes[node] & ~deleted) << width)
    reach_in = _fixed_point(cfg, start, transfer)
    return ReachingDefinitions(cfg, local_names, masks, reach_in, width)


def _fixed_point(cfg: Cfg, start: int, transfer: dict[CfgNode, tuple[int, int]]) -> dict[CfgNode, int]:
    """The sets reaching each node, given the entry's and each node's (keep, gen) masks."""
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
        out = incoming if rule is None else (incoming & rule[0]) | rule[1]
        if out != reach_out[node]:
            reach_out[node] = out
            for succ in node.next:
                if succ not in queued:
                    queued.add(succ)
                    work.append(succ)
    return reach_in


class _Definitions:
    """The same analysis with one bit per (name, binding) pair: which bindings reach each node."""

    def __init__(self, cfg: Cfg, local_names: frozenset[str]) -> None:
        self.defs: list[tuple[str, CfgNode | None]] = []
        self.index: dict[tuple[str, CfgNode | None], int] = {}
        self.by_name: dict[str, int] = {}
        start = 0
        for name in sorted(local_names):
            start |= self._bit(name, UNBOUND)
        gen: dict[CfgNode, int] = {}
        for node in cfg.nodes:
            writes = node.effects.writes
            if writes:
                ast = node.ast
                deleted = {t.id for t in ast.targets if type(t) is gast.Name} if type(ast) is gast.Delete else ()
                gen[node] = sum(self._bit(name, UNBOUND if name in deleted else node) for name in writes)
        transfer = {}
        for node, mask in gen.items():
            effects = node.effects
            kill = 0
            for name in effects.writes - effects.maybe_writes:
                kill |= self.by_name[name]
            transfer[node] = (~kill, mask)
        self.reach_in = _fixed_point(cfg, start, transfer)

    def _bit(self, name: str, definition: CfgNode | None) -> int:
        key = (name, definition)
        found = self.index.get(key)
        if found is None:
            found = self.index[key] = len(self.defs)
            self.defs.append(key)
            self.by_name[name] = self.by_name.get(name, 0) | 1 << found
        return 1 << found

    def at(self, node: CfgNode, name: str) -> list[CfgNode | None]:
        mask = self.reach_in[node] & self.by_name.get(name, 0)
        return [self.defs[i][1] for i in range(mask.bit_length()) if mask >> i & 1]
