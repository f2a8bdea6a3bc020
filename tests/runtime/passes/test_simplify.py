"""Algebraic simplification: the range trip count's identities, exact on every dtype they touch."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.backends.numpy.compiler import compile_graph
from runtime.backends.numpy.interpret import interpret
from runtime.passes import optimize, simplify
from runtime.tracing.constant import constant
from tests.runtime.tracing import build, outputs_equal


def work(graph):
    return [n.op for n in graph.nodes if n.op not in ("input", "constant")]


@pytest.mark.parametrize("fn, left", [
    (lambda x: x // 1, []),
    (lambda x: 0 - x, ["negative"]),
    (lambda x: np.negative(-x), []),
    (lambda x: -(x - 3), ["subtract"]),
    (lambda x: (x + 1) - 1, []),
    (lambda x: (2 + x) - 5, ["add"]),
    (lambda x: x // constant(np.int64(1)), []),
    (lambda x: np.maximum(-((0 - x) // 1), 0), ["maximum"]),  # range(x)'s trip count
    (lambda x: np.maximum(-((1 - (x + 1)) // 1), 0), ["maximum"]),  # range(1, x + 1)'s
])
def test_integer_identities(fn, left):
    graph = build(fn, (np.int64, ()))
    assert work(optimize(simplify(graph).verify())) == left
    for x in (np.int64(0), np.int64(7), np.int64(-3), np.int64(np.iinfo(np.int64).min)):
        with np.errstate(over="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert outputs_equal(compile_graph(graph)(x), interpret(graph, x))


@pytest.mark.parametrize("fn", [lambda x: x // 1, lambda x: 0 - x, lambda x: -(x - 3), lambda x: (x + 1) - 1])
def test_float_identities_that_do_not_hold_are_left(fn):
    # x // 1 floors a float; 0.0 - 0.0 is +0.0 where -(0.0) is -0.0; (x + 1) - 1 rounds.
    graph = build(fn, (np.float64, ()))
    assert simplify(graph) is graph


def test_double_negation_of_floats_keeps_signed_zeros_and_nans():
    graph = build(lambda x: np.negative(-x), (np.float64, (4,)))
    assert work(optimize(graph)) == []
    x = np.array([-0.0, 0.0, np.nan, -np.inf])
    assert np.array_equal(np.signbit(compile_graph(graph)(x)[0]), np.signbit(x))


def test_a_rule_whose_result_type_differs_is_left():
    # int32 // int64(1) is int64: replacing it by the int32 x would change the dtype.
    graph = build(lambda x: x // constant(np.int64(1)), (np.int32, ()))
    assert simplify(graph) is graph


@settings(max_examples=80, deadline=None)
@given(
    value=st.integers(-(2**63), 2**63 - 1),
    c1=st.integers(-(2**63), 2**63 - 1),
    c2=st.integers(-(2**63), 2**63 - 1),
    dtype=st.sampled_from([np.int64, np.int32, np.uint8, np.uint64]),
)
def test_simplified_graphs_compute_the_same_bits(value, c1, c2, dtype):
    info = np.iinfo(dtype)
    value, c1, c2 = (int(v) % (int(info.max) + 1 - int(info.min)) + int(info.min) for v in (value, c1, c2))
    k1, k2 = constant(np.asarray(c1, dtype)[()]), constant(np.asarray(c2, dtype)[()])

    def f(x):
        return -((0 - x) // 1), np.negative(-x), (x + k1) - k2, -(k1 - x), (k1 + x) - k1

    graph = build(f, (dtype, ()))
    assert "floor_divide" not in work(optimize(graph))
    x = np.asarray(value, dtype)[()]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert outputs_equal(compile_graph(graph)(x), interpret(graph, x))
