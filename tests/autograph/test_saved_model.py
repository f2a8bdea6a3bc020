"""ag.saved_model: graphs saved to a directory load and run without the source.

The round trip: each corpus program (guide examples, staged-fuzzer programs with
Variables, TensorArrays and nested loops) is traced, saved, then run again live;
a fresh Python process whose sys.path lacks the programs' directory (deleted by
then) loads every saved directory with the runtime alone and makes the same
calls. Results, printed text and errors must be equal bit for bit.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import pickle
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import autograph as ag
from runtime.backends.export import saved_format, saved_read
from runtime.ir.errors import StagingError
from tests.autograph.saved_corpus import fuzzer_programs, guide_programs
from tests.autograph.saved_records import run_calls, same_records

ROOT = Path(__file__).resolve().parents[2]
_FUZZER_PROGRAMS = 64  # the generator writes some programs tracing refuses (writes into parameters)


def _import(source: str, directory: Path, name: str):
    path = directory / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _fresh_python(script: str, cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    """Run `script` in a new interpreter that finds this checkout's packages but not the tests'
    program modules (PYTHONPATH is the checkout alone; the working directory is empty)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", script], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


_LOADER = textwrap.dedent('''
    import pickle, sys
    from runtime.backends.export import saved_read
    from tests.autograph.saved_records import run_calls
    jobs = pickle.load(open(sys.argv[1] if len(sys.argv) > 1 else "jobs.pkl", "rb"))
    results = {}
    for name, directory, calls, method in jobs:
        loaded = saved_read.read(directory)
        results[name] = run_calls(loaded, calls, method)
    assert not any(m == "autograph" or m.startswith("autograph.") for m in sys.modules), "imported autograph"
    assert not any(m.startswith("program_") for m in sys.modules)
    pickle.dump(results, open("results.pkl", "wb"))
''')


@pytest.fixture(scope="module")
def round_trip(tmp_path_factory):
    """Per program: (live records, loaded records); plus the programs left out and why."""
    base = tmp_path_factory.mktemp("saved_round_trip")
    sources, saves, work = base / "programs", base / "saved", base / "work"
    for folder in (sources, saves, work):
        folder.mkdir()
    programs = guide_programs() + fuzzer_programs(_FUZZER_PROGRAMS)
    live, jobs, skipped, modules = {}, [], {}, {}
    for index, program in enumerate(programs):
        module_name = f"program_{index}"
        if program.source not in modules:
            modules[program.source] = _import(program.source, sources, module_name)
        module = modules[program.source]
        target = getattr(module, program.function)
        method = not isinstance(target, ag.function(lambda: 0).__class__)
        first = run_calls(target, program.calls, method)  # traces every signature
        refused = [r for _, r in first if r[0] == "error" and r[1] == StagingError.__name__]
        if refused:
            skipped[program.name] = "refused while tracing"
            continue
        if all(r[0] == "error" for _, r in first):
            skipped[program.name] = "every call raised: no trace to save"
            continue
        ag.saved_model.save(target, saves / program.name)
        live[program.name] = run_calls(target, program.calls, method)
        jobs.append((program.name, str(saves / program.name), program.calls, method))
    for name in list(sys.modules):
        if name.startswith("program_"):
            del sys.modules[name]
    shutil.rmtree(sources)  # the source is gone: loading must not need it
    (work / "jobs.pkl").write_bytes(pickle.dumps(jobs))
    done = _fresh_python(_LOADER, work)
    assert done.returncode == 0, done.stderr[-3000:]
    loaded = pickle.loads((work / "results.pkl").read_bytes())
    return live, loaded, skipped


def test_corpus_is_large_enough(round_trip):
    live, _, skipped = round_trip
    fuzzed = [name for name in live if name.startswith("fuzz")]
    assert len(fuzzed) >= 40, skipped
    assert len(live) - len(fuzzed) == len(guide_programs())  # every guide example saves


def test_loaded_programs_give_exactly_what_the_live_functions_give(round_trip):
    live, loaded, _ = round_trip
    differences = {name: same_records(live[name], loaded[name]) for name in live}
    assert {name: d for name, d in differences.items() if d} == {}


def test_corpus_calls_mostly_return(round_trip):
    """A round trip where most calls raise would test little."""
    live, _, _ = round_trip
    outcomes = [record[1][0] for records in live.values() for record in records]
    assert outcomes.count("ok") >= 0.8 * len(outcomes)


