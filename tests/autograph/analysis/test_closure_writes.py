import textwrap

import gast

from autograph.analysis.activity import Activity
from autograph.analysis.closure_writes import ClosureWrites


def _fn(source: str) -> gast.FunctionDef:
    return gast.parse(textwrap.dedent(source)).body[0]


def test_a_helper_calling_a_writer_sets_its_names_too():
    fn = _fn("""
        def f(x):
            count = 0
            total = 0
            def bump():
                nonlocal count
                count += 1
            def visit(v):
                nonlocal total
                total += v
                bump()
            def reader():
                return count
            for v in x:
                visit(v)
            return count
    """)
    activity = Activity.of_function(fn)
    writes = ClosureWrites.of_function(activity)
    assert writes.writers == {"bump": frozenset({"count"}), "visit": frozenset({"count", "total"})}
    loop = fn.body[-2]
    assert writes.in_block(loop.body, activity) == {"count", "total"}


def test_no_nonlocal_no_writers():
    fn = _fn("""
        def f(x):
            def g(v):
                return v + 1
            for v in x:
                g(v)
    """)
    activity = Activity.of_function(fn)
    assert ClosureWrites.of_function(activity).in_block(fn.body[-1].body, activity) == frozenset()


def test_a_nonlocal_of_an_outer_scope_the_function_does_not_bind_is_left_out():
    outer = _fn("""
        def outer():
            n = 0
            def f(x):
                def g():
                    nonlocal n
                    n += 1
                g()
            return f
    """)
    fn = outer.body[1]
    assert ClosureWrites.of_function(Activity.of_function(fn)).writers == {}


def test_setters_name_the_function_a_while_test_calls():
    fn = _fn("""
        def f(x):
            n = 0
            def bump():
                nonlocal n
                n += 1
                return n
            def twice():
                return bump() + bump()
            while twice() < x:
                pass
            return n
    """)
    activity = Activity.of_function(fn)
    writes = ClosureWrites.of_function(activity)
    loop = fn.body[-2]
    assert writes.in_block([loop.test], activity) == {"n"}
    assert writes.setters(loop.test, activity) == {"n": "twice"}
