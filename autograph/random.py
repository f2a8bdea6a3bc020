"""ag.random: random numbers drawn anew at every run of a Function (`ag.random.Generator(seed)`)."""

from runtime.tracing.random import Generator

__all__ = ["Generator"]
