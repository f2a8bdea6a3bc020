"""Exporters: a traced graph written down to run elsewhere.

`saved` writes and reads the saved-graph format (JSON graphs, .npz values,
hashed and versioned; reading runs no code from the files); `loaded` is what
reading returns; `to_onnx` converts a graph to an ONNX model. Like every
backend they see only the IR, the ops and the passes.
"""
