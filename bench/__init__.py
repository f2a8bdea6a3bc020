"""Side-by-side benchmarks: this project, TensorFlow, and the hand-written limit.

`python -m bench.run` runs them all and writes bench/RESULTS.md. Nothing in
this package imports `autograph` at import time, so the TensorFlow side
(bench/peers/, run in its own environment) can share the harness and corpus.
"""
