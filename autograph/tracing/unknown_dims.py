"""A dimension unknown while tracing, used as a number: told as a StagingError naming the line.

With `reduce_retracing=True` (or a TensorSpec with `None`), `x.shape[0]` is
`None` in the trace, as API.md promises, and Python then says only
`unsupported operand type(s) for -: 'NoneType' and 'int'`. The trace turns
such a TypeError, raised on a line of the user's that reads a shape, into:

    StagingError: a dimension unknown while tracing was used as a number at model.py:3
      model.py:3    return x[: x.shape[0] - 1]
                    ^
    ... Use len(x) or np.shape(x)[i], which stage ...

Why here and not a special object for the unknown dimension: `x.shape[0] is
None` and `x.shape == (None, 3)` must keep working, and an object that is
not `None` breaks the first. The TypeError is rewritten only when both hold:
its message names `NoneType`, and the user's innermost line reads a shape
(the word `shape` appears in its code) or an input of the trace has an
unknown dimension (`n, m = x.shape` a line before); other TypeErrors keep
their own message.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from runtime.ir.errors import StagingError
from runtime.ir.graph import Node
from runtime.ir.user_frames import REPORTED, format_frames, user_frames

__all__ = ["unknown_dimension_error"]

_HAS_NOTES = sys.version_info >= (3, 11)
# `x.shape`, `np.shape(x)`, `shape[0]` of a name bound to it, in the code (not a comment) of a line
_READS_SHAPE = re.compile(r"\bshape\b")


def unknown_dimension_error(error: TypeError, inputs: Sequence[Node] = ()) -> StagingError | None:
    """The StagingError to raise for `error`, or None when it is not about an unknown dimension.

    `inputs` are the trace's graph inputs: when one of them has an unknown
    dimension, a line that does not read a shape itself (`n - 1` after
    `n, m = x.shape`) is told the same way.
    """
    message = str(error.args[0]) if error.args else ""
    if "NoneType" not in message:
        return None
    frames = user_frames(error.__traceback__)
    if not frames:
        return None
    reads_shape = _READS_SHAPE.search(frames[-1].text.split("#", 1)[0]) is not None
    if not reads_shape and not any(_has_unknown_dimension(node.type) for node in inputs):
        return None
    origin = frames[-1]
    staged = StagingError(
        f"a dimension unknown while tracing was used as a Python number at {origin}: "
        f"{type(error).__name__}: {message}\n{origin.excerpt()}\n"
        f"In this trace a shape has None where a size is known only when the graph runs "
        f"(reduce_retracing=True relaxes the sizes that differ between calls, and a TensorSpec "
        f"with None declares one). Compute with the size in the graph instead: len(x) for the "
        f"first dimension, np.shape(x)[i] for any, np.size(x) for the element count; these stage. "
        f"Or give an input_signature whose TensorSpec fixes that dimension."
    )
    if _HAS_NOTES and len(frames) > 1:
        staged.add_note(format_frames(frames))
    setattr(staged, REPORTED, True)
    return staged


def _has_unknown_dimension(type_: object) -> bool:
    shape = getattr(type_, "shape", ())
    return shape is None or None in shape
