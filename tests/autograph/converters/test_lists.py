"""lists: `l.append(x)` on a local list rebinds it."""

from autograph.converters import lists
from tests.autograph.converters.conversion import assert_converts
from tests.autograph.equivalence import assert_same


def test_local_append_rebinds():
    assert_converts(
        "def f(n):\n    out = []\n    for i in n:\n        out.append(i)\n    return out\n",
        "def f(n):\n    out = []\n    for i in n:\n        out = ag__.list_append(out, i)\n    return out\n",
        lists,
    )


def test_other_receivers_left_alone():
    source = "def f(x, g):\n    g.items.append(x)\n    glob.append(x)\n    x.append(*g)\n    return x\n"
    assert_converts(source, source, lists)


def aliasing(n):
    out = []
    alias = out
    for i in range(n):
        out.append(i)
    return alias, out is alias


def test_identity_kept():
    assert_same(aliasing, 3)
