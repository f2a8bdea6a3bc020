"""`ag.errors`: the error types users catch (defined in the runtime, shared by all layers)."""

from autograph.tracing.parity import ParityError
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
    "ParityError",
    "StagingError",
]
