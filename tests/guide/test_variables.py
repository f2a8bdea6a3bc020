"""The older guide's section on state: program order of Variable ops, and creating Variables."""

import copy

import numpy as np
import pytest

import autograph as ag


def test_stateful_ops_run_in_program_order():
    a = ag.Variable(1.0)
    b = ag.Variable(2.0)

    @ag.function
    def f(x, y):
        a.assign(y * b)
        b.assign_add(x * a)
        return a + b

    assert f(1.0, 2.0) == 10.0


def test_creating_a_variable_at_every_call_is_an_error():
    @ag.function
    def f(x):
        v = ag.Variable(1.0)
        v.assign_add(x)
        return v

    with pytest.raises(ValueError, match="singleton Variables") as info:
        f(1.0)
    assert isinstance(info.value, ag.errors.StagingError)  # ours, and the guide's ValueError


def test_a_captured_variable_is_fine(capsys):
    v = ag.Variable(1.0)

    @ag.function
    def f(x):
        return v.assign_add(x)

    print(f(1.0))  # 2.0
    print(f(2.0))  # 4.0
    assert capsys.readouterr().out == "2.0\n4.0\n"


def test_variables_created_only_on_the_first_call(capsys):
    class C:
        pass

    obj = C()
    obj.v = None

    @ag.function
    def g(x):
        if obj.v is None:
            obj.v = ag.Variable(1.0)
        return obj.v.assign_add(x)

    print(g(1.0))  # 2.0
    print(g(2.0))  # 4.0
    assert capsys.readouterr().out == "2.0\n4.0\n"


def test_initial_values_may_depend_on_python_arguments_and_other_variables(capsys):
    state = []

    @ag.function
    def fn(x):
        if not state:
            state.append(ag.Variable(2.0 * x))
            state.append(ag.Variable(state[0] * 3.0))
        return state[0] * x * state[1]

    print(fn(ag.constant(1.0)))
    print(fn(ag.constant(3.0)))
    assert capsys.readouterr().out == "12.0\n36.0\n"
    assert fn.experimental_get_tracing_count() == 1
    assert [v.numpy() for v in state] == [2.0, 6.0]


def test_a_variable_created_at_every_call_from_a_staged_value_is_refused():
    @ag.function
    def fn(x):
        return ag.Variable(2.0 * x)

    with pytest.raises(ValueError, match="creates Variables in every trace"):
        fn(np.float64(1.0))


def test_a_deep_copy_of_a_variable_is_a_variable_created_in_the_function():
    v = ag.Variable(1.0)

    @ag.function
    def every_call(x):
        return copy.deepcopy(v).assign_add(x).read_value()

    with pytest.raises(ValueError, match="creates Variables in every trace") as raised:
        every_call(np.float64(1.0))
    assert "copy.deepcopy(v).assign_add(x)" in "".join(raised.value.__notes__)  # the user's line, not copy.py's

    class Model:
        def __init__(self):
            self.w = None

        @ag.function
        def __call__(self, x):
            if self.w is None:
                self.w = copy.deepcopy(v)
            return self.w.assign_add(x).read_value()

    model = Model()
    assert model(np.float64(2.0)) == 3.0
    assert model(np.float64(2.0)) == 5.0
    assert v.numpy() == 1.0
