"""Guide section "Limitations": Python side effects, iterators, leaked tensors, recursion."""

import gc
import sys

import numpy as np
import pytest

import autograph as ag


# -- Executing Python side effects ------------------------------------------
def test_side_effects_happen_only_while_tracing(capsys):
    @ag.function
    def f(x):
        print("Traced with", x)
        ag.print("Executed with", x)

    f(1)
    f(1)
    f(2)
    assert capsys.readouterr().out == (
        "Traced with 1\nExecuted with 1\nExecuted with 1\nTraced with 2\nExecuted with 2\n"
    )


def test_py_function_runs_python_at_every_call(capsys):
    seen = []

    @ag.function
    def f(x):
        return ag.py_function(lambda v: seen.append(int(v)) or v * 2, [x], np.int64)

    assert f(np.int64(1)) == 2
    assert f(np.int64(5)) == 10
    assert seen == [1, 5]


def test_py_function_side_effect_happens_at_every_call(capsys):
    external_list = []

    def side_effect(x):
        print("Python side effect")
        external_list.append(x)

    @ag.function
    def f(x):
        ag.py_function(side_effect, inp=[x], Tout=[])

    f(1)
    f(1)
    f(1)
    # The list append happens all three times!
    assert len(external_list) == 3
    # The list holds NumPy values: py_function passes its inputs as arrays.
    assert external_list[0] == 1 and isinstance(external_list[0], (np.ndarray, np.generic))
    assert capsys.readouterr().out == "Python side effect\n" * 3


# -- Changing Python global and free variables -------------------------------
def test_global_list_append_happens_once(capsys):
    external_list = []

    @ag.function
    def side_effect(x):
        print("Python side effect")
        external_list.append(x)

    side_effect(1)
    side_effect(1)
    side_effect(1)
    # The list append only happened once!
    assert len(external_list) == 1
    assert capsys.readouterr().out == "Python side effect\n"


class Model:
    def __init__(self):
        self.v = ag.Variable(0)
        self.counter = 0

    @ag.function
    def __call__(self):
        if self.counter == 0:
            # A python side-effect
            self.counter += 1
            self.v.assign_add(1)

        return self.v


def test_python_counter_is_captured_at_the_first_trace(capsys):
    m = Model()
    for _ in range(3):
        print(m())  # prints 1, 2, 3
    assert capsys.readouterr().out == "1\n2\n3\n"


class InitModel:
    def __init__(self):
        self.v = ag.Variable(0)
        self.counter = 0

    def increment_once(self):
        if self.counter == 0:
            self.counter += 1
            self.v.assign_add(1)

    @ag.function
    def __call__(self):
        return self.v


def test_state_changed_outside_the_function_runs_once(capsys):
    # Our equivalent of lifting the increment out of the graph: do it in Python.
    m = InitModel()
    for _ in range(3):
        m.increment_once()
        print(m())  # prints 1, 1, 1
    assert capsys.readouterr().out == "1\n1\n1\n"


# -- Using Python iterators and generators ------------------------------------
def test_iterators_are_consumed_only_while_tracing(capsys):
    @ag.function
    def buggy_consume_next(iterator):
        ag.print("Value:", next(iterator))

    iterator = iter([1, 2, 3])
    buggy_consume_next(iterator)
    # This reuses the first value from the iterator, rather than consuming the next value.
    buggy_consume_next(iterator)
    buggy_consume_next(iterator)
    assert capsys.readouterr().out == "Value: 1\nValue: 1\nValue: 1\n"


def test_consuming_data_inside_the_graph(capsys):
    @ag.function
    def good_consume_next(data, i):
        ag.print("Value:", data[i])

    data = np.array([1, 2, 3])
    for i in range(3):
        good_consume_next(data, np.int64(i))
    assert capsys.readouterr().out == "Value: 1\nValue: 2\nValue: 3\n"
    assert good_consume_next.experimental_get_tracing_count() == 1


# -- All outputs of a Function must be return values ---------------------------
x = None


@ag.function
def leaky_function(a):
    global x
    x = a + 1  # Bad - leaks local tensor
    return a + 2


@ag.function
def captures_leaked_tensor(b):
    b += x  # Bad - `x` is leaked from `leaky_function`
    return b


def test_leaked_tensor_cannot_be_used(capsys):
    correct_a = leaky_function(np.int64(1))
    print(correct_a)  # Good - value obtained from function's returns
    try:
        x.numpy()  # Bad - tensor leaked from inside the function, cannot be used here
    except AttributeError as expected:
        print(expected)
    assert capsys.readouterr().out == "3\n'Tensor' object has no attribute 'numpy'\n"
    with pytest.raises(TypeError) as info:
        captures_leaked_tensor(np.int64(2))
    assert "leaked" in str(info.value)
    assert f"made at {__file__}:" in str(info.value)  # where `x = a + 1` ran
    used_at = captures_leaked_tensor.python_function.__code__.co_firstlineno + 2  # its decorator first
    assert f"It is used at {__file__}:{used_at}." in str(info.value)  # where `b += x` runs
    notes = "\n".join(getattr(info.value, "__notes__", []))
    if sys.version_info >= (3, 11):
        assert "b += x" in notes


