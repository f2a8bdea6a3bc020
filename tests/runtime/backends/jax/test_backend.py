"""The XLA backend (`ag.function(jit_compile=True)`): semantics kept, refusals clear.

Each test checks one promise of API.md's "Backends": NumPy dtypes kept
without touching the user's JAX settings, NumPy in -> NumPy out and
jax.Array in -> jax.Array out, Variables, ag.print, staged asserts, bounds
checks, TensorArrays, and StagingErrors naming the user's line for what XLA
cannot express.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

jax = pytest.importorskip("jax")

import jax.numpy as jnp  # noqa: E402

import autograph as ag  # noqa: E402
from runtime.ir.errors import InvalidArgumentError, StagingError  # noqa: E402

THIS_FILE = __file__.rsplit("/", 1)[-1]


def both(func, *args):
    """The NumPy backend's result and the XLA backend's, for the same call."""
    return ag.function(func)(*args), ag.function(func, jit_compile=True)(*args)


def test_numpy_inputs_give_numpy_outputs_of_the_same_dtypes():
    def f(a, b, c):
        return a + 1, a * b, c.astype(np.int32) + 1, np.sum(a) > 2

    args = (np.int64([1, 2]), np.float32(0.5), np.float64([1.5, 2.5]))
    expected, actual = both(f, *args)
    for e, a in zip(expected, actual):
        assert type(a) is type(e)
        assert np.asarray(a).dtype == np.asarray(e).dtype
        np.testing.assert_array_equal(a, e)
    assert actual[0].flags.writeable


def test_jax_arrays_in_give_jax_arrays_out_and_global_settings_stay():
    f = ag.function(lambda x: x * 2, jit_compile=True)
    with jax.enable_x64(True):
        x = jnp.arange(3, dtype=jnp.int64)
    out = f(x)
    assert isinstance(out, jax.Array)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(np.asarray(out), [0, 2, 4])
    assert jnp.arange(3).dtype == jnp.int32  # x64 was scoped to our calls
    assert not jax.config.jax_enable_x64


def test_concrete_function_names_its_backend_and_shows_what_was_lowered():
    f = ag.function(lambda x: np.tanh(x) + 1, jit_compile=True)
    cf = f.get_concrete_function(np.zeros(3, np.float32))
    assert cf.backend == "jax"
    assert "stablehlo.tanh" in cf.lowered_text()
    assert "tanh" in cf.lowered_text("jaxpr")
    assert ag.function(lambda x: x).get_concrete_function(np.int64(1)).backend == "numpy"
    assert ag.function(lambda x: x, backend="jax").get_concrete_function(np.int64(1)).backend == "jax"


def test_control_flow_matches_the_numpy_backend():
    def collatz(n):
        steps = np.int64(0)
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

    def fizz(n):
        score = np.int64(0)
        for i in ag.range(1, n + 1):
            if i % 15 == 0:
                score += 4
            elif i % 3 == 0:
                score += 3
            else:
                score += 1
        return score

    for func, arg in ((collatz, np.int64(27)), (fizz, np.int64(100))):
        expected, actual = both(func, arg)
        assert actual == expected and actual.dtype == expected.dtype


def test_counted_loop_lowers_to_a_fori_loop_and_a_tensorarray_to_a_buffer():
    def rnn(data, state):
        data = np.transpose(data, (1, 0, 2))
        states = ag.TensorArray(np.float32, size=data.shape[0])
        for i in ag.range(data.shape[0]):
            state = np.tanh(data[i] + state)
            states = states.write(i, state)
        return np.transpose(states.stack(), (1, 0, 2))

    args = (np.random.default_rng(0).uniform(size=(2, 6, 3)).astype(np.float32), np.zeros((2, 3), np.float32))
    expected, actual = both(rnn, *args)
    np.testing.assert_allclose(actual, expected, rtol=1e-5)
    text = ag.function(rnn, jit_compile=True).get_concrete_function(*args).lowered_text("jaxpr")
    assert "scan" in text and "while[" not in text
    assert "io_callback" not in text.split("scan[")[1].split("reduce_and")[0]  # no bounds check in the loop


def test_maximum_iterations_bounds_the_loop():
    def f(x):
        while x < 100:
            ag.set_loop_options(maximum_iterations=3)
            x = x + 1
        return x

    assert both(f, np.int64(0)) == (3, 3)


def test_variables_keep_state_across_calls():
    v = ag.Variable(np.float64(1.0))
    counter = ag.Variable(np.int64(0))

    @ag.function(jit_compile=True)
    def step(x):
        for _ in ag.range(3):
            if x > 0:
                v.assign_add(x)
            else:
                v.assign_sub(1.0)
        counter.assign_add(1)
        return v.read_value() * 2

    assert step(np.float64(0.5)) == 5.0
    assert step(np.float64(-1.0)) == -1.0
    assert v.numpy() == -0.5 and counter.numpy() == 2
    assert v.numpy().dtype == np.float64


def test_print_is_ordered_and_formatted_as_on_the_numpy_backend(capsys):
    def f(x):
        for i in ag.range(3):
            ag.print("step", i, x)
            x = x * 2
        return x

    expected, actual = both(f, np.float32([1.0, 2.5]))
    out = capsys.readouterr().out
    half = len(out) // 2
    assert out[:half] == out[half:]
    assert out[:half] == "step 0 [1.  2.5]\nstep 1 [2. 5.]\nstep 2 [ 4. 10.]\n"
    np.testing.assert_array_equal(expected, actual)


def test_py_function_without_results_runs_in_order(capsys):
    seen = []

    @ag.function(jit_compile=True)
    def f(x):
        ag.py_function(lambda v: seen.append(float(v)), [x], None)
        return x + 1

    assert f(np.float64(2.0)) == 3.0
    assert seen == [2.0]


def test_failed_assert_raises_invalid_argument_naming_the_line():
    @ag.function(jit_compile=True)
    def f(x):
        assert np.all(x > 0), "x must be positive"
        return x

    np.testing.assert_array_equal(f(np.float64([1.0])), [1.0])
    with pytest.raises(InvalidArgumentError, match=rf"{THIS_FILE}:\d+: x must be positive"):
        f(np.float64([-1.0]))


def test_index_out_of_bounds_raises_like_numpy_instead_of_clamping():
    def f(x, i):
        return x[i]

    x = np.arange(4.0)
    assert both(f, x, np.int64(-1)) == (3.0, 3.0)
    jitted = ag.function(f, jit_compile=True)
    with pytest.raises(IndexError, match="out of bounds"):
        jitted(x, np.int64(4))
    with pytest.raises(IndexError, match="out of bounds"):
        jitted(x, np.int64(-5))


def test_tensorarray_errors_match_the_numpy_backend():
    @ag.function(jit_compile=True)
    def unwritten(n):
        ta = ag.TensorArray(np.float64, size=3)
        for i in ag.range(n):
            ta = ta.write(i, i.astype(np.float64))
        return ta.stack()

    np.testing.assert_array_equal(unwritten(np.int64(3)), [0.0, 1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match="never written"):
        unwritten(np.int64(2))
    with pytest.raises(InvalidArgumentError, match="out of bounds"):
        unwritten(np.int64(4))


def refusal(func, *args) -> str:
    with pytest.raises(StagingError) as info:
        ag.function(func, jit_compile=True)(*args)
    message = str(info.value)
    assert THIS_FILE in message
    assert "Traceback" not in message
    assert "JAX_TRACEBACK_FILTERING" not in "".join(getattr(info.value, "__notes__", []))
    assert "jit_compile=False" in message
    return message


def test_data_dependent_shapes_are_refused_with_the_line_and_a_fix():
    assert "np.nonzero" in refusal(lambda x: np.nonzero(x > 0)[0], np.float64([1.0, -1.0]))
    assert "boolean mask" in refusal(lambda x: x[x > 0], np.float64([1.0, -1.0]))
    assert "np.unique" in refusal(lambda x: np.unique(x), np.float64([1.0, 1.0]))


def test_a_loop_variable_whose_shape_changes_is_refused():
    def grow(x, n):
        for _ in ag.range(n):
            x = np.concatenate([x, x[:1]])
        return x

    message = refusal(grow, np.float64([1.0]), np.int64(3))
    assert "changes shape" in message


def test_a_growing_tensorarray_is_refused():
    def f(n):
        ta = ag.TensorArray(np.float64, size=0, dynamic_size=True)
        for i in ag.range(n):
            ta = ta.write(i, i.astype(np.float64))
        return ta.stack()

    assert "dynamic_size=True" in refusal(f, np.int64(3))


def test_int_and_float_promotion_follow_numpy():
    def f(a, b, c):
        return a + 1, a + b, c * 2.5, a // np.int64(2), b / a

    args = (np.int32([3, -7]), np.float32([0.5, 1.5]), np.int64([1, 2]))
    expected, actual = both(f, *args)
    for e, a in zip(expected, actual):
        assert a.dtype == e.dtype
        np.testing.assert_allclose(a, e, rtol=1e-6)


def test_without_jax_jit_compile_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "jax", None)
    with pytest.raises(ImportError, match=r"autograph\[jax\]"):
        ag.function(lambda x: x, jit_compile=True)
    with pytest.raises(ValueError, match="backend"):
        ag.function(lambda x: x, backend="tpu")


def test_sharded_inputs_run_sharded_over_four_devices(tmp_path):
    """XLA propagates the inputs' shardings: the output stays sharded over the mesh."""
    script = textwrap.dedent("""
        import numpy as np, jax
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
        import autograph as ag
        assert len(jax.devices()) == 4, jax.devices()
        mesh = Mesh(np.array(jax.devices()), ("x",))
        sharding = NamedSharding(mesh, P("x"))
        @ag.function(jit_compile=True)
        def f(a):
            for _ in ag.range(3):
                a = np.tanh(a) * 2.0
            return a + 1.0
        data = np.arange(16.0, dtype=np.float32).reshape(8, 2)
        x = jax.device_put(data, sharding)
        out = f(x)
        assert isinstance(out, jax.Array)
        assert len(out.sharding.device_set) == 4, out.sharding
        assert out.sharding.is_equivalent_to(sharding, 2), out.sharding
        np.testing.assert_allclose(np.asarray(out), ag.function(f.python_function)(data), rtol=1e-6)
        print("ok")
    """)
    path = tmp_path / "sharded.py"
    path.write_text(script)
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=4", "JAX_PLATFORMS": "cpu",
           "PYTHONPATH": os.getcwd()}
    result = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().endswith("ok")


