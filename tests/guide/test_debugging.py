"""Guide section "Debugging": print traces, ag.print runs, run_functions_eagerly."""

import numpy as np
import pytest

import autograph as ag


@pytest.fixture
def eagerly():
    ag.run_functions_eagerly(True)
    yield
    ag.run_functions_eagerly(False)


@ag.function
def f(x):
    print("Traced with", x)
    ag.print("Executed with", x)
    return x * 2


def test_print_traces_ag_print_executes(capsys):
    f(np.int64(1))
    f(np.int64(2))
    assert capsys.readouterr().out == (
        'Traced with Tensor("x:0", shape=(), dtype=int64)\n'
        "Executed with 1\n"
        "Executed with 2\n"
    )


def test_run_functions_eagerly_runs_plain_python(capsys, eagerly):
    assert ag.functions_run_eagerly()
    assert f(np.int64(3)) == 6
    assert f(np.int64(3)) == 6
    assert capsys.readouterr().out == "Traced with 3\nExecuted with 3\n" * 2


def test_switch_back_to_graphs(capsys):
    ag.run_functions_eagerly(True)
    ag.run_functions_eagerly(False)
    assert not ag.functions_run_eagerly()

    @ag.function
    def g(x):
        print("trace")
        return x

    g(np.int64(1))
    g(np.int64(2))
    assert capsys.readouterr().out == "trace\n"
