"""`ag.errors`: the error types users catch (defined in the runtime, shared by all layers)."""

from runtime.ir.errors import (
    AutographError,
    ConversionError,
    FailedPreconditionError,
    InvalidArgumentError,
    StagingError,
)

__all__ = [
    "AutographError",
    "ConversionError",
    "FailedPreconditionError",
    "InvalidArgumentError",
    "StagingError",
]
