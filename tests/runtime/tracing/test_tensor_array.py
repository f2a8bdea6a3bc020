"""TensorArray: eager NumPy behaviour, staged handles through loops and conds, O(1) writes."""

import numpy as np
import pytest

from runtime.backends.numpy.compiler import compile_graph
from runtime.backends.numpy.interpret import interpret
from runtime.ir.errors import InvalidArgumentError, StagingError
from runtime.tracing.control_flow import cond, while_loop
from runtime.tracing.tensor_array import TensorArray
from tests.runtime.tracing import build


def test_eager_write_read_stack_size():
    ta = TensorArray(np.float32, size=2)
    ta = ta.write(0, [1, 2]).write(1, np.array([3, 4]))
    np.testing.assert_array_equal(ta.read(1), [3, 4])
    stacked = ta.stack()
    assert stacked.dtype == np.float32 and stacked.shape == (2, 2)
    assert ta.size() == 2 and type(ta.size()) is np.int64


def test_eager_dynamic_growth_and_bounds():
    ta = TensorArray(np.int64, dynamic_size=True)
    for i in range(3):
        ta = ta.write(i, i * 10)
    np.testing.assert_array_equal(ta.stack(), [0, 10, 20])
    with pytest.raises(InvalidArgumentError, match="out of bounds"):
        TensorArray(np.int64, size=1).write(1, 5)
    with pytest.raises(InvalidArgumentError, match="read before it was written"):
        TensorArray(np.int64, size=2).read(1)


def test_eager_unstack_and_empty_stack():
    ta = TensorArray(np.float64).unstack(np.arange(6.0).reshape(3, 2))
    assert ta.size() == 3
    np.testing.assert_array_equal(ta.read(2), [4.0, 5.0])
    assert TensorArray(np.float64, element_shape=(2,)).stack().shape == (0, 2)
    with pytest.raises(InvalidArgumentError, match=r"element shape is unknown; create it with element_shape="):
        TensorArray(np.float64, size=0, dynamic_size=True).stack()


def dynamic_rnn(xs, w):
    inputs = TensorArray(np.float64, size=0).unstack(xs)
    outputs = TensorArray(np.float64, size=0, dynamic_size=True)

    def body(i, h, outputs):
        h = np.tanh(inputs.read(i) + h @ w)
        return i + 1, h, outputs.write(i, h)

    n = xs.shape[0]
    _, h, outputs = while_loop(lambda i, h, outputs: i < n, body, (0, np.zeros(4), outputs),
                               names=("i", "h", "outputs"))
    return outputs.stack(), h


def reference_rnn(xs, w):
    h, rows = np.zeros(4), []
    for x in xs:
        h = np.tanh(x + h @ w)
        rows.append(h)
    return np.stack(rows), h


def test_staged_tensor_array_as_a_loop_variable():
    graph = build(dynamic_rnn, (np.float64, (50, 4)), (np.float64, (4, 4))).verify()
    xs, w = np.random.default_rng(0).normal(size=(50, 4)), np.eye(4) * 0.5
    stacked, h = compile_graph(graph)(xs, w)
    expected, expected_h = reference_rnn(xs, w)
    np.testing.assert_allclose(stacked, expected)
    np.testing.assert_allclose(h, expected_h)
    np.testing.assert_allclose(interpret(graph, xs, w)[0], expected)
    stack_node = graph.outputs[0]
    assert stack_node.type.dtype == np.float64 and stack_node.type.shape == (None, 4)


def positives(xs):
    """A filter: elements written only under a tensor-dependent cond."""
    out = TensorArray(np.float64, size=0, dynamic_size=True)

    def body(i, out):
        out = cond(xs[i] > 0, lambda: out.write(out.size(), xs[i]), lambda: out)
        return i + 1, out

    _, out = while_loop(lambda i, out: i < xs.shape[0], body, (0, out), names=("i", "out"))
    return out.stack()


def test_an_array_written_only_in_one_branch_stacks_empty_with_the_written_shape():
    graph = build(positives, (np.float64, (3,))).verify()
    assert graph.outputs[0].type.shape == (None,)
    run = compile_graph(graph)
    np.testing.assert_array_equal(run(np.array([1.0, -1.0, 2.0]))[0], [1.0, 2.0])
    empty = run(np.array([-1.0, -2.0, -3.0]))[0]
    assert empty.shape == (0,) and empty.dtype == np.float64
    assert interpret(graph, np.array([-1.0, -2.0, -3.0]))[0].shape == (0,)


def test_handles_are_object_tensors_and_writes_in_a_loop_are_in_place():
    graph = build(dynamic_rnn, (np.float64, (5, 4)), (np.float64, (4, 4)))
    loop = next(n for n in graph.nodes if n.op == "while")
    assert loop.type[2].dtype == object and loop.type[2].shape == ()
    source = compile_graph(graph).source
    assert "ta_write(" in source and ".copy()" not in source


def test_a_write_copies_when_the_old_array_is_still_used():
    def f(x):
        ta = TensorArray(np.int64, size=2).write(0, x).write(1, x)
        other = ta.write(0, x * 10)
        return ta.stack(), other.stack()

    graph = build(f, (np.int64, ()))
    assert ".copy()" in compile_graph(graph).source
    first, second = compile_graph(graph)(np.int64(1))
    np.testing.assert_array_equal(first, [1, 1])
    np.testing.assert_array_equal(second, [10, 1])


