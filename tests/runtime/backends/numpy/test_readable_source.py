"""The graph source reads like the user's code: names, inlined expressions, comments; values unchanged."""

import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.backends.numpy.compiler import compile_graph, to_source
from runtime.backends.numpy.inlining import ATOM, Expr, placeholder, substitute
from runtime.backends.numpy.interpret import interpret
from runtime.tracing.control_flow import cond, while_loop
from runtime.tracing.effects import print_
from tests.runtime.tracing import build, outputs_equal

P0, P1 = placeholder(0), placeholder(1)


@pytest.mark.parametrize("template, part, expected", [
    (f"{P0} == 0", Expr("n % 2", 10), "n % 2 == 0"),
    (f"-{P0}", Expr("a - b", 9), "-(a - b)"),
    (f"-{P0}", Expr("-x", 11), "-(-x)"),
    (f"{P0} * c", Expr("a + b", 9), "(a + b) * c"),
    (f"c - {P0}", Expr("a - b", 9), "c - (a - b)"),
    (f"{P0} - c", Expr("a - b", 9), "a - b - c"),
    (f"{P0} ** 2", Expr("-x", 11), "(-x) ** 2"),
    (f"2 ** {P0}", Expr("-x", 11), "2 ** -x"),
    (f"{P0}.sum()", Expr("x + 1", 9), "(x + 1).sum()"),
    (f"np.tanh({P0})", Expr("a + b", 9), "np.tanh(a + b)"),
    (f"x[{P0}]", Expr("i + 1", 9), "x[i + 1]"),
    (f"{P0} < c", Expr("a < b", 4), "(a < b) < c"),
    (f"f({P0}, {P0})", Expr("a", ATOM), None),  # an operand written twice would be evaluated twice
])
def test_operands_get_parentheses_only_where_precedence_needs_them(template, part, expected):
    result = substitute(template, {P0: part})
    assert (result.text if result is not None else None) == expected


_BINARY = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
           "%": operator.mod, "**": operator.pow, "&": operator.and_, "|": operator.or_, "<<": operator.lshift,
           "<": operator.lt, "==": operator.eq}

trees = st.recursive(
    st.integers(-3, 3),
    lambda inner: st.one_of(
        st.tuples(st.sampled_from(sorted(_BINARY)), inner, inner),
        st.tuples(st.sampled_from(["-", "~", "not"]), inner),
    ),
    max_leaves=6,
)


def _render(tree) -> Expr:
    """The tree written the way the code generator writes nested operands: placeholders substituted."""
    if isinstance(tree, int):
        return Expr(f"({tree})")
    if len(tree) == 2:
        op, operand = tree
        return substitute(f"{op} {P0}" if op == "not" else f"{op}{P0}", {P0: _render(operand)})
    op, left, right = tree
    return substitute(f"{P0} {op} {P1}", {P0: _render(left), P1: _render(right)})


def _value(tree):
    if isinstance(tree, int):
        return tree
    if len(tree) == 2:
        op, operand = tree
        value = _value(operand)
        return {"-": operator.neg, "~": operator.invert, "not": operator.not_}[op](value)
    op, left, right = tree
    return _BINARY[op](_value(left), _value(right))


@settings(max_examples=300, deadline=None)
@given(trees)
def test_substituted_expressions_mean_what_the_tree_means(tree):
    try:
        expected = _value(tree)
    except (ZeroDivisionError, ValueError, OverflowError, TypeError):
        return
    if isinstance(expected, int) and abs(expected) > 10**12:
        return
    assert eval(_render(tree).text) == expected  # noqa: S307 - our own arithmetic


def _collatz(n):
    def body(n, steps):
        n = cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1)
        return n, steps + 1

    return while_loop(lambda n, steps: n != 1, body, (n, np.int64(0)), names=("n", "steps"))[1]


