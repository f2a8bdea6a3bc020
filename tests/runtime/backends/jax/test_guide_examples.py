"""The guide's examples under both backends: the XLA backend agrees with the NumPy backend.

The examples are the tf.function guide's (bench/corpus/guide.py) and the small
numerical programs of tests/guide/test_numerical_programs.py. Each runs as
`ag.function(f)` and `ag.function(f, jit_compile=True)` on the same inputs:
the values (ints and bools exactly, floats within test_differential's
TOLERANCE) and the printed text must agree, or the XLA backend must refuse
with a StagingError naming the example's line (a TensorArray that grows).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax")

import autograph as ag  # noqa: E402
from bench.corpus import guide  # noqa: E402
from runtime.ir.errors import StagingError  # noqa: E402
from tests.guide import test_numerical_programs as numerical  # noqa: E402
from tests.runtime.backends.jax.test_differential import close_values, same_printed  # noqa: E402

RNN_DATA = np.random.default_rng(1).uniform(size=(2, 3, 4)).astype(np.float32)


def _values(result):
    if isinstance(result, dict):
        return tuple(result[k] for k in result)
    return result


GUIDE = [
    (guide.add, (np.ones((2, 2), np.float32), np.ones((2, 2), np.float32))),
    (guide.double, (np.int32(1),)),
    (guide.double, (np.float64(1.5),)),
    (guide.next_collatz, (np.array([1, 2, 3, 4, 5], np.int32),)),
    (guide.pow_, (np.float32([1.5, 2.0]), 2)),
    (guide.tanh_loop, (np.random.default_rng(0).uniform(size=5).astype(np.float32),)),
    (guide.fizzbuzz, (np.int32(15),)),
    (guide.train, ([(1, 1), (2, 5), (3, 2)],)),
    (guide.dynamic_rnn, (guide.rnn_step, RNN_DATA, np.zeros((2, 4), np.float32))),
]
REFUSED = {"evens"}  # a TensorArray with dynamic_size=True: XLA needs its size before it runs


@pytest.mark.parametrize(
    "example, args", GUIDE + numerical.CASES,
    ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(GUIDE + numerical.CASES)],
)
def test_example_agrees_across_backends(example, args, capsys):
    expected = ag.function(example)(*args)
    printed = capsys.readouterr().out
    if example.__name__ in REFUSED:
        with pytest.raises(StagingError, match=r"test_numerical_programs\.py:\d+.*dynamic_size=True"):
            ag.function(example, jit_compile=True)(*args)
        return
    actual = ag.function(example, jit_compile=True)(*args)
    assert same_printed(capsys.readouterr().out, printed)
    assert type(actual) is type(expected)
    assert close_values(_values(actual), _values(expected)), (actual, expected)


def test_guide_variable_examples_agree():
    """The guide's Variable examples: state created outside, updated inside, kept across calls."""

    class Model:
        def __init__(self):
            self.v = ag.Variable(np.float32(1.0))
            self.steps = ag.Variable(np.int64(0))

        def __call__(self, x):
            self.steps.assign_add(1)
            self.v.assign(self.v * x)
            return self.v + 1

    results = []
    for backend in ("numpy", "jax"):
        model = Model()
        run = ag.function(model.__call__, backend=backend)
        results.append([run(np.float32(2.0)), run(np.float32(3.0)), model.v.numpy(), model.steps.numpy()])
    assert close_values(tuple(results[0]), tuple(results[1]))
