"""Name masks: what each CFG node reads and binds, as bit masks over the function's names.

Liveness and reaching definitions both run their fixed points on sets of
names, which as ints (one bit per name) make every union, difference and
comparison a single operation on machine words. Both need the same four
sets of each node, so one numbering and one pass over the nodes serve both:

    masks = NameMasks(cfg)
    masks.reads[node]          # names the node reads
    masks.kills.get(node, 0)   # names it surely binds (a `:=` in `and`'s second operand may not)
    masks.writes.get(node, 0)  # names it binds, surely or not
    masks.deletes.get(node, 0) # names a `del` unbinds
    masks.names_of(mask)       # back to names
"""

from __future__ import annotations

import gast

from autograph.analysis.cfg import Cfg, CfgNode

__all__ = ["NameMasks"]


class _Bits(dict):
    """Name -> its bit, the next free one given on first use (`names[i]` has bit `1 << i`)."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def __missing__(self, name: str) -> int:
        bit = self[name] = 1 << len(self.names)
        self.names.append(name)
        return bit


class NameMasks:
    """The reads, bindings and deletions of every node of one CFG, one bit per name.

    Only nodes that bind a name have an entry in `kills`, `writes` (and, for a
    `del`, `deletes`): most nodes (joins, tests, calls) bind nothing.
    """

    __slots__ = ("_bits", "names", "reads", "kills", "writes", "deletes")

    def __init__(self, cfg: Cfg) -> None:
        bits = self._bits = _Bits()
        self.names = bits.names
        bit = bits.__getitem__
        self.reads: dict[CfgNode, int] = {}
        self.kills: dict[CfgNode, int] = {}
        self.writes: dict[CfgNode, int] = {}
        self.deletes: dict[CfgNode, int] = {}
        reads, kills, writes = self.reads, self.kills, self.writes
        for node in cfg.nodes:
            effects = node.effects
            # a name's bits are distinct powers of two and a frozenset holds each name once: sum is |
            reads[node] = sum(map(bit, effects.reads)) if effects.reads else 0
            if not effects.writes:
                continue
            written = writes[node] = sum(map(bit, effects.writes))
            maybe = effects.maybe_writes
            kills[node] = written & ~sum(map(bit, maybe)) if maybe else written
            if type(node.ast) is gast.Delete:
                self.deletes[node] = sum(map(bit, {t.id for t in node.ast.targets if type(t) is gast.Name}))

    def mask(self, names: frozenset[str] | set[str]) -> int:
        """The mask of `names`, numbering the names not met yet."""
        return sum(map(self._bits.__getitem__, names))

    def bit(self, name: str) -> int | None:
        """The bit of `name`, or None if no node reads or binds it (and no `mask` numbered it)."""
        return self._bits.get(name)

    def names_of(self, mask: int) -> frozenset[str]:
        names = self.names
        return frozenset(names[i] for i in range(mask.bit_length()) if mask >> i & 1)