def test_loop_variables_keep_the_users_names_without_copies():
    graph = build(_collatz, (np.int64, ()), names=("n",))
    source = to_source(graph)
    body = [line.strip() for line in source.splitlines() if not line.strip().startswith("#")]
    assert body == [
        "def _collatz(n):", "steps = np.int64(0)", "while n != 1:", "if n % 2 == 0:", "n = n // 2", "else:",
        "n = 3 * n + 1", "steps = steps + 1", "return [steps]",
    ]
    assert compile_graph(graph)(np.int64(27)) == [np.int64(111)]


def test_a_comment_names_the_user_line_before_its_code():
    source = to_source(build(_collatz, (np.int64, ()), names=("n",)))
    lines = source.splitlines()
    at = lines.index("        if n % 2 == 0:")
    where = f"# test_readable_source.py:{_collatz.__code__.co_firstlineno + 2}"
    assert lines[at - 1].strip() == f"{where}  n = cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1)"
    assert sum(line.strip().startswith(where) for line in lines) == 1


def _check(fn, *types_and_args):
    types = [t for t, _ in types_and_args]
    args = [a for _, a in types_and_args]
    graph = build(fn, *types)
    assert outputs_equal(compile_graph(graph)(*args), interpret(graph, *args))
    assert outputs_equal(compile_graph(graph, optimize=False)(*args), interpret(graph, *args))
    return [line.strip() for line in to_source(graph).splitlines() if not line.strip().startswith("#")]


def test_a_swap_keeps_the_parallel_assignment():
    def f(a, b):
        return while_loop(lambda i, a, b: i < 3, lambda i, a, b: (i + 1, b, a), (0, a, b), names=("i", "a", "b"))

    graph = build(f, (np.int64, ()), (np.int64, ()), names=("a", "b"))
    assert "        a, b = b, a" in to_source(graph).splitlines()
    assert compile_graph(graph)(np.int64(1), np.int64(2)) == [3, 2, 1]


def test_an_old_value_read_after_the_new_one_is_computed_stays_apart():
    def f(x):
        def body(i, a, b):
            new_a = a * 2 + 1
            return i + 1, new_a, b + a  # b reads the old a after new_a is computed

        return while_loop(lambda i, a, b: i < 4, body, (0, x, x), names=("i", "a", "b"))[1:]

    source = _check(f, ((np.int64, ()), np.int64(3)))
    assert "a = a * 2 + 1" not in source and "a_1 = a * 2 + 1" in source and "a = a_1" in source


def test_a_branch_that_reads_the_old_value_after_writing_the_new_one_keeps_it_apart():
    def f(x):
        def body(i, a):
            def true_fn():
                new = a + 1
                print_(a)  # reads the old a after the new one is made
                return new

            return i + 1, cond(a > 2, true_fn, lambda: a - 1)

        return while_loop(lambda i, a: i < 3, body, (0, x), names=("i", "a"))[1]

    source = _check(f, ((np.int64, ()), np.int64(5)))
    assert "a = a + 1" not in source and "a_1 = a + 1" in source


def test_a_value_used_twice_or_on_another_line_is_a_statement_of_its_own():
    def f(x):
        y = x * 2
        z = y + y
        return z - 1

    source = to_source(build(f, (np.int64, ())))
    assert "multiply = x * 2" in source and "add = multiply + multiply" in source
    assert "subtract = add - 1" in source  # another line: not inlined


def test_operands_are_not_reordered_across_effects():
    def f(x):
        return (x * 3) + print_(x) * 0 if False else x * 3 + 1  # one line, no effect between

    assert "x * 3 + 1" in to_source(build(f, (np.int64, ())))


def test_calls_that_print_differently_never_share_a_template():
    # 0.0 == -0.0 (and 1 == True): a template remembered by value would print one for the other
    for first, second in ((0.0, -0.0), (1, True), (-0.0, 0.0)):
        a = to_source(build(lambda x, c=first: np.arctan2(c, x) + 1, (np.float64, ())))
        b = to_source(build(lambda x, c=second: np.arctan2(c, x) + 1, (np.float64, ())))
        assert repr(first) in a.split("\n", 2)[2] and repr(second) in b.split("\n", 2)[2], (a, b)
    assert compile_graph(build(lambda x: np.arctan2(-0.0, x), (np.float64, ())))(np.float64(-1.0)) == [-np.pi]
