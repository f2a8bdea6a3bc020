"""Python values -> Graph: Tensors, NumPy dispatch and the staging of control flow and state.

Importing the package installs NumPy dispatch on `Tensor` (see `dispatch`).
"""

from runtime.tracing import dispatch  # noqa: F401  installs Tensor's operators and NumPy protocols
