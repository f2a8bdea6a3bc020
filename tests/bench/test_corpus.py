"""The shared corpus: enough realistic functions, fresh objects on every load."""

import inspect

import numpy as np

from bench.corpus import inputs, load_fresh, load_numerics


def test_corpus_has_at_least_thirty_functions_of_five_to_eighty_lines():
    module = load_numerics()
    assert len(module.CASES) >= 30
    for name in module.CASES:
        lines = len(inspect.getsource(getattr(module, name)).splitlines())
        assert 5 <= lines <= 80, name


def test_every_case_runs_in_plain_python():
    module = load_numerics()
    for name, cases in module.CASES.items():
        for args in cases:
            getattr(module, name)(*args)


def _same(left: object, right: object) -> bool:
    if isinstance(left, (list, tuple)):
        return type(left) is type(right) and len(left) == len(right) and all(
            _same(a, b) for a, b in zip(left, right))
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)
    if isinstance(left, (np.ndarray, np.generic)):
        return np.array_equal(left, right, equal_nan=True)
    return left == right or (left != left and right != right)


def test_every_case_converted_returns_what_the_original_returns():
    import autograph as ag

    module = load_numerics()
    for name, cases in module.CASES.items():
        original = getattr(module, name)
        converted = ag.convert(original)
        for args in cases:
            assert _same(converted(*args), original(*args)), (name, args)


def test_fresh_loads_give_unequal_code_objects():
    first, second = load_numerics(), load_numerics()
    assert first.collatz_steps is not second.collatz_steps
    assert first.collatz_steps.__code__ != second.collatz_steps.__code__
    assert inspect.getsource(first.gcd) == inspect.getsource(second.gcd)


def test_inputs_are_deterministic_and_the_handwritten_limit_agrees():
    handwritten = load_fresh("handwritten")
    assert np.array_equal(inputs.tanh_input(1000), inputs.tanh_input(1000))
    assert handwritten.collatz(inputs.collatz_start()) == 111
    assert handwritten.fizzbuzz_score(np.int64(15)) == 1 * 8 + 3 * 4 + 2 * 2 + 4
    assert isinstance(handwritten.fizzbuzz_score(np.int64(15)), np.int64)
    assert handwritten.fizzbuzz_score_python_ints(np.int64(15)) == 1 * 8 + 3 * 4 + 2 * 2 + 4
    data, state = inputs.rnn_inputs(5)
    assert handwritten.dynamic_rnn(data, state).shape == (2, 5, 4)
    labels = [label for label, _, _ in inputs.staged_cases(quick=True)]
    assert len(labels) == len(set(labels)) == 6
