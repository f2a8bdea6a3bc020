"""`ag.saved_model.load(path, backend="jax")`: loaded graphs run on the XLA backend.

Each guide program of the saved corpus is saved once and loaded twice, on the
NumPy backend and on the XLA backend; both make the same calls from the same
saved Variable values. Values must agree (ints and bools exactly, floats within
the XLA backend's differential tolerance), and so must printed text and errors,
or the XLA backend refuses the graph with a StagingError naming the line (a
TensorArray that grows, which XLA cannot size).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys

import numpy as np
import pytest

pytest.importorskip("jax")

import autograph as ag  # noqa: E402
from autograph.tracing.function import Function  # noqa: E402
from runtime.ir.errors import StagingError  # noqa: E402
from runtime.ir.structure import flatten  # noqa: E402
from tests.autograph.saved_corpus import guide_programs  # noqa: E402
from tests.runtime.backends.jax.test_differential import close_values, same_printed  # noqa: E402

# dynamic_size=True TensorArrays: XLA needs a TensorArray's size before the graph runs
_REFUSED = {"running_sums"}


def _outcomes(target, calls: list, method: bool) -> list:
    """Per call: (printed text, ("ok", tree, leaves) or ("error", type name))."""
    records = []
    for call in calls:
        fn, args = (getattr(target, call[0]), call[1]) if method else (target, call)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                leaves, tree = flatten(fn(*args))
                records.append((out.getvalue(), ("ok", str(tree), leaves)))
            except StagingError:
                raise
            except Exception as error:  # the outcome to compare
                records.append((out.getvalue(), ("error", type(error).__name__)))
    return records


def _agree(numpy_records: list, jax_records: list) -> str | None:
    for index, ((printed_a, a), (printed_b, b)) in enumerate(zip(numpy_records, jax_records)):
        if not same_printed(printed_a, printed_b):
            return f"call {index} printed {printed_a!r} on NumPy, {printed_b!r} on XLA"
        if a[:2] != b[:2] or (a[0] == "ok" and not all(
                close_values(x, y) and type(x) is type(y) for x, y in zip(a[2], b[2]))):
            return f"call {index}: {a!r:.300} on NumPy, {b!r:.300} on XLA"
    return None


@pytest.fixture(scope="module")
def saved_guide(tmp_path_factory):
    """(program, saved directory) per guide program, traced with its calls."""
    base = tmp_path_factory.mktemp("saved_jax")
    programs = guide_programs()
    path = base / "guide_for_jax.py"
    path.write_text(programs[0].source)
    spec = importlib.util.spec_from_file_location("guide_for_jax", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["guide_for_jax"] = module
    try:
        spec.loader.exec_module(module)
        saved = []
        for program in programs:
            target = getattr(module, program.function)
            method = not isinstance(target, Function)
            with contextlib.redirect_stdout(io.StringIO()):
                _outcomes(target, program.calls, method)
            ag.saved_model.save(target, base / program.name)
            saved.append((program, base / program.name, method))
        return saved
    finally:
        del sys.modules["guide_for_jax"]


def test_loaded_guide_programs_agree_on_the_xla_backend(saved_guide):
    agreed, differences = [], {}
    for program, directory, method in saved_guide:
        on_numpy = ag.saved_model.load(directory)
        on_jax = ag.saved_model.load(directory, backend="jax")
        expected = _outcomes(on_numpy, program.calls, method)
        if program.name in _REFUSED:
            with pytest.raises(StagingError, match=r"guide_for_jax\.py:\d+: a TensorArray with dynamic_size=True"):
                _outcomes(on_jax, program.calls, method)
            continue
        difference = _agree(expected, _outcomes(on_jax, program.calls, method))
        if difference:
            differences[program.name] = difference
        else:
            agreed.append(program.name)
        # the Variables each loaded object restored went the same way
        for a, b in zip(on_numpy.variables, on_jax.variables):
            assert close_values(a.numpy(), b.numpy()), (program.name, a, b)
    assert differences == {}
    assert len(agreed) == len(saved_guide) - len(_REFUSED)


def test_xla_results_are_numpy_values_and_variables_stay_assignable(saved_guide):
    directory = next(d for p, d, _ in saved_guide if p.name == "counter")
    loaded = ag.saved_model.load(directory, backend="jax")
    loaded.scale.assign(np.float32(3.0))
    result = loaded.step(np.float32([1, 2]))
    assert type(result) is np.ndarray and result.dtype == np.float32
    np.testing.assert_array_equal(result, np.float32([3, 6]))
    assert loaded.count.numpy() == 2 and type(loaded.reset()) is np.int64  # saved with 1
