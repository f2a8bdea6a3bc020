"""Guide section "AutoGraph transformations", end to end through ag.function.

Each example is written as in the guide (with NumPy and ag.*), traced by
ag.function and run; tests print what the guide prints, plus node counts.
"""

from __future__ import annotations

import inspect
import sys

import numpy as np
import pytest

import autograph as ag


def line_of(fn, marker: str) -> str:
    """`file:line` of the line of `fn`'s source holding `marker`."""
    lines, start = inspect.getsourcelines(fn)
    for offset, text in enumerate(lines):
        if marker in text:
            return f"{inspect.getsourcefile(fn)}:{start + offset}"
    raise AssertionError(marker)


def node_count(f, *args) -> int:
    return len(f.get_concrete_function(*args).graph.as_graph_def().node)


# -- A simple loop ----------------------------------------------------------------
@ag.function
def tanh_loop(x):
    while np.sum(x) > 1:
        ag.print(x)
        x = np.tanh(x)
    return x


def test_simple_loop(capsys):
    start = np.array([0.666, 0.714, 0.724, 0.331, 0.184], np.float32)
    result = tanh_loop(start)
    printed = capsys.readouterr().out.splitlines()
    expected = start
    steps = 0
    while np.sum(expected) > 1:
        expected = np.tanh(expected)
        steps += 1
    np.testing.assert_allclose(result, expected, rtol=1e-6)
    assert len(printed) == steps
    print("\n".join(printed))
    print(f"tanh loop: {node_count(tanh_loop, start)} nodes")


# -- fizzbuzz: a staged for over ag.range with a nested cond ------------------------
@ag.function
def fizzbuzz(n):
    for i in ag.range(1, n + 1):
        print("Tracing for loop")
        if i % 15 == 0:
            print("Tracing fizzbuzz branch")
            ag.print("fizzbuzz")
        elif i % 3 == 0:
            print("Tracing fizz branch")
            ag.print("fizz")
        elif i % 5 == 0:
            print("Tracing buzz branch")
            ag.print("buzz")
        else:
            print("Tracing default branch")
            ag.print(i)


def test_fizzbuzz(capsys):
    fizzbuzz(np.int64(5))
    fizzbuzz(np.int64(20))
    out = capsys.readouterr().out.splitlines()
    assert out[:5] == ["Tracing for loop", "Tracing fizzbuzz branch", "Tracing fizz branch",
                       "Tracing buzz branch", "Tracing default branch"]
    expected = ["fizzbuzz" if i % 15 == 0 else "fizz" if i % 3 == 0 else "buzz" if i % 5 == 0
                else str(i) for n in (5, 20) for i in range(1, n + 1)]
    assert out[5:] == expected
    print("\n".join(out))