def test_xla_arithmetic_edge_cases_give_numpy_answers():
    """Where XLA's answer differs from NumPy's (integer division by zero, a float that does not
    fit an int), the NumPy backend's answer is kept."""

    def f(a, b, x):
        return a // b, a % b, np.divmod(a, b)[0], x.astype(np.int32), (x * 1e10).astype(np.int64)

    args = (np.int64([7, -7, 3]), np.int64([0, 0, 2]), np.float64([1.5, np.nan, -2.7, 1e30]))
    with np.errstate(all="ignore"):
        expected, actual = both(f, *args)
    for e, a in zip(expected, actual):
        assert a.dtype == e.dtype
        np.testing.assert_array_equal(a, e)


def test_integer_to_a_negative_power_raises_as_in_numpy():
    jitted = ag.function(lambda a, b: a**b, jit_compile=True)
    assert jitted(np.int64(2), np.int64(3)) == 8
    with pytest.raises(ValueError, match="negative integer powers"):
        jitted(np.int64(2), np.int64(-1))


def test_unknown_dimensions_compile_per_call_shape():
    spec = ag.TensorSpec(shape=[None], dtype=np.int32)
    f = ag.function(lambda x: np.where(x % 2 == 0, x // 2, 3 * x + 1), input_signature=(spec,), jit_compile=True)
    np.testing.assert_array_equal(f(np.int32([1, 2, 3])), [4, 1, 10])
    np.testing.assert_array_equal(f(np.int32([4, 5, 6, 7])), [2, 16, 3, 22])
    assert f(np.int32([4])).dtype == np.int32
    with pytest.raises(ValueError, match="unknown shape"):
        f.get_concrete_function().lowered_text()


def test_a_variable_created_from_a_staged_value_gets_it_at_the_first_run():
    class Accumulator:
        def __init__(self):
            self.total = None

        def __call__(self, x):
            if self.total is None:
                self.total = ag.Variable(2.0 * x)
            self.total.assign_add(x)
            return self.total.read_value()

    results = []
    for backend in ("numpy", "jax"):
        acc = Accumulator()
        f = ag.function(acc.__call__, backend=backend)
        results.append((f(np.float64(1.0)), f(np.float64(1.0)), acc.total.numpy()))
    assert results[0] == results[1] == (3.0, 4.0, 4.0)


def test_ufunc_methods_fold_in_numpy_order():
    def f(x, m):
        return (np.divide.accumulate(x), np.subtract.reduce(x), np.greater.outer(x, x),
                np.hypot.reduce(m, axis=1), np.fmax.accumulate(m, axis=1), np.add.reduce(m, axis=None),
                np.divide.reduce(np.arange(1, 5)), np.repeat(x, 2))

    expected, actual = both(f, np.array([8.0, 2.0, 3.0, 5.0]), np.arange(1.0, 7.0).reshape(2, 3))
    for e, a in zip(expected, actual):
        assert a.dtype == e.dtype and a.shape == e.shape
        np.testing.assert_allclose(a, e, rtol=1e-12)
    assert "np.power.reduce" in refusal(lambda x: np.power.reduce(x), np.float64([2.0, 3.0, 2.0]))
    assert "np.repeat" in refusal(lambda x: np.repeat(x, x.astype(np.int64)), np.float64([1.0, 2.0]))


def test_text_inputs_are_refused_and_functions_without_inputs_run():
    with pytest.raises(StagingError, match="string tensor.*jit_compile=False"):
        ag.function(lambda s, x: x + 1, jit_compile=True)(np.str_("abc"), np.int64(1))
    assert ag.function(lambda: np.int64(3) * 2, jit_compile=True)() == 6


def test_a_list_of_numbers_is_an_array_argument():
    def f(x):
        return np.isin(x, [1, 2, 3]), np.where(np.isin(x, [2]), x, 0)

    expected, actual = both(f, np.int64([0, 1, 2, 5]))
    for e, a in zip(expected, actual):
        np.testing.assert_array_equal(a, e)
        assert a.dtype == e.dtype


def test_cache_hits_take_the_fast_call_and_misses_the_general_path():
    from autograph.tracing.fast_call import never

    @ag.function(jit_compile=True)
    def f(x, n):
        assert n > 0, "n must be positive"
        return x * n

    x = np.float32([1.0, 2.0])
    f(x, np.int64(2))
    np.testing.assert_array_equal(f(x, np.int64(3)), [3.0, 6.0])
    assert type(f)._fast is not never
    assert f(np.float64(1.5), np.int64(2)) == 3.0  # another trace, through the general path
    with pytest.raises(InvalidArgumentError, match="n must be positive"):
        f(x, np.int64(0))
    assert f.experimental_get_tracing_count() == 2


def test_a_print_in_a_loop_that_never_runs_and_an_empty_input():
    """A program with host callbacks runs through jax.jit, which passes their ordering token."""

    def f(u, n):
        for _ in u:
            ag.print("row")
        return u * 2.0, n + 1

    jitted = ag.function(f, jit_compile=True)
    for _ in range(2):
        out, m = jitted(np.array([], np.float64), np.int64(6))
        assert out.shape == (0,) and m == 7


def test_a_loop_over_an_empty_vector_lowers():
    def f(u, n):
        for x in u:
            n = n + x.astype(np.int64)
        for i in ag.range(len(u)):
            n = n + u[i].astype(np.int64)
        return n

    assert both(f, np.array([], np.float64), np.int64(3)) == (3, 3)
    assert both(f, np.array([1.0, 2.0]), np.int64(3)) == (9, 9)
