"""What the TensorFlow scripts share: inputs as tensors, results as NumPy."""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

__all__ = ["as_tensors", "as_numpy"]


def as_tensors(args: tuple) -> tuple:
    """NumPy inputs become tf.constant, TensorFlow's native input, outside the timing."""
    return tuple(tf.constant(a) if isinstance(a, (np.ndarray, np.generic)) else a for a in args)


def as_numpy(value: Any) -> Any:
    return value.numpy() if hasattr(value, "numpy") else value
