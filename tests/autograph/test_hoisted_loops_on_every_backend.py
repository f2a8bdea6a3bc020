"""A loop whose invariant work the optimiser moves out of it runs alike on every backend.

The NumPy backend, the XLA backend (`jit_compile=True`) and an ONNX export
all optimise the traced graph (`runtime.passes.optimize`), loop-invariant
code motion and the simplified range trip count included; each must give
the plain-Python result, for loops that run zero, one and many times.
"""

import numpy as np
import pytest

import autograph as ag
from runtime.backends.numpy import to_source


def fit(x, y, w, steps):
    for _ in ag.range(steps):
        grad = np.transpose(x) @ (x @ w - y)
        w = w - 0.01 * grad
    return w


RNG = np.random.default_rng(0)
X, Y, W = RNG.normal(size=(8, 3)), RNG.normal(size=8), np.zeros(3)
STEPS = [np.int64(0), np.int64(1), np.int64(25), np.int64(-2)]


def test_the_transpose_is_computed_once_before_the_loop():
    source = to_source(ag.function(fit).get_concrete_function(X, Y, W, STEPS[0]).graph)
    assert source.index("np.transpose(x)") < source.index("while")
    assert "np.maximum(steps, 0)" in source  # range(steps) counts max(steps, 0) iterations


@pytest.mark.parametrize("steps", STEPS)
def test_numpy_backend_matches_python(steps):
    np.testing.assert_allclose(ag.function(fit)(X, Y, W, steps), fit(X, Y, W, steps), rtol=1e-12)


@pytest.mark.parametrize("steps", STEPS)
def test_xla_backend_matches_python(steps):
    pytest.importorskip("jax")
    np.testing.assert_allclose(ag.function(fit, jit_compile=True)(X, Y, W, steps), fit(X, Y, W, steps),
                               rtol=1e-9)


def test_onnx_export_matches_python():
    ort = pytest.importorskip("onnxruntime")
    function = ag.function(fit)
    model = ag.onnx.to_model(function, X, Y, W, STEPS[0])
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for steps in STEPS:
        (out,) = session.run(None, ag.onnx.input_feed(function, X, Y, W, steps))
        np.testing.assert_allclose(out, fit(X, Y, W, steps), rtol=1e-9)
