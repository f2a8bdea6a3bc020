"""targets: a block's bindings read off statements and targets equal the full walk's, without `:=`."""

import gast

from autograph.analysis.activity import bound_names, scope_names
from autograph.analysis.census import take_census
from autograph.analysis.targets import block_targets

EVERY_BINDING = '''
def f(a, *args, k=1, **kw):
    """doc"""
    import os.path, numpy as np
    from m import x as y, z
    b, [c, *d] = e.attr[i], f(g)
    h = i = j
    obj.attr, s[0] = 1, 2
    n += 1
    ann: int
    ann2: int = 3
    del p, q.r, s[t]
    global G
    nonlocal N
    for u, (v, w) in pairs:
        if cond:
            x1 = [q for q in range(3)]
        elif other:
            x2 = lambda r: r + free
        else:
            break
    else:
        x3 = 1
    while go:
        continue
    with open(a) as fh, ctx(), other() as (o1, o2):
        pass
    try:
        t1 = 1
    except ValueError as err:
        t2 = 2
    except Exception:
        raise
    else:
        t3 = 3
    finally:
        t4 = 4
    def inner(z1=default):
        inner_local = 1
    async def later():
        pass
    class K(Base):
        attr_in_class = 1
    if cond:
        def second():
            pass
    assert a, msg
    return a
'''


def test_every_kind_of_binding_matches_the_full_walk():
    fn = gast.parse(EVERY_BINDING).body[0]
    found = block_targets(fn.body)
    assert found is not None
    full, fast = scope_names(fn), scope_names(fn, walrus=False)
    assert fast == full
    assert [f.name for f in fast.functions] == ["inner", "second"]
    assert {"os", "np", "y", "z", "b", "c", "d", "h", "i", "n", "ann", "ann2", "p", "u", "v", "w", "x1", "x2",
            "x3", "fh", "o1", "o2", "err", "t1", "t4", "inner", "later", "K"} <= full.local
    assert not {"obj", "s", "q", "r", "z1", "inner_local", "attr_in_class", "G", "N"} & full.local
    assert bound_names(fn.body, walrus=False) == bound_names(fn.body)


def test_a_statement_it_does_not_read_leaves_the_block_to_the_full_walk():
    fn = gast.parse("def f(v):\n    match v:\n        case [a, *rest]:\n            b = 1\n").body[0]
    assert block_targets(fn.body) is None
    assert scope_names(fn, walrus=False) == scope_names(fn)
    assert bound_names(fn.body, walrus=False) == {"a", "rest", "b"}


def test_the_census_reports_walrus_so_the_pipeline_keeps_the_full_walk():
    fn = gast.parse("def f(xs):\n    if (n := len(xs)) > 1:\n        pass\n").body[0]
    assert "walrus" in take_census(fn).found
    assert "n" in scope_names(fn).local
    assert "walrus" not in take_census(gast.parse("def f(x):\n    y = x\n").body[0]).found
