"""The compiled graph of a converted function shows the user's names, lines and expressions."""

import numpy as np

import autograph as ag
from runtime.backends.numpy import to_source


def _source(func, *args):
    return to_source(ag.function(func).get_concrete_function(*args).graph)


def _statements(source):
    return [line.strip() for line in source.splitlines() if line.strip() and not line.strip().startswith("#")]


def test_a_for_loops_target_names_the_value_it_binds():
    def score(n):
        total = np.int64(0)
        for i in ag.range(1, n + 1):
            if i % 3 == 0:
                total += i
        return total

    source = _source(score, np.int64(10))
    assert "i = iteration + 1" in _statements(source) and "if i % 3 == 0:" in _statements(source)
    assert "total = total + i" in _statements(source)
    assert ag.function(score)(np.int64(10)) == 18


def test_a_tuple_target_names_each_part():
    def train(dataset):
        loss = np.float64(0.0)
        for x, y in dataset:
            loss += np.abs(y - x)
        return loss

    data = np.array([[1.0, 3.0], [2.0, 0.5]])
    statements = _statements(_source(train, data))
    assert "x = index[0]" in statements and "y = index[1]" in statements
    assert "loss = loss + abs(y - x)" in statements
    assert ag.function(train)(data) == 3.5


def test_each_user_line_is_named_once_before_its_code():
    def clip_sum(x):
        total = np.float64(0.0)
        for v in x:
            total += np.minimum(v, 1.0) * 2.0
        return total

    source = _source(clip_sum, np.array([0.5, 3.0]))
    comments = [line.strip() for line in source.splitlines() if line.strip().startswith("#")]
    line = clip_sum.__code__.co_firstlineno + 3
    assert f"# test_graph_source_names.py:{line}  total += np.minimum(v, 1.0) * 2.0" in comments
    assert "total = total + np.minimum(v, 1.0) * 2.0" in _statements(source)


def test_text_that_is_not_ascii_is_written_in_exactly():
    def shout(x):
        ag.print("héllo ✓", x * 2)
        return x + 1

    source = _source(shout, np.int64(3))
    assert "print('héllo ✓', x * 2)" in _statements(source)
    assert ag.function(shout)(np.int64(3)) == 4