# -- the object loaded -----------------------------------------------------------------------
@pytest.fixture
def module_obj(tmp_path):
    class Model:
        def __init__(self):
            self.w = ag.Variable(np.float64([1.0, 2.0]), name="w")
            self.steps = ag.Variable(np.int64(0), name="steps")

        @ag.function
        def predict(self, x):
            return np.dot(x, self.w)

        @ag.function
        def train(self, x, lr=0.5):
            self.steps.assign_add(1)
            self.w.assign_sub(lr * x)
            return self.steps.read_value()

    model = Model()
    model.predict(np.float64([1.0, 1.0]))
    model.predict(np.float64([[1.0, 1.0], [2.0, 0.0]]))
    model.train(np.float64([0.5, 0.5]))
    model.train(np.float64([0.5, 0.5]), lr=0.25)
    ag.saved_model.save(model, tmp_path / "model")
    return model, ag.saved_model.load(tmp_path / "model")


def test_variables_are_restored_assignable_and_shared(module_obj):
    model, loaded = module_obj
    np.testing.assert_array_equal(loaded.w.numpy(), model.w.numpy())
    assert loaded.steps.numpy() == 2
    assert loaded.train(np.float64([1.0, 1.0])) == 3
    assert loaded.predict(np.float64([1.0, 1.0])) == np.dot([1.0, 1.0], loaded.w.numpy())
    loaded.w.assign(np.float64([3.0, 4.0]))
    assert loaded.predict(np.float64([1.0, 1.0])) == 7.0
    assert model.steps.numpy() == 2  # the original is untouched
    assert set(loaded.variables) == {loaded.w, loaded.steps}


def test_dispatch_by_shape_and_python_value(module_obj):
    _, loaded = module_obj
    np.testing.assert_array_equal(loaded.predict(np.float64([[1.0, 0.0], [0.0, 1.0]])), loaded.w.numpy())
    with pytest.raises(TypeError, match=r"should be a float64 tensor of shape \(2, 2\), not float64 tensor of shape \(1, 2\)"):
        loaded.predict(np.float64([[1.0, 0.0]]))  # no trace for this shape: a loaded function cannot trace
    before = loaded.w.numpy()
    loaded.train(np.float64([1.0, 1.0]), lr=0.25)
    np.testing.assert_array_equal(loaded.w.numpy(), before - 0.25)
    with pytest.raises(TypeError, match="no saved concrete function of train fits"):
        loaded.train(np.float64([1.0, 1.0]), lr=0.1)  # no trace for this Python value
    with pytest.raises(TypeError, match="float32"):
        loaded.predict(np.float32([1.0, 1.0]))


def test_signatures_print_like_concrete_functions(module_obj):
    _, loaded = module_obj
    concrete = loaded.train.concrete_functions[1]
    assert str(concrete) == textwrap.dedent("""\
        ConcreteFunction train(x, lr=0.25)
          Args:
            x: float64 Tensor, shape=(2,)
          Returns:
            int64 Tensor, shape=()""")
    assert "predict(x)" in str(loaded.predict)


def test_a_single_function_loads_as_a_callable(tmp_path):
    @ag.function
    def double(x):
        return x * 2

    double(np.int32(3))
    ag.saved_model.save(double, tmp_path / "d")
    loaded = ag.saved_model.load(tmp_path / "d")
    assert loaded(np.int32(4)) == 8 and type(loaded(np.int32(4))) is np.int32
    assert loaded.double(np.int32(5)) == 10


def test_signatures_choose_what_is_saved(tmp_path):
    @ag.function
    def f(x):
        return x + 1

    f(np.int64(1))
    cf = f.get_concrete_function(ag.TensorSpec([None], np.float32))
    ag.saved_model.save(f, tmp_path / "s", signatures=cf)
    loaded = ag.saved_model.load(tmp_path / "s")
    assert len(loaded.f.concrete_functions) == 1
    np.testing.assert_array_equal(loaded(np.float32([1, 2, 3])), np.float32([2, 3, 4]))
    with pytest.raises(TypeError, match="no saved concrete function"):
        loaded(np.int64(1))


def test_an_untraced_function_is_a_clear_error(tmp_path):
    @ag.function
    def f(x):
        return x

    with pytest.raises(ag.saved_model.SaveError, match="has not been traced yet"):
        ag.saved_model.save(f, tmp_path / "u")


def test_py_function_cannot_be_saved_and_the_error_names_the_line(tmp_path):
    @ag.function
    def f(x):
        return ag.py_function(np.sin, [x], np.float64)  # the line named

    f(np.float64(1.0))
    with pytest.raises(ag.saved_model.SaveError, match=r"test_saved_model.py:\d+: ag.py_function\(sin"):
        ag.saved_model.save(f, tmp_path / "p")


