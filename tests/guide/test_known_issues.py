"""Guide section "Known issues": closures, object attributes, creating Variables."""

import gc

import numpy as np
import pytest

import autograph as ag

foo = 1


@ag.function
def buggy_add():
    return 1 + foo


@ag.function
def recommended_add(foo):
    return 1 + foo


def test_globals_are_read_at_trace_time(capsys):
    global foo
    foo = 1
    print("Buggy:", buggy_add())
    print("Correct:", recommended_add(foo))
    print("Updating the value of `foo` to 100!")
    foo = 100
    print("Buggy:", buggy_add())  # Did not change!
    print("Correct:", recommended_add(foo))
    assert capsys.readouterr().out == (
        "Buggy: 2\nCorrect: 2\nUpdating the value of `foo` to 100!\nBuggy: 2\nCorrect: 101\n"
    )
    foo = 1


def test_closures_are_read_at_trace_time():
    scale = 2

    @ag.function
    def scaled(x):
        return x * scale

    assert scaled(np.int64(3)) == 6
    scale = 10  # noqa: F841 - the trace keeps the old value
    assert scaled(np.int64(3)) == 6


def test_a_variable_global_is_read_at_every_call(capsys):
    counter = ag.Variable(1)

    @ag.function
    def variable_add():
        return 1 + counter

    print("Variable:", variable_add())
    print("Updating the value of `foo` to 100!")
    counter.assign(100)
    print("Variable:", variable_add())
    assert capsys.readouterr().out == (
        "Variable: 2\nUpdating the value of `foo` to 100!\nVariable: 101\n"
    )


class SimpleModel:
    def __init__(self):
        # These values are *not* Variables.
        self.bias = 0.0
        self.weight = 2.0


def evaluate(model, x):
    return model.weight * x + model.bias


def test_object_attributes_are_read_at_trace_time(capsys):
    evaluate_fn = ag.function(evaluate)
    simple_model = SimpleModel()
    x = np.float32(10.0)
    print(evaluate_fn(simple_model, x))
    print("Adding bias!")
    simple_model.bias += 5.0
    print(evaluate_fn(simple_model, x))  # Didn't change :(
    assert capsys.readouterr().out == "20.0\nAdding bias!\n20.0\n"


def test_new_function_per_changed_object(capsys):
    new_model = SimpleModel()
    x = np.float32(10.0)
    evaluate_no_bias = ag.function(evaluate).get_concrete_function(new_model, x)
    # Don't pass in `new_model`, `Function` already captured its state during tracing.
    print(evaluate_no_bias(x))
    print("Adding bias!")
    new_model.bias += 5.0
    # Create new Function and ConcreteFunction since you modified new_model.
    evaluate_with_bias = ag.function(evaluate).get_concrete_function(new_model, x)
    print(evaluate_with_bias(x))  # Don't pass in `new_model`.
    assert capsys.readouterr().out == "20.0\nAdding bias!\n25.0\n"


class BetterModel:
    def __init__(self):
        self.bias = ag.Variable(0.0)
        self.weight = ag.Variable(2.0)


def test_variable_attributes_change_without_retracing(capsys):
    evaluate_fn = ag.function(evaluate)
    better_model = BetterModel()
    x = np.float32(10.0)
    print(evaluate_fn(better_model, x))
    print("Adding bias!")
    better_model.bias.assign_add(5.0)  # Note: instead of better_model.bias += 5
    print(evaluate_fn(better_model, x))  # This works!
    assert capsys.readouterr().out == "20.0\nAdding bias!\n25.0\n"
    assert evaluate_fn.experimental_get_tracing_count() == 1


# -- Creating Variables -------------------------------------------------------
def test_variable_created_at_every_call_is_an_error():
    @ag.function
    def f(x):
        v = ag.Variable(1.0)
        return v

    with pytest.raises(ValueError) as info:
        f(1.0)
    assert "only supports singleton Variables created on the first call" in str(info.value)
    notes = "\n".join(getattr(info.value, "__notes__", [str(info.value)]))
    assert "in user code:" in notes and "v = ag.Variable(1.0)" in notes
    assert f'File "{__file__}"' in notes


class Count:
    def __init__(self):
        self.count = None

    @ag.function
    def __call__(self):
        if self.count is None:
            self.count = ag.Variable(0)
        return self.count.assign_add(1)


def test_create_variable_on_first_call_only(capsys):
    c = Count()
    print(c())
    print(c())
    assert capsys.readouterr().out == "1\n2\n"


class Optimizer:
    """Creates its state Variable when it is first used, like a Keras optimizer."""

    def __init__(self, learning_rate):
        self.learning_rate = learning_rate
        self.iterations = None

    def apply(self, w, gradient):
        if self.iterations is None:
            self.iterations = ag.Variable(0)
        self.iterations.assign_add(1)
        w.assign_sub(self.learning_rate * gradient)


def train_step(w, x, y, optimizer):
    gradient = np.sum(2 * (w * x - y) * x)
    optimizer.apply(w, gradient)


def test_one_function_with_two_optimizers_is_an_error(capsys):
    opt1, opt2 = Optimizer(1e-2), Optimizer(1e-3)
    step = ag.function(train_step)
    w = ag.Variable(2.0)
    x = np.array([-1.0])
    y = np.array([2.0])
    step(w, x, y, opt1)
    print("Calling `train_step` with different optimizer...")
    with pytest.raises(ValueError, match="singleton Variables"):
        step(w, x, y, opt2)


def test_one_concrete_function_per_optimizer():
    opt1, opt2 = Optimizer(1e-2), Optimizer(1e-3)
    w = ag.Variable(2.0)
    x = np.array([-1.0])
    y = np.array([2.0])
    # Make a new Function and ConcreteFunction for each optimizer.
    train_step_1 = ag.function(train_step).get_concrete_function(w, x, y, opt1)
    train_step_2 = ag.function(train_step).get_concrete_function(w, x, y, opt2)
    for i in range(10):
        if i % 2 == 0:
            train_step_1(w, x, y)  # `opt1` is not used as a parameter.
        else:
            train_step_2(w, x, y)  # `opt2` is not used as a parameter.
    assert opt1.iterations.numpy() == 5 and opt2.iterations.numpy() == 5
    assert w.numpy() < 2.0


def test_a_collected_variable_is_a_failed_precondition():
    holder = {"v": ag.Variable(3.0)}

    @ag.function
    def read():
        return holder["v"] * 2

    assert read() == 6.0
    del holder["v"]
    gc.collect()
    with pytest.raises(ag.errors.FailedPreconditionError):
        read()
