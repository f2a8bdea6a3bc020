"""ONNX export of the six staged loops: onnxruntime beside our NumPy backend (information only).

Each case of benchmark 5 (bench/staged_loops.py) is traced, exported with
`ag.onnx.to_model` and run in onnxruntime on the same inputs; the table shows
steady-state seconds per call of both and how far the outputs differ
(onnxruntime's float32 tanh differs from NumPy's in the last bits). Export is
for portability: onnxruntime's `Loop` pays several microseconds per iteration
(every iteration runs its body as a subgraph), so scalar loops run much slower
there than as compiled NumPy; loops over large arrays lose less. Run:

    python -m bench.onnx_loops [--quick]
"""

from __future__ import annotations

import sys

import numpy as np

from bench.corpus import load_fresh
from bench.corpus.inputs import staged_cases
from bench.harness import Config, time_calls

__all__ = ["measure"]


def measure(config: Config) -> list[tuple[str, str, str, str, str]]:
    """Per case: (label, ours, onnxruntime, onnxruntime / ours, how the outputs differ or why not exported)."""
    import onnxruntime as ort

    import autograph as ag

    rows = []
    for label, name, args in staged_cases(config.quick):
        func = ag.function(getattr(load_fresh("staged"), name))
        expected = func(*args)
        try:
            model = ag.onnx.to_model(func, *args)
        except ag.onnx.UnsupportedOpError as error:
            rows.append((label, "", "", "", f"not exported: {str(error).splitlines()[0][:80]}"))
            continue
        options = ort.SessionOptions()
        options.log_severity_level = 3
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        feed = ag.onnx.input_feed(func, *args)
        actual = session.run(None, feed)[0]
        expected, actual = np.asarray(expected), np.asarray(actual)
        scale = np.maximum(np.abs(expected), np.finfo(np.float64).tiny) if expected.dtype.kind == "f" else 1
        worst = float(np.max(np.abs(actual - expected) / scale, initial=0.0))
        ours, theirs = time_calls([lambda f=func, a=args: f(*a), lambda s=session, d=feed: s.run(None, d)], config)
        rows.append((label, f"{ours.median * 1e6:,.1f} µs", f"{theirs.median * 1e6:,.1f} µs",
                     f"{theirs.median / ours.median:.1f}x",
                     "equal" if worst == 0 else f"max relative difference {worst:.1e} ({expected.dtype})"))
    return rows


def main(argv: list[str]) -> int:
    config = Config(quick=True, reps=3, warmup=1, min_rep_seconds=0.02) if "--quick" in argv else Config()
    print("| case | ours (NumPy backend) | onnxruntime | onnxruntime / ours | outputs |")
    print("| --- | --- | --- | --- | --- |")
    for row in measure(config):
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
