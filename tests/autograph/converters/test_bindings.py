"""bindings: carried names whose only earlier binding stayed branch-local get one at the top."""

import gast

import autograph as ag
from autograph.converters.bindings import trim_nonlocals, unresolved_nonlocals
from tests.autograph.equivalence import assert_same, normalize


def test_unresolved_nonlocals_found():
    fn = gast.parse(
        "def f(a):\n"
        "    def if_body():\n"
        "        nonlocal j, a\n"
        "        j = 1\n"
        "    def g():\n"
        "        k = 0\n"
        "        def h():\n"
        "            nonlocal k\n"
    ).body[0]
    assert unresolved_nonlocals(fn) == ["j"]


def branch_local_then_carried(c, d):
    if c:
        pass
    else:
        j = 1
    if d:
        j = 2
    else:
        raise ValueError("no j")
    return j


def test_equivalent():
    assert_same(branch_local_then_carried, 0, 1)
    assert_same(branch_local_then_carried, 1, 0)
    assert_same(branch_local_then_carried, 0, 0)


def test_helpers_declare_nonlocal_only_the_names_they_bind():
    fn = gast.parse(
        "def f(xs):\n"
        "    def loop_body(itr):\n"
        "        nonlocal i, total, seen\n"
        "        i = itr\n"
        "        [seen := x for x in xs]\n"
        "        ag__.if_stmt(i > 0, if_body, None, ('total',), nouts=1)\n"
        "    def else_body():\n"
        "        nonlocal total\n"
        "        ag__.if_stmt(total > 0, if_body, None, ('total',), nouts=1)\n"
        "    def g():\n"
        "        nonlocal total\n"
    ).body[0]
    loop_body, else_body, g = fn.body
    trim_nonlocals(fn, {id(loop_body): loop_body, id(else_body): else_body})
    assert loop_body.body[0].names == ["i", "seen"]  # a walrus in a comprehension binds here
    assert not isinstance(else_body.body[0], gast.Nonlocal)
    assert g.body[0].names == ["total"]  # the user's own functions are left as written


def elif_count(xs):
    small = large = 0
    for x in xs:
        if x < 10:
            small += 1
        elif x < 100:
            large += 1
        else:
            del x
    return small, large


def test_a_helper_that_only_calls_declares_only_what_its_operator_reads_through_it():
    """else_body binds nothing itself: it keeps no `nonlocal x`; it declares `large`, which the
    staged if it is passed to reads and rebinds through its cell (state_cells)."""
    code = normalize(ag.to_code(elif_count))
    else_body = code[code.index("def else_body():"):].splitlines()
    assert else_body[1].strip() == "nonlocal large", code
    assert else_body[2].strip().startswith("ag__.if_stmt("), code
    assert_same(elif_count, [1, 50, 500, 7])


i = 99  # a global of the name the functions below read before binding it


def read_while_unbound_after_a_loop_that_returns(x):
    if x > 0:
        while x > 5:
            i = 1  # dead after the loop: local to its body
            x -= 1
        else:
            return -2
    return i


def read_while_unbound_after_nested_loops(x):
    if x > 0:
        while x > 5:
            i = -2
            x -= 1
            while i < -2:  # a test reading i: the loop body declares it nonlocal
                x = x
        else:
            return -2
    return i


def test_a_read_before_any_binding_raises_as_python_does():
    # before: the first returned the global 99, the second Undefined('i'); both raise UnboundLocalError
    for func in (read_while_unbound_after_a_loop_that_returns, read_while_unbound_after_nested_loops):
        for x in (0.0, 3.0, 7.0):
            assert_same(func, x)
        code = ag.to_code(func)
        assert "i = ag__.Undefined('i')" in code
        assert "retval = ag__.raise_unbound('i') if ag__.is_undefined(i) else i" in code


def read_after_a_loop_binding_it_in_its_own_scope(x):
    while True:
        nxt = x / 2
        if nxt < 1:
            break
        x = nxt
    return nxt


def test_a_read_in_the_scope_that_binds_the_name_is_left_as_it_is():
    assert "ag__.not_(nxt)" not in ag.to_code(read_after_a_loop_binding_it_in_its_own_scope)
    assert ag.convert(read_after_a_loop_binding_it_in_its_own_scope)(10.0) == 0.625
