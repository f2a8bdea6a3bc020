"""ag.random.Generator: statistics of 10,000 draws, new draws at every run, one sequence per seed."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from runtime.ir.errors import StagingError

N = 10_000


def _moments(sample, mean, var):
    """The sample mean within 5 standard errors of `mean`, the variance within 5% (plenty for 10,000)."""
    sample = np.asarray(sample, np.float64)
    assert abs(sample.mean() - mean) < 5 * np.sqrt(var / sample.size), (sample.mean(), mean)
    assert abs(sample.var() - var) < 0.05 * var, (sample.var(), var)


@pytest.mark.parametrize("staged", [True, False])
def test_statistics(staged):
    rng = ag.random.Generator(7)

    def draws():
        return (rng.normal(size=(N,)), rng.normal(size=(N,), loc=3.0, scale=2.0),
                rng.uniform(size=(N,), low=-1.0, high=3.0), rng.integers(0, 10, size=(N,)),
                rng.normal(size=(100, 100), dtype=np.float32))

    normal, shifted, uniform, integers, small = ag.function(draws)() if staged else draws()
    _moments(normal, 0.0, 1.0)
    _moments(shifted, 3.0, 4.0)
    _moments(uniform, 1.0, 16 / 12)
    assert uniform.min() >= -1.0 and uniform.max() < 3.0
    _moments(integers, 4.5, 8.25)
    assert integers.dtype == np.int64 and set(np.unique(integers)) == set(range(10))
    assert small.dtype == np.float32 and small.shape == (100, 100)
    _moments(small.ravel(), 0.0, 1.0)
    # consecutive draws are independent: no correlation between one and the next
    assert abs(np.corrcoef(normal[:-1], normal[1:])[0, 1]) < 5 / np.sqrt(N)
    assert abs(np.corrcoef(normal, shifted)[0, 1]) < 5 / np.sqrt(N)


def test_every_call_and_every_iteration_draws_anew():
    rng = ag.random.Generator(1)

    @ag.function
    def f():
        rows = ag.TensorArray(np.float64, size=4)
        for i in ag.range(4):
            rows = rows.write(i, rng.normal(size=(3,)))
        return rows.stack(), rng.permutation(50)

    (a, p), (b, q) = f(), f()
    assert len({tuple(row) for row in np.concatenate([a, b])}) == 8
    assert not np.array_equal(p, q)
    np.testing.assert_array_equal(np.sort(p), np.arange(50))


def test_same_seed_same_sequence_inside_and_outside():
    def draws(rng):
        return [rng.normal(size=(2,)), rng.uniform(), rng.integers(5, 9, size=(3,), dtype=np.int32),
                rng.permutation(np.arange(4.0))]

    staged_rng, eager_rng, other = ag.random.Generator(3), ag.random.Generator(3), ag.random.Generator(4)
    staged = ag.function(lambda: draws(staged_rng))
    for _ in range(2):
        got, want, different = staged(), draws(eager_rng), draws(other)
        for a, b in zip(got, want):
            assert np.asarray(a).dtype == np.asarray(b).dtype
            np.testing.assert_array_equal(a, b)
        assert not np.array_equal(got[0], different[0])
    assert staged_rng.state.numpy() == 8
    staged_rng.reset(3)
    np.testing.assert_array_equal(staged()[0], ag.random.Generator(3).normal(size=(2,)))


def test_staged_parameters_and_types():
    rng = ag.random.Generator(0)

    @ag.function
    def f(loc, high, n):
        return (rng.normal(size=(3,), loc=loc), rng.uniform(size=(2, 3), high=high),
                rng.integers(n), rng.integers(0, n, size=None), rng.permutation(n), rng.permutation(5))

    cf = f.get_concrete_function(ag.TensorSpec((3,), np.float32), ag.TensorSpec((), np.float64),
                                 ag.TensorSpec((), np.int64))
    text = str(cf)
    assert "float64 Tensor, shape=(3,)" in text and "float64 Tensor, shape=(2, 3)" in text
    assert "int64 Tensor, shape=(None,)" in text and "int64 Tensor, shape=(5,)" in text
    loc, uniform, below, below_too, perm, perm5 = f(np.float32([0, 100, 1000]), 0.5, np.int64(3))
    assert abs(loc[1] - 100) < 10 and uniform.max() < 0.5 and 0 <= below < 3 and 0 <= below_too < 3
    np.testing.assert_array_equal(np.sort(perm), np.arange(3))


def test_a_generator_made_on_the_first_trace():
    class Model:
        rng = None

        @ag.function
        def noisy(self, x):
            if self.rng is None:
                self.rng = ag.random.Generator(5)
            return x + self.rng.normal(size=(2,))

    model = Model()
    first, second = model.noisy(np.zeros(2)), model.noisy(np.zeros(2))
    reference = ag.random.Generator(5)
    np.testing.assert_array_equal(first, reference.normal(size=(2,)))
    np.testing.assert_array_equal(second, reference.normal(size=(2,)))


def test_errors():
    rng = ag.random.Generator(0)
    with pytest.raises(StagingError, match="size must be Python ints"):
        ag.function(lambda x: rng.normal(size=x.shape[0] + np.int64(0) * x[0].astype(np.int64)))(np.ones(3))
    with pytest.raises(StagingError, match="unknown dimension"):
        ag.function(lambda x: rng.normal(size=x.shape)).get_concrete_function(ag.TensorSpec((None,), np.float64))
    with pytest.raises(TypeError, match="float32 or float64"):
        rng.normal(dtype=np.int64)
    with pytest.raises(TypeError, match="integer dtype"):
        rng.integers(3, dtype=np.float64)
