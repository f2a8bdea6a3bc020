"""Fallbacks: what a trace does when it cannot stage something faithfully, and strict mode.

Some code traces without an error but not as the user may think: a NumPy
random draw happens once, while tracing, and every run of the graph reuses the
numbers. Each such place calls `fall_back`, the one place that decides what
happens: a warning naming the user's line, or, in strict mode
(`ag.function(..., strict=True)`, `ag.convert(f, strict=True)`), a
StagingError with the same text.

    with strict_mode(True):        # what a strict Function's trace runs under
        fall_back("rng.random draws once ...", TracingSideEffectWarning)   # -> StagingError

Strict mode is a ContextVar set by a `with` block: a trace sets its
Function's own flag; a Function inlined into a trace, or a strict
`ag.convert` function, can only make it stricter.
"""

from __future__ import annotations

import warnings
from contextvars import ContextVar

from runtime.ir.errors import StagingError
from runtime.ir.origin import Origin, user_frame_origin, user_origin

__all__ = ["TracingSideEffectWarning", "strict_mode", "is_strict", "fall_back", "refuse_in_strict"]

_strict: ContextVar[bool] = ContextVar("autograph_strict", default=False)


class TracingSideEffectWarning(UserWarning):
    """Python code with a side effect (a NumPy random draw) ran while tracing: it happened
    once, and every run of the graph reuses its result. strict=True makes it an error."""


def is_strict() -> bool:
    """Whether fallbacks are errors right now."""
    return _strict.get()


def strict_mode(strict: bool, inherit: bool = False) -> _StrictMode:
    """A `with` block in which fallbacks are errors if `strict` (or, with `inherit`, if they already were)."""
    return _StrictMode(strict or (inherit and _strict.get()))


class _StrictMode:
    __slots__ = ("strict", "_token")

    def __init__(self, strict: bool) -> None:
        self.strict = strict

    def __enter__(self) -> None:
        self._token = _strict.set(self.strict)

    def __exit__(self, *exc_info: object) -> None:
        _strict.reset(self._token)


def fall_back(message: str, category: type[Warning], origin: Origin | None = None) -> None:
    """Warn with `message` at the user's line, or raise it as a StagingError in strict mode.

    `message` names no place: this adds the user's file:line (of the innermost
    user frame unless `origin` is given) and the line's text. The warning is
    issued at the user's file and line, once per line (Python's default filter).
    """
    found = user_frame_origin(2)
    frame, origin = (found if found is not None else (None, None)) if origin is None else (None, origin)
    where = f" at {origin}" if origin is not None else ""
    excerpt = f"\n{origin.excerpt()}" if origin is not None and origin.text else ""
    head, _, rest = message.partition("\n")
    text = f"{head}{where}{excerpt}" + (f"\n{rest}" if rest else "")
    if _strict.get():
        raise StagingError(f"{text}\nstrict=True makes this an error rather than a {category.__name__}.")
    if origin is None:
        warnings.warn(text, category, stacklevel=3)
        return
    module_globals = frame.f_globals if frame is not None else {}
    warnings.warn_explicit(  # `module` must be a str: None drops the warning
        text, category, origin.file, origin.line,
        module=module_globals.get("__name__") or origin.file.rpartition("/")[2].removesuffix(".py"),
        registry=module_globals.setdefault("__warningregistry__", {}) if frame is not None else None,
    )


def refuse_in_strict(message: str, origin: Origin | None = None) -> None:
    """In strict mode, raise `message` (plus the user's line) as a StagingError; else nothing.

    For fallbacks that are silent otherwise (a call left unconverted; ag.explain reports them).
    """
    if not _strict.get():
        return
    if origin is None:
        origin = user_origin(2)
    where = f" at {origin}" if origin is not None else ""
    excerpt = f"\n{origin.excerpt()}" if origin is not None and origin.text else ""
    head, _, rest = message.partition("\n")
    rest = f"\n{rest}" if rest else ""
    raise StagingError(f"{head}{where}{excerpt}{rest}\nstrict=True makes this an error rather than a silent fallback.")