def test_a_loaded_assert_still_checks(tmp_path):
    @ag.function
    def f(x):
        assert x > 0, "x must be positive"
        return x

    f(np.float64(1.0))
    ag.saved_model.save(f, tmp_path / "a")
    loaded = ag.saved_model.load(tmp_path / "a")
    with pytest.raises(ag.errors.InvalidArgumentError, match="x must be positive"):
        loaded(np.float64(-1.0))


def test_variable_created_in_the_first_trace_is_saved(tmp_path):
    class Holder:
        v = None

    holder = Holder()

    @ag.function
    def f(x):
        if holder.v is None:
            holder.v = ag.Variable(x * 2.0)
        return holder.v.assign_add(x)

    f(np.float64(1.0))
    ag.saved_model.save(f, tmp_path / "v")
    loaded = ag.saved_model.load(tmp_path / "v")
    assert loaded(np.float64(1.0)) == 4.0 and f(np.float64(1.0)) == 4.0


# -- damaged files ---------------------------------------------------------------------------
@pytest.fixture
def saved_dir(tmp_path):
    @ag.function
    def f(x):
        return x * np.float64([1.0, 2.0]) + 1.0

    f(np.float64([1.0, 1.0]))
    ag.saved_model.save(f, tmp_path / "f")
    return tmp_path / "f"


def test_a_tampered_file_is_a_clear_error(saved_dir):
    graph = saved_dir / saved_format.GRAPH_FILE
    graph.write_text(graph.read_text().replace('"multiply"', '"subtract"'))
    with pytest.raises(saved_format.LoadError, match=r"saved_graph.json does not match the sha256 hash"):
        ag.saved_model.load(saved_dir)


def test_a_truncated_file_is_a_clear_error(saved_dir):
    arrays = saved_dir / saved_format.ARRAYS_FILE
    arrays.write_bytes(arrays.read_bytes()[:-20])
    with pytest.raises(saved_format.LoadError, match=r"arrays.npz has \d+ bytes but was saved with \d+: it is truncated"):
        ag.saved_model.load(saved_dir)


def test_a_missing_file_is_a_clear_error(saved_dir):
    (saved_dir / saved_format.VARIABLES_FILE).unlink()
    with pytest.raises(saved_format.LoadError, match="variables.npz is missing"):
        ag.saved_model.load(saved_dir)


def _rewrite(directory: Path, change) -> None:
    """Change the graph file and record its new hash, as a deliberate forgery would."""
    graph = directory / saved_format.GRAPH_FILE
    document = json.loads(graph.read_text())
    change(document)
    graph.write_text(json.dumps(document))
    manifest = json.loads((directory / saved_format.MANIFEST_FILE).read_text())
    data = graph.read_bytes()
    manifest["files"][saved_format.GRAPH_FILE] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (directory / saved_format.MANIFEST_FILE).write_text(json.dumps(manifest))


def test_a_newer_format_version_is_a_clear_error(saved_dir):
    manifest = json.loads((saved_dir / saved_format.MANIFEST_FILE).read_text())
    manifest["version"] = saved_format.VERSION + 1
    (saved_dir / saved_format.MANIFEST_FILE).write_text(json.dumps(manifest))
    with pytest.raises(saved_format.LoadError, match="newer than this autograph reads"):
        ag.saved_model.load(saved_dir)


def _graph(document):
    return document["functions"]["f"][0]["graph"]


@pytest.mark.parametrize("change, message", [
    (lambda d: _graph(d)["nodes"][-1].update(op="os_system"), "uses the op 'os_system', which this autograph"),
    (lambda d: _graph(d)["nodes"][-1].update(inputs=["nowhere"]), "refers to 'nowhere'"),
    (lambda d: _graph(d)["nodes"][-1].update(name="x; import os"), "is not a Python identifier"),
    (lambda d: _graph(d)["nodes"][-1]["type"].update(dtype="<i8"), r"is typed int64\[2\], but its op gives"),
    (lambda d: _graph(d)["nodes"][-1].update(attrs={"args": {"pickle": "x"}}), "tagged 'pickle'"),
])
def test_a_forged_graph_is_refused(saved_dir, change, message):
    _rewrite(saved_dir, change)
    with pytest.raises(saved_format.LoadError, match=message):
        ag.saved_model.load(saved_dir)


def _rehash(directory: Path, name: str) -> None:
    manifest = json.loads((directory / saved_format.MANIFEST_FILE).read_text())
    data = (directory / name).read_bytes()
    manifest["files"][name] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (directory / saved_format.MANIFEST_FILE).write_text(json.dumps(manifest))


