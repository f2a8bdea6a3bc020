"""A constant NumPy array captured by a Function, indexed with a staged key (issue 21, item 9)."""

import numpy as np
import pytest

import autograph as ag
from autograph.errors import StagingError

TABLE = np.array([1.0, 2.0, 4.0, 8.0])
GRID = np.arange(12.0).reshape(4, 3)


class Model:
    def __init__(self):
        self.weights = np.array([0.5, -1.0, 2.0])

    @ag.function
    def __call__(self, i):
        return self.weights[i] * 2


def lookup(i):
    return TABLE[i]


def take(i):
    return np.take(TABLE, i)


def row_start(i):
    return GRID[i, 0]


def window(i, j):
    return TABLE[i:j]


def column(j):
    return GRID[..., j]


@pytest.mark.parametrize(
    "fn, args",
    [
        (lookup, (np.int64(2),)),
        (take, (np.int64(3),)),
        (take, (np.array([0, 2]),)),
        (row_start, (np.int64(2),)),
        (window, (np.int64(1), np.int64(3))),
        (column, (np.int64(1),)),
        (lookup, (np.array([3, 0, 1]),)),
        (lookup, (np.array([True, False, True, False]),)),
    ],
    ids=["TABLE[i]", "np.take", "np.take(array)", "GRID[i, 0]", "TABLE[i:j]", "GRID[..., j]", "fancy", "mask"],
)
def test_a_captured_array_indexed_with_a_staged_key_stages_the_lookup(fn, args):
    staged = ag.function(fn)
    np.testing.assert_array_equal(staged(*args), fn(*args))
    other = tuple(np.zeros_like(a) if a.dtype != bool else ~a for a in args)
    np.testing.assert_array_equal(staged(*other), fn(*other))  # the same trace, another index
    assert staged.experimental_get_tracing_count() == 1


def test_the_lookup_is_a_graph_constant_with_the_value_seen_while_tracing():
    f = ag.function(lookup)
    assert f(np.int64(1)) == 2.0
    ops = {n.op for n in f.get_concrete_function(np.int64(0)).graph.as_graph_def().node}
    assert "Const" in ops or "constant" in ops


def test_an_attribute_array_indexed_with_a_staged_key_stages():
    model = Model()
    assert model(np.int64(2)) == 4.0
    assert model(np.int64(1)) == -2.0


def test_staged_lookups_inside_a_staged_loop():
    @ag.function
    def total(idx):
        s = 0.0
        for i in idx:
            s += TABLE[i] * GRID[i, 1]
        return s

    idx = np.array([0, 3, 3, 1])
    assert total(idx) == sum(TABLE[i] * GRID[i, 1] for i in idx)


def test_python_mode_indexes_as_python_does():
    converted = ag.convert(window)
    np.testing.assert_array_equal(converted(1, 3), TABLE[1:3])
    assert ag.convert(lookup)(-1) == 8.0
    with pytest.raises(IndexError):
        ag.convert(lookup)(7)


def test_constant_keys_and_local_names_are_left_as_written():
    def f(x, i):
        return TABLE[0] + TABLE[-1] + TABLE[1:][0] + x[i]

    code = ag.to_code(f)
    assert "TABLE[0]" in code and "TABLE[-1]" in code and "x[i]" in code
    assert "getitem" not in code


def test_a_local_array_indexed_with_a_staged_key_says_how_to_stage_it():
    @ag.function
    def f(i):
        table = np.array([1.0, 2.0])
        return table[i]

    with pytest.raises(StagingError) as info:
        f(np.int64(1))
    message = str(info.value)
    assert "ag.constant(table)[i]" in message and "table[i]" in message
    assert ".astype" not in message  # the misleading cast hint of issue 21


def test_lookups_in_both_branches_of_a_staged_if():
    @ag.function
    def pick(i, flag):
        if flag > 0:
            y = TABLE[i]
        else:
            y = GRID[i, 2]
        return y

    assert pick(np.int64(1), np.int64(1)) == 2.0
    assert pick(np.int64(1), np.int64(0)) == 5.0


def test_a_variable_index():
    position = ag.Variable(np.int64(0))

    @ag.function
    def step():
        value = TABLE[position]
        position.assign_add(1)
        return value

    assert [float(step()) for _ in range(3)] == [1.0, 2.0, 4.0]


def test_the_take_method_of_a_captured_array_says_how_to_stage_it():
    @ag.function
    def f(i):
        return TABLE.take(i)

    with pytest.raises(StagingError) as info:
        f(np.int64(1))
    message = str(info.value)
    assert "ag.constant(table)[i]" in message and "np.take(TABLE, i)" in message
    assert ".astype" not in message
