"""The TensorFlow side: scripts run inside bench/.venv-peers, one per benchmark.

Each is run as `python -m bench.peers.tf_<benchmark> [--quick]` in its own
process (so TensorFlow's import never disturbs our measurements) and prints
its results as one JSON line (see protocol.py).
"""
