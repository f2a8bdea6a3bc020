"""composites: the attributes and constant subscripts a block assigns."""

import gast

from autograph.analysis.composites import composite_key, modified_composites


def _body(source: str) -> list:
    return gast.parse(source).body


def _expr(source: str):
    return gast.parse(source).body[0].value


def test_keys_of_attribute_and_constant_subscript_chains():
    assert composite_key(_expr("self.total")) == ("self.total", "self")
    assert composite_key(_expr("s['v']")) == ("s['v']", "s")
    assert composite_key(_expr("self.stats[0].count")) == ("self.stats[0].count", "self")
    assert composite_key(_expr("x")) is None
    assert composite_key(_expr("a[i]")) is None  # a varying index names no fixed location
    assert composite_key(_expr("f().x")) is None


def test_assignments_of_every_kind_are_found_outer_ones_first():
    body = _body(
        "self.a.b = 1\n"
        "self.a = 2\n"
        "s['k'] += 1\n"
        "(p.x, [q.y, *r.z]) = t\n"
        "if c:\n    d[0] = 1\n"
        "for self.i in range(3):\n    pass\n"
    )
    assert modified_composites(body, frozenset()) == (
        "d[0]", "p.x", "q.y", "r.z", "s['k']", "self.a", "self.i", "self.a.b",
    )


def test_a_rebound_root_and_nested_scopes_are_not_carried():
    body = _body(
        "obj = make()\n"
        "obj.x = 1\n"
        "def inner():\n    self.y = 2\n"
        "lam = lambda: setattr(self, 'z', 3)\n"
        "self.w = 4\n"
    )
    assert modified_composites(body, frozenset({"obj", "lam"})) == ("self.w",)
