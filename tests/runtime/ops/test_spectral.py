"""np.fft staged: types equal NumPy's on random inputs (hypothesis), values and emitted code too."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.ir.errors import StagingError
from tests.runtime.ops.staging import check, stage

DTYPES = st.sampled_from([np.float64, np.float32, np.complex64, np.complex128, np.int64])
SHAPES = st.lists(st.integers(1, 5), min_size=1, max_size=3)


def _random(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=shape) * 4
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.normal(size=shape)
    return a.astype(dtype)


@settings(max_examples=30, deadline=None)
@given(SHAPES, DTYPES, st.integers(0, 2**16), st.one_of(st.none(), st.integers(1, 6)), st.sampled_from([None, "ortho", "forward"]))
def test_one_dimensional_transforms_match_numpy(shape, dtype, seed, n, norm):
    a = _random(shape, dtype, seed)
    for fn in (np.fft.fft, np.fft.ifft, np.fft.irfft) + ((np.fft.rfft,) if a.dtype.kind != "c" else ()):
        for axis in (-1, 0):
            call = lambda x, fn=fn, axis=axis: fn(x, n=n, axis=axis, norm=norm)  # noqa: E731
            if fn is np.fft.irfft and n is None and a.shape[axis] == 1:
                continue  # NumPy refuses: an output of length 0
            check(call, a)
            check(call, a, unknown=(0,))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=2, max_size=3), DTYPES, st.integers(0, 2**16))
def test_multi_dimensional_transforms_and_shifts_match_numpy(shape, dtype, seed):
    a = _random(shape, dtype, seed)
    for fn in (np.fft.fft2, np.fft.ifft2, np.fft.fftn, np.fft.ifftn, np.fft.fftshift, np.fft.ifftshift):
        check(fn, a)
        check(fn, a, unknown=(0,))
    check(lambda x: np.fft.fft2(x, s=(3, 2)), a)
    check(lambda x: np.fft.fftn(x, axes=(0,)), a)
    check(lambda x: np.fft.fftshift(x, axes=0), a)


@pytest.mark.parametrize("fn", [np.fft.fftfreq, np.fft.rfftfreq])
@pytest.mark.parametrize("n", [1, 4, 7])
def test_frequencies_with_a_staged_spacing(fn, n):
    check(lambda d: fn(n, d=d), np.float64(0.25))
    check(lambda d: fn(n, d), np.array(0.5, np.float32))


def test_emitted_code_names_the_numpy_function():
    from runtime.backends.numpy.codegen import generate_source

    graph, leaves = stage(lambda x: np.fft.rfft(x, n=8), [np.ones(5)])
    graph.set_outputs([leaf.node for leaf in leaves])
    graph.finish()
    assert "np.fft.rfft(" in generate_source(graph).source


def test_lengths_must_be_python_values():
    with pytest.raises(StagingError, match="n= argument"):
        stage(lambda x, n: np.fft.fft(x, n=n), [np.ones(4), np.int64(3)])