def test_tensor_array_through_a_cond():
    def f(x):
        ta = TensorArray(np.int64, size=2).write(0, x)
        ta = cond(x > 0, lambda: ta.write(1, x * 2), lambda: ta.write(1, -x))
        return ta.stack(), ta.size()

    graph = build(f, (np.int64, ()))
    fn = compile_graph(graph)
    out, size = fn(np.int64(3))
    np.testing.assert_array_equal(out, [3, 6])
    assert size == 2 and type(size) is np.int64
    np.testing.assert_array_equal(fn(np.int64(-3))[0], [-3, 3])
    np.testing.assert_array_equal(interpret(graph, np.int64(-3))[0], [-3, 3])


def test_a_loop_does_not_write_into_an_array_used_after_it():
    def f(n):
        start = TensorArray(np.int64, size=0, dynamic_size=True).write(0, n)
        (_, grown) = while_loop(lambda i, ta: i < 3, lambda i, ta: (i + 1, ta.write(i + 1, i)),
                                (0, start))
        return start.size(), grown.size()

    assert compile_graph(build(f, (np.int64, ())))(np.int64(7)) == [1, 4]


def test_arrays_made_by_unstack_are_read_by_plain_indexing():
    graph = build(lambda xs: TensorArray(np.float64).unstack(xs).read(1), (np.float64, (3, 2)))
    source = compile_graph(graph).source
    assert "ta_read(" not in source and "[np.int64(1)]" in source
    np.testing.assert_array_equal(compile_graph(graph)(np.arange(6.0).reshape(3, 2))[0], [2.0, 3.0])


def test_a_cond_output_only_claims_what_both_branches_guarantee():
    def f(xs, x):
        dense = TensorArray(np.float64).unstack(xs)
        merged = cond(x > 0, lambda: dense, lambda: dense.write(0, xs[1]))
        return merged.read(0)

    graph = build(f, (np.float64, (3, 2)), (np.float64, ()))
    assert "ta_read(" in compile_graph(graph).source
    out = compile_graph(graph)(np.arange(6.0).reshape(3, 2), np.float64(-1))[0]
    np.testing.assert_array_equal(out, [2.0, 3.0])


def test_writes_after_a_cond_never_reach_an_array_from_outside_it():
    def f(x):
        ta = TensorArray(np.int64, size=2).write(0, x).write(1, x)
        picked = cond(x > 0, lambda: ta, lambda: ta.write(0, -x))
        later = picked.write(1, x * 10)
        return later.stack(), ta.stack()

    graph = build(f, (np.int64, ()))
    later, original = compile_graph(graph)(np.int64(1))
    np.testing.assert_array_equal(later, [1, 10])
    np.testing.assert_array_equal(original, [1, 1])


def test_writes_in_a_loop_never_reach_an_array_the_body_returns_from_outside():
    def f(x):
        outer = TensorArray(np.int64, size=2).write(0, x).write(1, x)

        def body(i, ta):
            return i + 1, cond(i > 0, lambda: ta.write(0, i), lambda: outer)

        _, result = while_loop(lambda i, ta: i < 3, body, (0, outer))
        return outer.stack(), result.stack()

    graph = build(f, (np.int64, ()))
    original, result = compile_graph(graph)(np.int64(7))
    np.testing.assert_array_equal(original, [7, 7])
    np.testing.assert_array_equal(result, [2, 7])
    np.testing.assert_array_equal(interpret(graph, np.int64(7))[1], [2, 7])


def test_stack_is_np_stack_of_the_elements():
    from runtime.ops.state import ta_stack

    dtype = np.dtype(np.float32)
    rows = [np.full((2, 3), i, dtype) for i in range(4)]
    stacked = ta_stack(rows, dtype, (2, 3))
    np.testing.assert_array_equal(stacked, np.stack(rows))
    assert stacked.dtype == dtype and stacked.flags.c_contiguous
    scalars = ta_stack([np.float32(1), np.float32(2)], dtype, ())
    assert scalars.shape == (2,) and scalars.dtype == dtype
    texts = [np.array(["ab", "c"]), np.array(["d", "efg"])]
    assert ta_stack(texts, texts[0].dtype, (2,)).dtype == np.stack(texts).dtype
    with pytest.raises(ValueError, match="same shape"):
        ta_stack([np.ones((2, 3), dtype), np.ones((3, 3), dtype)], dtype, None)


@pytest.mark.parametrize("element_shape", [(2, 3), (), None])
@pytest.mark.parametrize("missing", [[0], [2], [0, 1, 2, 3]])
def test_stack_names_an_unwritten_element_whatever_the_element_shape(element_shape, missing):
    from runtime.ir.errors import InvalidArgumentError
    from runtime.ops.state import ta_stack

    dtype = np.dtype(np.float32)
    shape = element_shape or ()
    items = [None if i in missing else np.full(shape, i, dtype) for i in range(4)]
    with pytest.raises(InvalidArgumentError, match=f"element {missing[0]} was never written"):
        ta_stack(items, dtype, element_shape)


def test_a_size_of_none_while_tracing_says_to_use_len():
    def f(x):
        return TensorArray(np.float64, size=x.shape[0]).stack()

    with pytest.raises(StagingError, match=r"TensorArray\(float64, size=None\) gets None where a size is expected"):
        build(f, (np.float64, (None, 3)))