def test_a_leaked_tensor_used_outside_any_trace_is_a_type_error_naming_both_lines():
    leaky_function(np.int64(1))
    for use, how in ((lambda: x + 1, "It is used at"), (lambda: float(x), "It is used as a Python float at")):
        with pytest.raises(TypeError) as info:
            use()
        message = str(info.value)
        assert "leaked out of its trace" in message and f"made at {__file__}:" in message
        assert f"{how} {__file__}:" in message


def test_a_nonlocal_set_by_a_nested_function_called_in_a_staged_if_is_carried():
    @ag.function
    def total_if_positive(x):
        acc = x * 0

        def add(v):
            nonlocal acc
            acc = acc + v

        if x > 0:
            add(x)
        return acc

    assert total_if_positive(np.float64(2.0)) == 2.0
    assert total_if_positive(np.float64(-2.0)) == 0.0


def test_a_nonlocal_set_by_a_nested_function_called_in_a_staged_loop_is_carried():
    @ag.function
    def count_positive(x):
        count = 0
        total = x[0] * 0

        def add(v):
            nonlocal total
            total = total + v

        def visit(v):
            nonlocal count
            count += 1
            add(v)  # a helper calling a helper sets its nonlocals too

        for v in x:
            if v > 0:
                visit(v)
        return count, total

    assert count_positive(np.array([1.0, -2.0, 3.0])) == (2, 4.0)


def test_a_nonlocal_set_by_a_nested_function_called_out_of_sight_leaks():
    @ag.function
    def total_if_positive(x):
        acc = x * 0

        def add(v):
            nonlocal acc
            acc = acc + v

        adders = [add]
        if x > 0:
            adders[0](x)  # not called by name: the if does not see that it sets acc
        return acc

    with pytest.raises(TypeError, match="a nonlocal that a nested function sets inside a staged if or loop"):
        total_if_positive(np.float64(2.0))


def test_leaking_even_when_returned(capsys):
    @ag.function
    def leaky_function(a):
        global x
        x = a + 1  # Bad - leaks local tensor
        return x  # Good - uses local tensor

    correct_a = leaky_function(np.int64(1))
    print(correct_a)  # Good - value obtained from function's returns
    try:
        x.numpy()  # Bad - tensor leaked from inside the function, cannot be used here
    except AttributeError as expected:
        print(expected)
    assert capsys.readouterr().out == "2\n'Tensor' object has no attribute 'numpy'\n"

    @ag.function
    def captures_leaked_tensor(b):
        b += x  # Bad - `x` is leaked from `leaky_function`
        return b

    with pytest.raises(TypeError, match="leaked"):
        captures_leaked_tensor(np.int64(2))


def test_leaking_through_collections_and_objects():
    class MyClass:
        def __init__(self):
            self.field = None

    external_list = []
    external_object = MyClass()

    @ag.function
    def leaky():
        a = ag.constant(1)
        external_list.append(a)  # Bad - leaks tensor
        external_object.field = a  # Bad - leaks tensor
        return a

    assert leaky() == 1
    assert isinstance(external_object.field, ag.Tensor)

    @ag.function
    def use(b):
        return b + external_list[0]

    with pytest.raises(TypeError):
        use(np.int64(1))


# -- Recursive Functions are not supported -----------------------------------
@ag.function
def recursive_fn(n):
    if n > 0:
        return recursive_fn(n - 1)
    else:
        return 1


def test_recursion_on_a_tensor_is_a_staging_error():
    with pytest.raises(ag.errors.StagingError) as info:
        recursive_fn(np.int64(5))  # Bad - the trace would never end.
    assert "calls itself" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_recursion_on_python_values_traces_each_level(capsys):
    @ag.function
    def recursive_fn(n):
        if n > 0:
            print("tracing")
            return recursive_fn(n - 1)
        else:
            return 1

    assert recursive_fn(5) == 1  # Warning - multiple tracings
    assert capsys.readouterr().out == "tracing\n" * 5
    gc.collect()


def test_a_staged_while_whose_test_assigns_a_loop_variable_is_refused():
    @ag.function
    def count_to(x):
        n = x * 0
        while (n := n + 1) < x:
            pass
        return n

    # the condition graph returns only the bool: staged, the loop would never end
    with pytest.raises(ag.errors.StagingError, match=r"the test of a staged while loop assigns 'n'"):
        count_to(np.int64(3))
    assert count_to(3) == 3  # a Python while: as Python


def test_a_staged_while_whose_test_calls_a_nonlocal_setter_names_the_function():
    def count_to(x):
        n = 0

        def bump():
            nonlocal n
            n += 1
            return n

        while bump() < x:
            pass
        return n

    # the test's tensor would leak out of the condition graph (or the loop never end)
    with pytest.raises(ag.errors.StagingError) as info:
        ag.function(count_to)(np.int64(3))
    message = str(info.value)
    assert "calls 'bump', which sets 'n' through nonlocal" in message
    assert f"test_limitations.py:{count_to.__code__.co_firstlineno + 8}" in message
    assert "Call 'bump' outside the test" in message
    assert ag.function(count_to)(3) == 3  # a Python while: as Python


def test_the_fix_for_a_nonlocal_setter_in_a_while_test_stages():
    @ag.function
    def count_to(x):
        n = 0

        def bump():
            nonlocal n
            n += 1

        bump()
        while n < x:
            bump()
        return n

    assert count_to(np.int64(3)) == 3
    assert count_to(np.int64(7)) == 7
    assert count_to.experimental_get_tracing_count() == 1