def test_loading_runs_no_code_from_the_directory(saved_dir, tmp_path):
    """Code planted where text can go (origins, a Python file beside the data) and a pickled
    array never run: text is data, and arrays load with allow_pickle=False."""
    marker = tmp_path / "ran"
    payload = f"__import__('pathlib').Path({str(marker)!r}).write_text('x')"
    (saved_dir / "__init__.py").write_text(payload)
    (saved_dir / "saved_graph.py").write_text(payload)

    def plant(document):
        for node in _graph(document)["nodes"]:
            if "origin" in node:
                node["origin"]["text"] = payload
                node["origin"]["file"] = payload + "\n" + payload

    _rewrite(saved_dir, plant)
    loaded = ag.saved_model.load(saved_dir)
    np.testing.assert_array_equal(loaded(np.float64([1.0, 1.0])), [2.0, 3.0])
    with pytest.raises(TypeError, match="should be a float64 tensor"):
        loaded(np.int64([1, 1]))  # an error message shows the planted text, as text
    assert not marker.exists()

    class Planted:
        def __reduce__(self):
            return (exec, (payload,))

    np.savez(saved_dir / saved_format.ARRAYS_FILE, a0=np.array([Planted()], dtype=object), allow_pickle=True)
    _rehash(saved_dir, saved_format.ARRAYS_FILE)
    with pytest.raises(saved_format.LoadError, match="cannot be read as NumPy arrays"):
        ag.saved_model.load(saved_dir)
    assert not marker.exists()


def test_a_lambda_loads_under_a_usable_name(tmp_path):
    square = ag.function(lambda x: x * x)
    square(np.int64(3))
    ag.saved_model.save(square, tmp_path / "l")
    loaded = ag.saved_model.load(tmp_path / "l")
    assert loaded(np.int64(4)) == 16 and loaded.lambda_(np.int64(5)) == 25


def test_backends_run_loaded_graphs(saved_dir):
    """`backend` picks what runs the graphs: another runner (here the reference interpreter)
    plugs in with register_runner; an unknown name is a clear error."""
    from runtime.backends.numpy.interpret import interpret

    with pytest.raises(ValueError, match="no backend 'nope' runs saved graphs here; available: jax, numpy"):
        ag.saved_model.load(saved_dir, backend="nope")
    saved_read.register_runner("reference", lambda graph: lambda *inputs: interpret(graph, *inputs))
    try:
        loaded = ag.saved_model.load(saved_dir, backend="reference")
        np.testing.assert_array_equal(loaded(np.float64([1.0, 1.0])), [2.0, 3.0])
    finally:
        del saved_read._RUNNERS["reference"]


def test_a_variable_argument_is_the_restored_variable(tmp_path):
    v = ag.Variable(np.float64(1.0), name="v")

    @ag.function
    def bump(var, x):
        var.assign_add(x)
        return var.read_value()

    bump(v, np.float64(1.0))
    ag.saved_model.save(bump, tmp_path / "b")
    loaded = ag.saved_model.load(tmp_path / "b")
    (restored,) = loaded.variables
    assert loaded(restored, np.float64(2.0)) == 4.0  # as the Function is called
    assert loaded.bump.concrete_functions[0](np.float64(1.0)) == 5.0  # as a ConcreteFunction: var bound
    with pytest.raises(TypeError, match="should be the Variable 'v' saved with it"):
        loaded(v, np.float64(1.0))  # the original is not the restored one
    assert v.numpy() == 2.0


def test_a_left_out_argument_takes_its_default_when_dispatching(tmp_path):
    @ag.function
    def scale(x, factor=2):
        return x * factor

    scale(np.int64(1), 3)
    scale(np.int64(1))
    ag.saved_model.save(scale, tmp_path / "s")
    loaded = ag.saved_model.load(tmp_path / "s")
    assert loaded(np.int64(5)) == 10 and loaded(np.int64(5), 3) == 15
    assert loaded.scale.concrete_functions[0](np.int64(5)) == 15  # the trace's own factor


def test_type_hinted_numbers_are_tensors_when_loaded(tmp_path):
    """follow_type_hints=True: a number for an `ag.Tensor` parameter is an array, loaded too."""
    @ag.function(follow_type_hints=True)
    def scaled(x: ag.Tensor, k=2):
        return x * k

    assert scaled(3) == 6
    ag.saved_model.save(scaled, tmp_path / "h")
    loaded = ag.saved_model.load(tmp_path / "h")
    assert [loaded(n) for n in range(4)] == [scaled(n) for n in range(4)] == [0, 2, 4, 6]
    assert type(loaded(5)) is np.int64
    with pytest.raises(TypeError, match="no saved concrete function"):
        loaded(1.5)  # a float64 tensor: the Function would trace anew
