"""NumPy random draws while tracing: a TracingSideEffectWarning, or a StagingError with strict=True
(issue 21, item 3)."""

import random
import warnings

import numpy as np
import pytest

import autograph as ag
from autograph.errors import StagingError

_STATE = np.random.RandomState(1)  # made outside the Function: its draws depend on earlier calls
_PY_RANDOM = random.Random(1)


def _draw_warnings(record) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, ag.TracingSideEffectWarning)]


def test_a_generator_argument_drawn_while_tracing_warns_at_the_users_line():
    @ag.function
    def noisy(x, rng):
        return x + rng.random(x.shape)

    rng = np.random.default_rng(0)
    with pytest.warns(ag.TracingSideEffectWarning) as record:
        first = noisy(np.zeros(3), rng)
    [message] = _draw_warnings(record)
    assert "Generator.random" in message and "ag.random" in message
    assert "test_random_draws.py" in message and "rng.random(x.shape)" in message
    assert record[0].filename == __file__  # the warning is issued at the user's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a run of the trace draws nothing and says nothing
        again = noisy(np.zeros(3), rng)
    np.testing.assert_array_equal(first, again)  # the documented reuse


@pytest.mark.parametrize(
    "draw",
    [
        lambda: np.random.normal(size=2),
        lambda: np.random.rand(2),
        lambda: _STATE.uniform(size=2),
        lambda: np.random.default_rng().random(2),
        lambda: random.random() + np.zeros(2),
        lambda: _PY_RANDOM.random() + np.zeros(2),  # a C method of an instance
        lambda: _PY_RANDOM.uniform(0, 1) + np.zeros(2),  # a Python method of an instance
    ],
    ids=["np.random.normal", "np.random.rand", "RandomState", "default_rng()", "random.random",
         "Random().random", "Random().uniform"],
)
def test_legacy_functions_state_objects_and_pythons_random_warn(draw):
    @ag.function
    def noisy(x):
        return x + draw()

    with pytest.warns(ag.TracingSideEffectWarning):
        noisy(np.zeros(2))


def test_strict_makes_a_draw_a_staging_error_naming_the_line():
    @ag.function(strict=True)
    def noisy(x):
        return x + np.random.normal(size=x.shape)

    with pytest.raises(StagingError) as info:
        noisy(np.zeros(2))
    message = str(info.value)
    assert "np.random.normal" in message and "strict=True" in message
    assert "np.random.normal(size=x.shape)" in message and "test_random_draws.py" in message


def test_strict_convert_refuses_draws_of_the_functions_it_calls_while_tracing():
    rng = np.random.default_rng(0)

    def helper(x):
        return x + rng.normal()

    def model(x):
        return helper(x) * 2

    strict_model = ag.convert(model, strict=True)
    assert "ag__.converted_call(helper" in ag.to_code(strict_model)  # the converted code, not the wrapper
    assert strict_model(1.0) != strict_model(1.0)  # Python mode: real draws, no error
    with pytest.raises(StagingError, match="Generator.normal"):
        ag.function(lambda x: strict_model(x))(np.zeros(2))
    with pytest.warns(ag.TracingSideEffectWarning):
        ag.function(lambda x: ag.convert(model)(x))(np.zeros(2))


def test_a_generator_seeded_inside_the_function_is_faithful_and_not_reported():
    @ag.function(strict=True)
    def seeded(x):
        rng = np.random.default_rng(7)
        gen = np.random.Generator(np.random.PCG64(3))
        return x + rng.normal(size=2) + gen.random(2)

    expected = np.random.default_rng(7).normal(size=2) + np.random.Generator(np.random.PCG64(3)).random(2)
    np.testing.assert_allclose(seeded(np.zeros(2)), expected)
    np.testing.assert_allclose(seeded(np.zeros(2)), expected)  # as the original: the same every call


def test_a_seeded_generator_drawn_in_a_staged_loop_is_reported():
    @ag.function(strict=True)
    def walk(x, n):
        rng = np.random.default_rng(7)
        for _ in ag.range(n):
            x = x + rng.normal()  # Python draws anew at every iteration; the graph would not
        return x

    with pytest.raises(StagingError, match="Generator.normal"):
        walk(np.float64(0.0), np.int64(3))


def test_no_warning_outside_a_trace_or_when_run_eagerly():
    def noisy(x):
        return x + np.random.normal(size=2)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ag.convert(noisy, strict=True)(np.zeros(2))
        ag.run_functions_eagerly(True)
        try:
            ag.function(noisy, strict=True)(np.zeros(2))
        finally:
            ag.run_functions_eagerly(False)


def test_the_strictness_of_a_trace_is_its_own_function_s():
    @ag.function
    def lenient(x):
        return x + np.random.rand(2)

    @ag.function(strict=True)
    def strict(x):
        return lenient(x)  # inlined into the strict trace: strict

    with pytest.raises(StagingError):
        strict(np.zeros(2))
    with pytest.warns(ag.TracingSideEffectWarning):
        lenient(np.zeros(2))  # its own trace is lenient


def test_draws_go_through_converted_call_in_converted_code():
    def f(x):
        return x + np.random.normal(size=2)

    assert "ag__.converted_call(np.random.normal" in ag.to_code(f)
