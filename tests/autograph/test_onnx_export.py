"""ag.onnx.export: the exported models run in onnxruntime and agree with the NumPy backend.

Every call of every corpus program (tests/autograph/saved_corpus.py) is exported
for its arguments; where every op has an ONNX form, onnxruntime runs the model and
its outputs must match the live Function's (ints and bools exactly, floats to
1e-6 relative), and its `<variable>:new` outputs the Variables' values after the
call. Where an op has none, the error must name it and a line.
"""

from __future__ import annotations

import collections
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import autograph as ag
from runtime.backends.export.saved_write import collect_variables
from runtime.ir.errors import StagingError
from runtime.ir.structure import flatten
from tests.autograph.onnx_helpers import op_counts as _ops
from tests.autograph.saved_corpus import fuzzer_programs, guide_programs

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

_FUZZER_PROGRAMS = 48


def _session(model):
    options = ort.SessionOptions()
    options.log_severity_level = 3
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def _agree(expected, actual) -> str | None:
    expected = np.asarray(expected)
    actual = np.asarray(actual)
    if expected.dtype != actual.dtype or expected.shape != actual.shape:
        return f"{expected.dtype}{list(expected.shape)} != {actual.dtype}{list(actual.shape)}"
    if expected.dtype.kind in "biu":
        return None if np.array_equal(expected, actual) else f"{expected!r} != {actual!r}"
    rtol = 1e-6 if expected.dtype == np.float64 else 1e-5
    if np.allclose(actual, expected, rtol=rtol, atol=0, equal_nan=True):
        return None
    return f"{expected!r} != {actual!r}"


def _check_call(function, args) -> str:
    """'exported', or 'unsupported: <op>'; raises AssertionError when the model disagrees."""
    concrete = function.get_concrete_function(*args)
    variables = collect_variables([concrete.graph])
    before = [np.array(v.numpy()) for v in variables]
    try:
        model = ag.onnx.to_model(function, *args)
    except ag.onnx.UnsupportedOpError as error:
        message = str(error)
        assert "the op" in message or "returns the Python value" in message or "input" in message, message
        if "the op" in message:
            assert ".py:" in message, message  # names the user's line
            return "unsupported: " + message.split("the op ")[1].split(" ")[0]
        return "unsupported: " + message[:60]
    onnx.checker.check_model(model)
    feed = ag.onnx.input_feed(function, *args)
    outputs = _session(model).run(None, feed)
    names = [o.name for o in _session(model).get_outputs()]
    try:
        result = function(*args)
    except Exception as error:  # the live function raised: the model need not agree on garbage
        for variable, value in zip(variables, before):
            variable.assign(value)
        return f"raised live: {type(error).__name__}"
    leaves, _ = flatten(result)
    for index, leaf in enumerate(leaves):
        difference = _agree(leaf, outputs[index])
        assert difference is None, f"output {index} of {args!r}: {difference}"
    for variable, value in zip(variables, before):
        name = f"{variable.name}:new"
        if name in names:
            difference = _agree(variable.numpy(), outputs[names.index(name)])
            assert difference is None, f"Variable {variable.name}: {difference}"
        variable.assign(value)  # every call starts from the state the model was exported with
    return "exported"


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    return _outcomes(tmp_path_factory.mktemp("onnx_programs"), _FUZZER_PROGRAMS)


def _outcomes(directory: Path, count: int) -> dict[str, list[str]]:
    """Per program of the corpus (the guide's and `count` fuzzer programs): how each call went."""
    results: dict[str, list[str]] = {}
    modules = {}
    for index, program in enumerate(guide_programs() + fuzzer_programs(count)):
        if program.source not in modules:
            path = directory / f"onnx_program_{index}.py"
            path.write_text(program.source)
            spec = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[path.stem] = module
            spec.loader.exec_module(module)
            modules[program.source] = module
        target = getattr(modules[program.source], program.function)
        calls = [(getattr(target, name), args) for name, args in program.calls] if program.name == "counter" else \
            [(target, args) for args in program.calls]
        results[program.name] = []
        for function, args in calls:
            try:
                function(*args)  # trace (and warm) as the saved-model tests do
            except StagingError:
                results[program.name].append("refused")
                continue
            except Exception:  # noqa: S110 - a run-time error of the program itself; export still applies
                pass
            results[program.name].append(_check_call(function, args))
    for name in list(sys.modules):
        if name.startswith("onnx_program_"):
            del sys.modules[name]
    return results


