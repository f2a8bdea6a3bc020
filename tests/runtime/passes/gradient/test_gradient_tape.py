"""ag.GradientTape inside a Function (staged) and outside one (eager recording), and its errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag


def test_staged_structures_of_sources():
    w = ag.Variable(np.array([1.0, 2.0]))
    b = ag.Variable(0.5)

    @ag.function
    def grads(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            loss = np.sum((x * w + b) ** 2)
        return tape.gradient(loss, {"params": [w, b], "x": (x,)})

    x = np.array([0.5, -1.0])
    out = grads(x)
    residual = x * w.numpy() + b.numpy()
    np.testing.assert_allclose(out["params"][0], 2 * residual * x)
    np.testing.assert_allclose(out["params"][1], np.sum(2 * residual))
    np.testing.assert_allclose(out["x"][0], 2 * residual * w.numpy())


def test_unconnected_sources_and_integer_sources():
    unused = ag.Variable(3.0)
    counter = ag.Variable(np.int64(2))
    w = ag.Variable(2.0)

    @ag.function
    def grads(x):
        with ag.GradientTape() as tape:
            loss = w * x + counter.read_value().astype(np.float64)
        return tape.gradient(loss, [w, unused, counter]), tape_zero(x)

    def tape_zero(x):
        with ag.GradientTape() as tape:
            loss = w * x
        return tape.gradient(loss, unused, unconnected_gradients="zero")

    (gw, gunused, gcounter), zero = grads(np.float64(3.0))
    assert gw == pytest.approx(3.0)
    assert gunused is None and gcounter is None
    assert zero == 0.0


def test_gradient_has_the_source_dtype():
    w = ag.Variable(np.float32([1.0, 2.0]))

    @ag.function
    def grads(x):
        with ag.GradientTape() as tape:
            loss = np.sum(w.read_value().astype(np.float64) * x)
        return tape.gradient(loss, w)

    g = grads(np.array([3.0, 4.0]))
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, [3.0, 4.0])


def test_output_gradients_and_vector_targets():
    @ag.function
    def vjp(x, v):
        with ag.GradientTape() as tape:
            tape.watch(x)
            y = np.sin(x)
        return tape.gradient(y, x, output_gradients=v)

    x, v = np.array([0.1, 0.7]), np.array([2.0, -1.0])
    np.testing.assert_allclose(vjp(x, v), v * np.cos(x))


def test_persistent_tape_and_non_persistent_refusal():
    @ag.function
    def twice(x):
        with ag.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x
            z = y * y
        return tape.gradient(z, x), tape.gradient(y, x)

    dz, dy = twice(np.float64(3.0))
    assert dz == pytest.approx(108.0) and dy == pytest.approx(6.0)

    @ag.function
    def again(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        tape.gradient(y, x)
        return tape.gradient(y, x)

    with pytest.raises(RuntimeError, match="persistent=True"):
        again(np.float64(3.0))


def test_values_computed_before_the_tape_are_constants():
    w = ag.Variable(2.0)

    @ag.function
    def grads(x):
        early = w * x  # read before the tape: not recorded
        with ag.GradientTape() as tape:
            loss = early * w
        return tape.gradient(loss, w)

    assert grads(np.float64(3.0)) == pytest.approx(6.0)


def test_train_step_is_one_graph():
    w = ag.Variable(np.array([0.0, 0.0]))

    @ag.function
    def train(x, y):
        with ag.GradientTape() as tape:
            loss = np.mean((x @ w - y) ** 2)
        w.assign_sub(0.05 * tape.gradient(loss, w))
        return loss

    x = np.array([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]])
    y = x @ np.array([1.0, -0.5])
    losses = [train(x, y) for _ in range(200)]
    assert losses[-1] < 1e-3 < losses[0]
    np.testing.assert_allclose(w.numpy(), [1.0, -0.5], atol=0.05)
    assert train.experimental_get_tracing_count() == 1


def test_errors_name_the_line():
    @ag.function
    def through_py_function(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            y = ag.py_function(lambda v: v * 2, [x], np.float64)
        return tape.gradient(y, x)

    with pytest.raises(ag.errors.StagingError, match=r"test_gradient_tape.py:\d+.*py_function"):
        through_py_function(np.float64(1.0))

    @ag.function
    def int_target(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            y = (x > 0).astype(np.int64)
        return tape.gradient(y, x)

    with pytest.raises(ag.errors.StagingError, match=r"test_gradient_tape.py:\d+.*only a float target"):
        int_target(np.float64(1.0))

    @ag.function
    def array_source(x):
        with ag.GradientTape() as tape:
            y = x * 2
        return tape.gradient(y, np.float64(1.0))

    with pytest.raises(ag.errors.StagingError, match=r"test_gradient_tape.py:\d+.*source"):
        array_source(np.float64(1.0))

    @ag.function
    def unwatched(x):
        with ag.GradientTape() as tape:
            y = x * 2
        return tape.gradient(y, x)

    with pytest.raises(ag.errors.StagingError, match="tape.watch"):
        unwatched(np.float64(1.0))


def test_piecewise_constant_ops_give_no_gradient():
    @ag.function
    def grads(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            y = np.floor(x) + np.sign(x)
        return tape.gradient(y, x)

    assert grads(np.float64(1.5)) is None


# -- outside a Function ---------------------------------------------------------------
def test_eager_variable_and_function_call():
    v = ag.Variable(1.0)

    @ag.function
    def add(a, b):
        return a + b

    with ag.GradientTape() as tape:
        result = add(v, 1.0)
    assert tape.gradient(result, v) == pytest.approx(1.0)


def test_eager_numpy_code_around_functions_and_control_flow():
    w = ag.Variable(np.array([0.5, -0.2]))

    @ag.function
    def cell(x):
        while np.sum(x) < 3.0:
            x = x + np.tanh(x * w) + 0.5
        return x

    x0 = np.array([0.3, 0.4])
    with ag.GradientTape() as tape:
        x = tape.watch(x0)
        out = cell(x)
        loss = np.sum(np.sin(out) * 2.0) + np.sum(out.T ** 2)
    gx, gw = tape.gradient(loss, [x, w])

    def plain(x, wv):
        while np.sum(x) < 3.0:
            x = x + np.tanh(x * wv) + 0.5
        return np.sum(np.sin(x) * 2.0) + np.sum(x ** 2)

    from tests.runtime.passes.gradient.checks import numeric_gradient

    np.testing.assert_allclose(gx, numeric_gradient(plain, [x0, w.numpy()], 0), rtol=1e-5)
    np.testing.assert_allclose(gw, numeric_gradient(plain, [x0, w.numpy()], 1), rtol=1e-5)
    assert isinstance(loss, np.ndarray) and float(loss) > 0  # the program sees ordinary values


def test_eager_refuses_what_it_cannot_see():
    x = np.array([1.0, 2.0])
    with ag.GradientTape() as tape:
        watched = tape.watch(x)  # the value to use; x itself stays a plain array
        y = np.sum(x * x)
        z = np.sum(watched * 2.0)
    with pytest.raises(ag.errors.StagingError, match="did not record how it was computed"):
        tape.gradient(y, watched)
    with pytest.raises(ag.errors.StagingError, match="x = tape.watch"):
        tape.gradient(z, x)


def test_eager_values_after_the_tape_are_plain():
    v = ag.Variable(2.0)
    with ag.GradientTape() as tape:
        y = v * v
    z = y + 1.0  # after the block: not recorded, plain NumPy
    assert float(z) == 5.0
    assert tape.gradient(y, v) == pytest.approx(4.0)


def test_eager_tape_follows_ndarray_methods():
    from tests.runtime.passes.gradient.checks import numeric_gradient

    def program(w):
        parts = [w.mean(), w.std(), (w @ w).sum(), w.T[0, 1], np.where(w > 2, w, 0).sum(),
                 w.reshape(4)[2], w.max(), np.mean(w, axis=0).sum(), w.sum(axis=1)[0], w.var(axis=0)[1]]
        return sum(parts)

    x0 = np.array([[1.0, 2.5], [3.0, 4.0]])
    with ag.GradientTape() as tape:
        w = tape.watch(x0)
        value = program(w)
    np.testing.assert_allclose(tape.gradient(value, w), numeric_gradient(program, [x0], 0), rtol=1e-5)


def test_eager_in_place_changes_are_refused():
    tape = ag.GradientTape()
    with tape:
        x = tape.watch(np.array([3.0, 1.0, 2.0]))
        with pytest.raises(ag.errors.StagingError, match="in place"):
            x.sort()
        with pytest.raises(ag.errors.StagingError):
            x += 1.0


def test_second_order_through_ordinary_ops_and_sums():
    @ag.function
    def hessian_diagonal_sum(x):
        with ag.GradientTape() as outer:
            outer.watch(x)
            with ag.GradientTape() as inner:
                inner.watch(x)
                y = np.sum(np.sin(x) * x) + np.mean(x) ** 3
            g = inner.gradient(y, x)
        return outer.gradient(g, x)

    x = np.array([0.3, 0.5])
    m = np.mean(x)
    # d/dx_j sum_i g_i, g_i = sin x_i + x_i cos x_i + 3 m^2 / n
    expected = 2 * np.cos(x) - x * np.sin(x) + 2 * 3 * 2 * m / 2 / 2
    np.testing.assert_allclose(hessian_diagonal_sum(x), expected)


def test_second_order_through_a_helper_op_is_refused():
    @ag.function
    def f(x):
        with ag.GradientTape() as outer:
            outer.watch(x)
            with ag.GradientTape() as inner:
                inner.watch(x)
                y = np.prod(x)
            g = inner.gradient(y, x)
        return outer.gradient(g, x)

    with pytest.raises(ag.errors.StagingError, match="Second-order"):
        f(np.array([0.3, 0.5]))


def test_eager_concrete_function_calls_are_recorded():
    v = ag.Variable(np.array([0.5, 2.0]))

    @ag.function
    def scaled(x):
        return np.sum(np.tanh(x * v))

    x0 = np.array([0.1, 0.3])
    concrete = scaled.get_concrete_function(x0)
    with ag.GradientTape() as tape:
        x = tape.watch(x0)
        y = concrete(x) * 2.0
    gx, gv = tape.gradient(y, [x, v])
    d = 2.0 * (1 - np.tanh(x0 * v.numpy()) ** 2)
    np.testing.assert_allclose(gx, d * v.numpy())
    np.testing.assert_allclose(gv, d * x0)


def test_tape_inside_a_staged_loop():
    w = ag.Variable(np.array([0.0, 0.0]))

    @ag.function
    def fit(x, y, steps):
        loss = np.float64(0.0)
        for _ in ag.range(steps):
            with ag.GradientTape() as tape:
                loss = np.mean((x @ w - y) ** 2)
            w.assign_sub(0.05 * tape.gradient(loss, w))
        return loss

    x = np.array([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]])
    assert fit(x, x @ np.array([1.0, -0.5]), np.int64(300)) < 1e-6
    np.testing.assert_allclose(w.numpy(), [1.0, -0.5], atol=1e-3)

    @ag.function
    def summed(x):
        total = x * 0
        for i in ag.range(3):
            with ag.GradientTape() as tape:
                tape.watch(x)  # a value of the enclosing graph, captured by the loop body
                z = np.sum(np.sin(x * (i + 1.0)))
            total = total + tape.gradient(z, x)
        return total

    x = np.array([0.2, 0.4])
    np.testing.assert_allclose(summed(x), sum(np.cos(x * k) * k for k in (1.0, 2.0, 3.0)))


def test_eager_iteration_and_python_control_flow_are_recorded():
    def f(u, x):
        y = np.sum(u) * x
        for t in u:  # rows the tape records
            y = y + t * t
        if x > 0:  # plain Python: the tape records the branch taken
            y = y * 2
        return y

    with ag.GradientTape() as tape:
        u = tape.watch(np.array([1.0, 2.0]))
        x = tape.watch(np.float64(0.5))
        y = f(u, x)
    gu, gx = tape.gradient(y, [u, x])
    np.testing.assert_allclose(gu, [5.0, 9.0])
    assert gx == pytest.approx(6.0)


def test_staged_control_flow_in_a_with_block_inside_the_tape_differentiates():
    import contextlib

    @ag.function
    def f(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            y = x
            with contextlib.nullcontext():
                if np.sum(x) > 0:
                    y = x * 2
        return tape.gradient(y, x)

    np.testing.assert_allclose(f(np.array([1.0])), [2.0])
    np.testing.assert_allclose(f(np.array([-1.0])), [1.0])


def test_watched_variables():
    a, b = ag.Variable(1.0), ag.Variable(2.0)
    ag.Variable(3.0)  # never read: not watched

    @ag.function
    def step(x):
        with ag.GradientTape() as tape:
            y = a * x
            for _ in ag.range(2):
                y = y * b
        variables = tape.watched_variables()
        assert len(variables) == 2 and variables[0] is a and variables[1] is b  # Variables compare by value
        return tape.gradient(y, list(variables))

    ga, gb = step(np.float64(3.0))
    assert ga == pytest.approx(12.0) and gb == pytest.approx(2 * 1.0 * 3.0 * 2.0)

    with ag.GradientTape() as tape:
        a * b
    watched = tape.watched_variables()
    assert len(watched) == 2 and watched[0] is a and watched[1] is b
