"""The error types every layer raises.

`ConversionError` and `StagingError` also derive from `ValueError` so code
written for the tf.function guide's `except ValueError` keeps working.
"""

from __future__ import annotations

__all__ = [
    "AutographError",
    "ConversionError",
    "StagingError",
    "InvalidArgumentError",
    "FailedPreconditionError",
]


class AutographError(Exception):
    """Base of every error this project raises on purpose."""


class ConversionError(AutographError, ValueError):
    """Source that cannot be converted: no source, unsupported syntax."""


class StagingError(AutographError, ValueError):
    """A staging rule was broken: undefined name on a path, mismatched branches..."""


class InvalidArgumentError(AutographError, ValueError):
    """A graph ran with inputs of the wrong dtype/shape, or a staged assert failed."""


class FailedPreconditionError(AutographError, RuntimeError):
    """A graph needs state that is gone, such as a garbage-collected Variable."""