def test_exported_programs_agree_with_numpy(outcomes, capsys):
    programs = [name for name in outcomes if "refused" not in outcomes[name]]
    exported = [name for name in programs if all(o.startswith(("exported", "raised")) for o in outcomes[name])]
    reasons = collections.Counter(o for name in programs for o in outcomes[name] if o.startswith("unsupported"))
    with capsys.disabled():
        print(f"\nONNX export: {len(exported)} of {len(programs)} corpus programs export and agree with "
              f"NumPy; not exported: {dict(reasons.most_common())}")
    assert len(exported) >= 0.95 * len(programs), reasons
    guide = [program.name for program in guide_programs()]
    assert set(guide) <= set(exported), reasons  # every guide example (prints left out, asserts checked)


@pytest.mark.slow
def test_most_of_a_larger_sample_exports(tmp_path):
    """The share docs/saving.md reports: of 234 fuzzer programs, those that trace export,
    but for item assignment."""
    results = _outcomes(tmp_path, 234)
    programs = [name for name in results if "refused" not in results[name]]
    exported = [name for name in programs if all(o.startswith(("exported", "raised")) for o in results[name])]
    reasons = collections.Counter(o for name in programs for o in results[name] if o.startswith("unsupported"))
    assert set(reasons) <= {"unsupported: 'setitem'"}, reasons
    assert len(exported) >= 0.95 * len(programs), (len(exported), len(programs))


def test_staged_if_and_loops_become_if_and_loop(tmp_path):
    @ag.function
    def f(x, n):
        total = np.float64(0.0)
        for i in ag.range(n):
            if x[i] > 0:
                total += x[i]
        return total

    path = tmp_path / "f.onnx"
    model = ag.onnx.export(f, path, ag.TensorSpec([None], np.float64), np.int64(3))
    ops = collections.Counter(node.op_type for node in model.graph.node)
    assert ops["Loop"] == 1
    loop = next(n for n in model.graph.node if n.op_type == "Loop")
    assert loop.input[0] != ""  # a counted loop has a trip count
    body = loop.attribute[0].g
    assert any(n.op_type == "If" for n in body.node)
    assert not any(n.op_type == "Less" for n in body.node)  # and no test to run
    assert model.opset_import[0].version >= 17
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    x = np.array([1.5, -2.0, 3.0, 4.0])
    (out,) = session.run(None, {"x": x, "n": np.asarray(np.int64(3))})
    assert out == f(x, np.int64(3)) == 4.5


def test_a_while_loop_keeps_its_test():
    @ag.function
    def f(n):
        steps = np.int64(0)
        while n > 1:
            n = n // 2
            steps += 1
        return steps

    model = ag.onnx.to_model(f, np.int64(37))
    loop = next(n for n in model.graph.node if n.op_type == "Loop")
    assert loop.input[0] == ""
    for n in (0, 1, 37, 1024):
        (out,) = _session(model).run(None, {"n": np.asarray(np.int64(n))})
        assert out == f(np.int64(n))


def test_a_counted_loop_from_a_start_runs_max_of_zero_and_the_difference():
    @ag.function
    def f(a, b):
        total = np.int64(0)
        for i in ag.range(a, b):
            total += i
        return total

    model = ag.onnx.to_model(f, np.int64(2), np.int64(5))
    for a, b in ((2, 5), (5, 2), (-3, 3), (0, 0)):
        feed = {"a": np.asarray(np.int64(a)), "b": np.asarray(np.int64(b))}
        assert _session(model).run(None, feed)[0] == f(np.int64(a), np.int64(b))


