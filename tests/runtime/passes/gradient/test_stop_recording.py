"""GradientTape.stop_recording: what runs inside is a constant to that tape, inside a Function and
outside one, as in TensorFlow."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag

X = np.array([0.5, -1.5, 2.0])


def test_inside_a_function():
    @ag.function
    def f(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            y = x * x
            with tape.stop_recording():
                c = x * 3.0  # a constant to the tape
            z = y * c
        return tape.gradient(z, x)

    np.testing.assert_allclose(f(X), 2 * X * 3 * X)


def test_outside_a_function():
    with ag.GradientTape() as tape:
        x = tape.watch(X)
        y = np.sin(x)
        with tape.stop_recording():
            c = np.cos(x)
        z = y * c
    np.testing.assert_allclose(tape.gradient(z, x), np.cos(X) * np.cos(X))


def test_variables_read_while_stopped_are_not_watched():
    v = ag.Variable(2.0)
    w = ag.Variable(3.0)

    @ag.function
    def f():
        with ag.GradientTape() as tape:
            a = v * 1.0
            with tape.stop_recording():
                b = w * 1.0
            loss = a * b
        return tape.gradient(loss, [v, w]), len(tape.watched_variables())

    (gv, gw), watched = f()
    assert gv == 3.0 and gw is None and watched == 1


def test_another_tape_still_records():
    with ag.GradientTape() as outer:
        x = outer.watch(X)
        with ag.GradientTape() as inner:
            inner.watch(x)
            with outer.stop_recording():
                y = x * x
            z = y * x
        inner_grad = inner.gradient(z, x)
    np.testing.assert_allclose(inner_grad, 3 * X ** 2)
    np.testing.assert_allclose(outer.gradient(z, x), X ** 2)  # y is a constant to the outer tape


def test_gradients_taken_while_stopped_are_not_recorded():
    @ag.function
    def f(x):
        with ag.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x ** 3
            with tape.stop_recording():
                dy = tape.gradient(y, x)  # 3x^2, a constant from here on
            z = y + dy * x
        return tape.gradient(z, x)

    np.testing.assert_allclose(f(X), 3 * X ** 2 + 3 * X ** 2)


def test_misuse_is_a_clear_error():
    tape = ag.GradientTape()
    with pytest.raises(ValueError, match="not recording"):
        with tape.stop_recording():
            pass

    @ag.function
    def f(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            if np.sum(x) > 0:
                with tape.stop_recording():
                    x = x * 2.0
            y = x * x
        return tape.gradient(y, x)

    with pytest.raises(ag.errors.StagingError, match=r"test_stop_recording.py:\d+.*staged if or loop"):
        f(X)
