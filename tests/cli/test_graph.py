"""`autograph graph`: input specs, loading the target, DOT output in-process."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograph.cli import main
from autograph.cli.graph import UsageError, parse_spec
from autograph.tracing.spec import TensorSpec
from tests.cli.conftest import FIXTURES


@pytest.mark.parametrize(
    ("text", "shape", "dtype"),
    [
        ("float32[None,3]", (None, 3), np.float32),
        ("float32[?, 3]", (None, 3), np.float32),
        ("int64[]", (), np.int64),
        ("bool[2,2]", (2, 2), np.bool_),
        ("float64", None, np.float64),
    ],
)
def test_tensor_specs(text, shape, dtype):
    spec = parse_spec(text)
    assert isinstance(spec, TensorSpec)
    assert spec.shape == shape
    assert np.dtype(spec.dtype) == np.dtype(dtype)


@given(
    st.sampled_from(["float32", "float64", "int32", "int64", "bool", "uint8", "complex128"]),
    st.lists(st.one_of(st.none(), st.integers(0, 10**6)), max_size=5),
    st.sampled_from(["None", "?"]),
    st.sampled_from([",", ", ", " , "]),
)
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a loaded machine is slow to start
def test_any_written_spec_reads_back(dtype, shape, unknown, separator):
    text = f"{dtype}[{separator.join(unknown if d is None else str(d) for d in shape)}]"
    spec = parse_spec(text)
    assert spec.shape == tuple(shape)
    assert np.dtype(spec.dtype) == np.dtype(dtype)


def test_literals_are_constants_and_garbage_is_a_usage_error():
    assert parse_spec("3") == 3
    assert parse_spec("True") is True
    assert parse_spec("'mean'") == "mean"
    with pytest.raises(UsageError, match="dtype\\[dims\\]"):
        parse_spec("floaty[3]")
    with pytest.raises(UsageError, match="bad dimension"):
        parse_spec("float32[3, -1]")


def run(*argv: str):
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), None, out, err), out.getvalue(), err.getvalue()


def test_module_by_dotted_name_and_method_path(monkeypatch):
    monkeypatch.chdir(FIXTURES.parent.parent)
    status, out, err = run("graph", "fixtures.cli.loop:plain", "--arg", "int64[4]")
    assert status == 0, err
    assert "int64[4]" in out and "multiply" in out


def test_missing_attribute_and_module_are_usage_errors(capsys):
    for target in (f"{FIXTURES / 'loop.py'}:nope", "no_such_module_xyz:f"):
        with pytest.raises(SystemExit) as info:
            run("graph", target)
        assert info.value.code == 2
    assert "no_such_module_xyz" in capsys.readouterr().err


def test_wrong_number_of_args_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        run("graph", f"{FIXTURES / 'loop.py'}:shrink", "--arg", "float32[3]")
    assert info.value.code == 2
    assert "does not fit (x, limit): missing a required argument: 'limit'" in capsys.readouterr().err


def test_staging_errors_name_the_user_line_and_exit_1():
    status, out, err = run("graph", f"{FIXTURES / 'loop.py'}:unconverted", "--arg", "float32[]")
    assert (status, out) == (1, "")
    assert err.startswith("autograph graph: StagingError: ")
    assert "loop.py:31" in err


def test_a_module_with_a_syntax_error_is_its_line_and_exit_1_not_a_traceback(tmp_path):
    broken = tmp_path / "broken_for_graph.py"
    broken.write_text("def f(x)\n    return x\n")
    status, out, err = run("graph", f"{broken}:f", "--arg", "int64[]")
    assert (status, out) == (1, "")
    assert err.startswith(f"autograph graph: ConversionError: cannot import {broken}: {broken}:1: syntax error")
    assert "Traceback" not in err and "def f(x)" in err


def test_dot_file_output_needs_no_graphviz(tmp_path):
    target = tmp_path / "g.dot"
    status, out, err = run("graph", f"{FIXTURES / 'loop.py'}:plain", "--arg", "float32[3]",
                           "--output", str(target))
    assert (status, out) == (0, "")
    assert target.read_text().startswith('digraph "plain"')
    assert f"wrote {target}" in err


def test_optimized_graph_is_drawn(tmp_path):
    target = f"{FIXTURES / 'loop.py'}:repeated"
    status, plain, err = run("graph", target, "--arg", "float64[3]")
    assert status == 0, err
    status, optimized, err = run("graph", target, "--arg", "float64[3]", "--optimized")
    assert status == 0, err
    assert optimized.startswith("digraph")
    assert 0 < optimized.count('label="add') <= plain.count('label="add') == 2


def test_keyword_args(capsys):
    target = f"{FIXTURES / 'loop.py'}:shrink"
    status, out, err = run("graph", target, "--arg", "float32[None,3]", "--arg", "limit=float32[]")
    assert status == 0, err
    assert 'label="limit\\nfloat32[]"' in out
    with pytest.raises(SystemExit):
        run("graph", target, "--arg", "limit=float32[]", "--arg", "float32[3]")
    assert "positional --arg 'float32[3]' after a keyword" in capsys.readouterr().err


def test_a_method_of_a_class_asks_for_an_instance_and_one_of_an_instance_traces(capsys):
    """`Scaler.scale` has no instance for self: the error says to name one the module makes."""
    with pytest.raises(SystemExit) as info:
        run("graph", f"{FIXTURES / 'decorated.py'}:Scaler.scale", "--arg", "float64[]")
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "Scaler.scale is a method of the class Scaler" in err and "model = Scaler(...)" in err
    status, out, err = run("graph", f"{FIXTURES / 'decorated.py'}:doubler.scale", "--arg", "float64[]")
    assert status == 0, err
    assert 'digraph "scale"' in out