def test_variables_are_initializers_and_updates_extra_outputs():
    counter = ag.Variable(np.int64(5), name="counter")

    @ag.function
    def f(x):
        counter.assign_add(1)
        return x + counter.read_value()

    model = ag.onnx.to_model(f, np.int64(1))
    assert "counter" in [i.name for i in model.graph.initializer]
    assert [i.name for i in model.graph.input] == ["x", "counter"]  # an input defaulting to its value
    outputs = _session(model).run(None, {"x": np.asarray(np.int64(1))})
    assert [o.name for o in model.graph.output] == ["output_0", "counter:new"]
    assert outputs == [7, 6] and f(np.int64(1)) == 7  # the live Function's first call too
    # the state fed back in: the next call continues from it
    session = _session(model)
    state = outputs[1]
    for expected in (8, 9):
        result, state = session.run(None, {"x": np.asarray(np.int64(1)), "counter": state})
        assert result == expected == f(np.int64(1))


def test_an_op_without_an_onnx_form_names_it_and_the_line():
    @ag.function
    def f(x):
        return ag.py_function(np.sin, [x], np.float64)  # the line named

    with pytest.raises(ag.onnx.UnsupportedOpError,
                       match=r"test_onnx_export.py:\d+: the op 'py_function' has no ONNX form"):
        ag.onnx.to_model(f, np.float64(1.0))


def test_cli_exports_onnx(tmp_path):
    from autograph.cli import main

    source = tmp_path / "model.py"
    source.write_text("import numpy as np\n\ndef step(x, n):\n    s = 0.0\n    for i in range(n):\n"
                      "        s += np.sum(x) * i\n    return s\n")
    output = tmp_path / "step.onnx"
    assert main(["export", f"{source}:step", "--arg", "float32[None]", "--arg", "int64[]", "--format", "onnx",
                 "--output", str(output)]) == 0
    session = ort.InferenceSession(str(output), providers=["CPUExecutionProvider"])
    (out,) = session.run(None, {"x": np.float32([1, 2]), "n": np.asarray(np.int64(3))})
    assert out == 9.0


def test_model_file_round_trips(tmp_path):
    @ag.function
    def f(x):
        return np.where(x > 0, x, -x) // 2

    path = tmp_path / "m.onnx"
    ag.onnx.export(f, path, ag.TensorSpec([None], np.int64))
    loaded = onnx.load(str(path))
    onnx.checker.check_model(loaded, full_check=True)
    x = np.array([-5, 3, 0, 7])
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    np.testing.assert_array_equal(session.run(None, {"x": x})[0], f(x))
    assert Path(path).stat().st_size > 0


def test_floor_division_remainder_and_cumsum_follow_numpy():
    @ag.function
    def f(a, b, m):
        return a // b, a % b, np.cumsum(a), np.cumsum(m, axis=1), np.cumsum(a > 0)

    a = np.array([7.5, -7.5, 1.0, -0.0, 5.0, np.inf, 3.0])
    b = np.array([2.0, 2.0, 0.1, 3.0, -3.0, 2.0, np.inf])
    m = np.arange(6, dtype=np.int32).reshape(2, 3)
    model = ag.onnx.to_model(f, a, b, m)
    with np.errstate(all="ignore"):
        expected = f(a, b, m)
    actual = _session(model).run(None, {"a": a, "b": b, "m": m})
    for e, got in zip(expected, actual):
        assert _agree(e, got) is None, (e, got)
    ints = np.array([7, -7, 0, 5, -5]), np.array([2, 2, 3, -3, -3])
    model = ag.onnx.to_model(f, *ints, m)
    actual = _session(model).run(None, {"a": ints[0], "b": ints[1], "m": m})
    for e, got in zip(f(*ints, m), actual):
        np.testing.assert_array_equal(e, got)