# -- collatz: a staged while with a conditional expression ---------------------------
@ag.function
def collatz(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def test_collatz_is_traced_once():
    assert collatz(np.int64(27)) == 111
    assert collatz(np.int64(97)) == 118
    assert collatz(np.int64(1)) == 0
    assert collatz.experimental_get_tracing_count() == 1
    print(f"collatz: {node_count(collatz, np.int64(27))} nodes, traced once for 27, 97 and 1")


# -- Accumulating values in a loop ---------------------------------------------------
def rnn_step(inp, state):
    return inp + state


@ag.function
def dynamic_rnn(rnn_step, input_data, initial_state):
    # [batch, time, features] -> [time, batch, features]
    input_data = np.transpose(input_data, (1, 0, 2))
    max_seq_len = input_data.shape[0]

    states = ag.TensorArray(np.float32, size=max_seq_len)
    state = initial_state
    for i in ag.range(max_seq_len):
        state = rnn_step(input_data[i], state)
        states = states.write(i, state)
    return np.transpose(states.stack(), (1, 0, 2))


def test_dynamic_rnn():
    batch_size, seq_len, feature_size = 2, 3, 4
    data = np.random.default_rng(1).uniform(size=(batch_size, seq_len, feature_size)).astype(np.float32)
    result = dynamic_rnn(rnn_step, data, np.zeros((batch_size, feature_size), np.float32))
    print(repr(result))
    assert result.shape == (2, 3, 4) and result.dtype == np.float32
    np.testing.assert_allclose(result, np.cumsum(data, axis=1), rtol=1e-6)


@ag.function
def doubled(xs):
    outputs = []
    for x in xs:
        outputs.append(x * 2)
    return np.stack(outputs)


@ag.function
def squares(xs):
    out = []
    for x in xs:
        out.append(x * x)
    return out


def test_accumulate_in_a_python_list_inside_a_staged_loop():
    assert squares(np.array([1, 2, 3])) == [1, 4, 9]
    np.testing.assert_array_equal(doubled(np.array([1, 2, 3])), [2, 4, 6])
    np.testing.assert_array_equal(doubled(np.array([4, 5, 6, 7])), [8, 10, 12, 14])
    print(f"accumulate: {node_count(doubled, np.array([1, 2, 3]))} nodes")


# -- Looping over Python data vs over a tensor ----------------------------------------
@ag.function
def train(dataset):
    loss = ag.constant(0)
    for x, y in dataset:
        loss += np.abs(y - x)
    return loss


@pytest.mark.filterwarnings("ignore:.*traced a new graph")
def test_train_loop_over_python_data_grows_over_a_tensor_does_not():
    small, big = [(1, 1)] * 3, [(1, 1)] * 10
    python_sizes = [node_count(train, small), node_count(train, big)]
    tensor_sizes = [node_count(train, np.ones((3, 2), np.int64)), node_count(train, np.ones((10, 2), np.int64))]
    print(f"train over a Python list: {python_sizes} nodes; over a tensor: {tensor_sizes} nodes")
    assert python_sizes[1] > python_sizes[0]
    assert tensor_sizes[0] == tensor_sizes[1]
    assert train(np.array([[1, 4], [5, 2]])) == 6


# -- break, continue, return, for/else, builtins ------------------------------------
@ag.function
def first_index_over(xs, limit):
    for i, x in enumerate(xs):
        if x > limit:
            return i
    return -1


def test_return_from_inside_a_staged_loop():
    assert first_index_over(np.array([1, 5, 9]), np.int64(4)) == 1
    assert first_index_over(np.array([1, 2]), np.int64(4)) == -1


@ag.function
def sum_until_negative_skipping_odd(xs):
    total = 0
    for x in xs:
        if x < 0:
            break
        if x % 2 == 1:
            continue
        total += x
    else:
        total = -total
    return total


def test_break_continue_and_for_else():
    def python(xs):
        total = 0
        for x in xs:
            if x < 0:
                break
            if x % 2 == 1:
                continue
            total += x
        else:
            total = -total
        return total

    for xs in ([2, 3, 4, -1, 6], [2, 3, 4], []):
        array = np.array(xs, np.int64)
        assert sum_until_negative_skipping_odd(array) == python(xs)


@ag.function
def builtins_on_tensors(xs, n):
    total = 0.0
    for i in range(n):
        total += float(xs[i % len(xs)])
    return int(total), abs(min(xs)), max(xs)


def test_builtins_on_tensors():
    total, smallest, largest = builtins_on_tensors(np.array([3, -1, 2]), np.int64(5))
    assert (total, smallest, largest) == (3 - 1 + 2 + 3 - 1, 1, 3)


# -- errors name the user's line -------------------------------------------------------
def test_name_defined_in_one_branch_only():
    @ag.function
    def f(x):
        if x > 0:  # <- if
            y = x
        return y

    with pytest.raises(ag.errors.StagingError) as info:
        f(np.int64(1))
    print(info.value)
    assert "'y' is defined only in the true branch" in str(info.value)
    assert line_of(f.python_function, "# <- if") in str(info.value)


def test_the_if_of_a_comprehension_is_not_converted_and_the_error_says_so():
    @ag.function
    def positives(x):
        return [v for v in (x[0], x[1]) if v > 0]  # <- comprehension

    with pytest.raises(ag.errors.StagingError) as info:
        positives(np.array([1.0, -1.0]))
    message = str(info.value)
    assert line_of(positives.python_function, "# <- comprehension") in message
    if sys.version_info < (3, 12):  # later Pythons run comprehensions in the function's own frame
        assert "The `if` of a comprehension is not converted: write a for loop" in message


def test_a_name_deleted_in_one_branch():
    """Staged, both branches run; the one that deletes `y` leaves it Undefined, not a NameError
    of a generated function: fine while nothing reads `y` after the if, reported when something does."""

    @ag.function
    def dropped(x):
        y = x * 2
        if x > 0:
            del y
        return x

    @ag.function
    def read_after(x):
        y = x * 2
        if x > 0:  # <- del
            del y
        return y

    assert dropped(np.float64(1.0)) == 1.0 and dropped(np.float64(-1.0)) == -1.0
    with pytest.raises(ag.errors.StagingError) as info:
        read_after(np.float64(1.0))
    assert "'y' is defined only in the false branch" in str(info.value)
    assert line_of(read_after.python_function, "# <- del") in str(info.value)


def test_dtype_change_in_a_loop_suggests_the_initial_value():
    @ag.function
    def f(n):
        x = 0
        while x < n:  # <- while
            x = x + 0.5
        return x

    with pytest.raises(ag.errors.StagingError) as info:
        f(np.float64(3))
    print(info.value)
    assert "x = 0.0" in str(info.value)
    assert line_of(f.python_function, "# <- while") in str(info.value)


def test_tensor_break_in_a_python_loop():
    @ag.function
    def f(x):
        for i in range(3):  # <- for
            x = x + i
            if x > 10:
                break
        return x

    with pytest.raises(ag.errors.StagingError) as info:
        f(np.int64(1))
    print(info.value)
    assert "ag.range" in str(info.value)
    assert line_of(f.python_function, "# <- for") in str(info.value)


def test_staged_assert_fails_when_the_graph_runs():
    @ag.function
    def f(x):
        assert x > 0, "x must be positive"  # <- assert
        return x

    assert f(np.int64(2)) == 2
    with pytest.raises(ag.errors.InvalidArgumentError) as info:
        f(np.int64(-2))
    print(info.value)
    assert "x must be positive" in str(info.value)
    assert line_of(f.python_function, "# <- assert") in str(info.value)


@ag.function
def last_square(n):
    for i in ag.range(n):  # <- first bound
        y = i * i
    return y


def test_name_first_bound_in_a_staged_loop_needs_one_iteration():
    assert last_square(np.int64(4)) == 9
    with pytest.raises(ag.errors.InvalidArgumentError) as info:
        last_square(np.int64(0))
    print(info.value)
    assert "'y' is first bound inside the for loop" in str(info.value)
    assert line_of(last_square.python_function, "# <- first bound") in str(info.value)


def test_branches_with_different_structures_or_none():
    @ag.function
    def structures(x):
        if x > 0:  # <- structures
            r = (x, x)
        else:
            r = x
        return r

    @ag.function
    def none_on_one_side(x):
        r = None
        if x > 0:  # <- none
            r = x
        return r

    for f, marker, expected in ((structures, "# <- structures", "'r' has a different structure"),
                                (none_on_one_side, "# <- none", "'r' is an int64[] Tensor in the true branch and None")):
        with pytest.raises(ag.errors.StagingError) as info:
            f(np.int64(1))
        print(info.value)
        assert expected in str(info.value)
        assert line_of(f.python_function, marker) in str(info.value)


def test_appending_strings_in_a_staged_loop_names_the_list():
    @ag.function
    def f(xs):
        out = []
        for _x in xs:  # <- append
            out.append("a")
        return xs

    with pytest.raises(ag.errors.StagingError) as info:
        f(np.array([1]))
    assert "the list 'out' is appended str values inside a staged loop" in str(info.value)
    assert line_of(f.python_function, "# <- append") in str(info.value)


@ag.function
def python_test_then_tensor(t):
    x = 0
    while x < 10:
        x = x + t
    return x


@ag.function
def logic(a, b):
    return (a > 0 and b > 0) or not (a < -5)


@ag.function
def nested_structures(xs):
    acc = {"total": 0.0, "count": 0}
    for x in xs:
        acc = {"total": acc["total"] + x, "count": acc["count"] + 1}
    return acc["total"] / acc["count"]


@ag.function
def zipped(a, b):
    s = 0
    for x, y in zip(a, b):
        s += x * y
    return s


@ag.function
def while_else(n):
    i = 0
    while i < n:
        if i == 3:
            break
        i += 1
    else:
        i = -1
    return i


@ag.function
def nested_loops(n):
    total = 0
    for i in ag.range(n):
        j = 0
        while j < i:
            total += j
            j += 1
    return total


def test_more_control_flow_end_to_end():
    assert python_test_then_tensor(np.int64(3)) == 12
    assert [bool(logic(np.int64(a), np.int64(b))) for a in (-6, 1) for b in (-1, 1)] == [
        (a > 0 and b > 0) or not (a < -5) for a in (-6, 1) for b in (-1, 1)]
    assert nested_structures(np.array([1.0, 5.0, 3.0])) == 3.0
    assert zipped(np.array([1, 2, 3]), np.array([4, 5, 6, 7])) == 32
    assert (while_else(np.int64(2)), while_else(np.int64(10))) == (-1, 3)
    assert nested_loops(np.int64(5)) == sum(j for i in range(5) for j in range(i))


@ag.function
def grow(n):
    x = np.zeros(1)
    i = 0
    while i < n:
        ag.set_loop_options(shape_invariants=[(x, (None,))], maximum_iterations=3)
        x = np.concatenate([x, x[:1] + 1.0])
        i += 1
    return x


@ag.function
def rank_grows(n):
    x = np.zeros(())
    for _ in ag.range(n):
        ag.set_loop_options(shape_invariants=[(x, None)])
        x = np.stack([x, x])
    return x


@ag.function
def tensor_array_in_a_cond(n):
    ta = ag.TensorArray(np.int64, size=2)
    if n > 0:
        ta = ta.write(0, n)
    else:
        ta = ta.write(0, -n)
    ta = ta.write(1, n)
    return ta.stack()


@ag.function
def early_return(x):
    if x > 0:
        return x
    return -x


@ag.function
def first_negative_index(xs):
    i = 0
    while i < len(xs):
        if xs[i] < 0:
            break
        i += 1
    return i


def test_loop_options_tensor_arrays_in_conds_and_early_returns():
    np.testing.assert_array_equal(grow(np.int64(5)), [0.0, 1.0, 1.0, 1.0])
    assert rank_grows(np.int64(2)).shape == (2, 2)
    np.testing.assert_array_equal(tensor_array_in_a_cond(np.int64(-2)), [2, -2])
    assert (early_return(np.int64(-3)), early_return(np.int64(4))) == (3, 4)
    assert first_negative_index(np.array([1, 2, -1, 3])) == 2
    assert first_negative_index(np.array([1])) == 1


@ag.function
def return_in_else(x):
    if x < 0:
        x = x * 2
    else:
        return x
    return -x


@ag.function
def first_non_negative(xs):
    for x in xs:
        if x < 0:
            continue
        else:
            return x
    return np.int64(-1)


def test_return_bound_only_in_the_false_branch():
    assert (return_in_else(np.int64(-3)), return_in_else(np.int64(3))) == (6, 3)
    assert first_non_negative(np.array([-1, -2, 5])) == 5
    assert first_non_negative(np.array([-1])) == -1


@ag.function
def weighted(xs):
    s = 0
    for x, w in zip(xs, [1, 2, 3]):
        s += x * w
    return s


@ag.function
def enumerate_from_one(xs):
    s = 0
    for i, x in enumerate(xs, 1):
        s += i * x
    return s


def test_zip_with_a_python_list_and_enumerate_with_a_start():
    assert weighted(np.array([1, 1, 1, 1])) == 6
    assert enumerate_from_one(np.array([1, 1, 1])) == 6


# -- Tracing "if" and "while": tensors trace every branch once, Python values unroll -----
@ag.function
def which_branch(n):
    if n == 0:
        print("Tracing branch 1")
        result = n * 0
    elif n == 1:
        print("Tracing branch 2")
        result = n * 10
    else:
        print("Tracing branch 3")
        result = n * 100
    return result


def test_tensor_if_traces_every_branch_python_if_one(capsys):
    assert which_branch(np.int64(1)) == 10
    assert capsys.readouterr().out.splitlines() == [
        "Tracing branch 1", "Tracing branch 2", "Tracing branch 3"]
    assert which_branch(np.int64(2)) == 200
    assert capsys.readouterr().out == ""
    assert which_branch(1) == 10
    assert capsys.readouterr().out.splitlines() == ["Tracing branch 2"]


@ag.function
def add_n_times(x, n):
    i = 0
    while i < n:
        x = x + 1
        i += 1
    return x


@pytest.mark.filterwarnings("ignore:.*traced a new graph")
def test_python_while_unrolls_tensor_while_is_one_loop():
    x = np.float64(0.5)
    sizes = {n: node_count(add_n_times, x, n) for n in (3, 6)}
    tensor_size = node_count(add_n_times, x, np.int64(3))
    print(f"while over a Python bound: {sizes} nodes; over a tensor bound: {tensor_size} nodes")
    assert sizes[6] > sizes[3]
    assert node_count(add_n_times, x, np.int64(6)) == tensor_size
    assert add_n_times(x, np.int64(6)) == 6.5 and add_n_times(x, 4) == 4.5


@ag.function
def relu(x):
    if x > 0:
        y = x
    else:
        y = 0
    return y


def test_python_scalar_in_one_branch_takes_the_tensor_dtype():
    assert relu(np.float32(1.5)) == 1.5
    assert relu(np.float32(-1.5)) == 0.0 and relu(np.float32(-1.5)).dtype == np.float32


def test_a_tensor_tested_with_in_against_a_python_list_points_to_np_isin():
    @ag.function
    def allowed(x):
        if x not in [1, 2, 3]:  # <- in
            return 0
        return 1

    with pytest.raises(ag.errors.StagingError) as info:
        allowed(np.int64(3))
    message = str(info.value)
    assert line_of(allowed.python_function, "# <- in") in message
    assert "`in` and `not in` compare a Tensor with each item" in message
    assert "np.isin(x, items)" in message

    @ag.function
    def fixed(x):
        if not np.isin(x, [1, 2, 3]):
            return 0
        return 1

    assert fixed(np.int64(3)) == 1 and fixed(np.int64(4)) == 0


def test_a_match_on_a_tensor_says_match_is_not_converted():
    @ag.function
    def code(x):
        match x:  # <- match
            case 0:
                return 10
            case _:
                return 20

    with pytest.raises(ag.errors.StagingError) as info:
        code(np.int64(1))
    message = str(info.value)
    assert line_of(code.python_function, "# <- match") in message
    assert "A match statement is not converted" in message and "if/elif" in message
    assert code(0) == 10 and code(1) == 20  # on Python values: as Python


def test_a_comprehension_over_a_tensor_says_comprehensions_are_not_converted():
    @ag.function
    def doubled(x):
        return [v * 2 for v in x]  # <- comprehension

    with pytest.raises(ag.errors.StagingError) as info:
        doubled(np.ones(3))
    message = str(info.value)
    assert line_of(doubled.python_function, "# <- comprehension") in message
    assert "A comprehension is not converted: write it as a for loop" in message

    @ag.function(autograph=False)
    def doubled_unconverted(x):
        return [v * 2 for v in x]

    with pytest.raises(ag.errors.StagingError) as info:
        doubled_unconverted(np.ones(3))
    assert "would be staged" not in str(info.value)  # conversion would not stage it either