def test_a_small_if_that_cannot_fail_becomes_where_and_others_stay_if():
    @ag.function
    def collatz(n):
        steps = np.int64(0)
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

    @ag.function
    def divide(a, b):
        return a // b if b != 0 else a  # a // b may trap on ints: both branches cannot run

    model = ag.onnx.to_model(collatz, np.int64(27))
    assert _ops(model.graph)["If"] == 0 and _ops(model.graph)["Where"] >= 1
    assert _session(model).run(None, {"n": np.asarray(np.int64(27))})[0] == collatz(np.int64(27)) == 111
    model = ag.onnx.to_model(divide, np.int64(7), np.int64(2))
    assert _ops(model.graph)["If"] == 1
    for b in (2, 0, -3):
        feed = {"a": np.asarray(np.int64(7)), "b": np.asarray(np.int64(b))}
        assert _session(model).run(None, feed)[0] == divide(np.int64(7), np.int64(b))


def test_predicates_keep_their_input_dtype_and_float32_state_adds_as_numpy():
    total = ag.Variable(np.float32(0.1), name="total")

    @ag.function
    def f(x, y):
        total.assign_add(y / 3)  # float32 + float64, rounded to float32 once
        return np.isnan(x), np.isinf(x), np.isfinite(x)

    x, y = np.array([1.0, np.nan, np.inf, -np.inf]), np.float64(0.7)
    model = ag.onnx.to_model(f, x, y)
    outputs = _session(model).run(None, {"x": x, "y": np.asarray(y)})
    for expected, actual in zip(f(x, y), outputs):
        np.testing.assert_array_equal(expected, actual)
    assert outputs[3] == total.numpy() and outputs[3].dtype == np.float32  # bit for bit


def test_where_of_bools_and_small_ints():
    @ag.function
    def f(c, a, b, i, j):
        return np.where(c, a, b), np.where(c, i, j)

    args = (np.array([True, False, True]), np.array([True, True, False]), np.array([False, False, True]),
            np.array([1, -2, 3], np.int16), np.array([4, 5, -6], np.int16))
    model = ag.onnx.to_model(f, *args)
    outputs = _session(model).run(None, dict(zip("cabij", args)))
    for expected, actual in zip(f(*args), outputs):
        np.testing.assert_array_equal(expected, actual)
        assert expected.dtype == actual.dtype


def test_a_loop_over_a_tensor_of_unknown_length(tmp_path):
    """The example of docs/saving.md: `for v in x` reads the length as the graph runs."""

    @ag.function
    def normalize(x, scale=1.0):
        total = np.float64(0.0)
        for v in x:
            total += v * v
        return x * scale / np.sqrt(total), len(x), x.size

    ag.onnx.export(normalize, tmp_path / "n.onnx", ag.TensorSpec([None], np.float64))
    session = ort.InferenceSession(str(tmp_path / "n.onnx"), providers=["CPUExecutionProvider"])
    for x in (np.float64([3.0, 4.0]), np.float64([1.0, 2.0, 2.0, 0.5])):
        for expected, actual in zip(normalize(x), session.run(None, {"x": x})):
            assert _agree(expected, actual) is None


def test_a_tensor_array_with_a_size_overwrites_in_place():
    @ag.function
    def squares(n):
        ta = ag.TensorArray(np.float32, size=n, element_shape=(2,))
        for i in ag.range(n):
            ta = ta.write(i, (np.ones(2) * (i * i)).astype(np.float32))
        ta = ta.write(0, -np.ones(2, np.float32))
        return ta.stack(), ta.size()

    model = ag.onnx.to_model(squares, np.int64(4))
    for n in (4, 1):
        feed = {"n": np.asarray(np.int64(n))}
        for expected, actual in zip(squares(np.int64(n)), _session(model).run(None, feed)):
            np.testing.assert_array_equal(expected, actual)
