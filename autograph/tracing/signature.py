"""Signature: a Python function's parameters, bound once, fast at every call.

`canonicalize(args, kwargs)` turns a call into one value per parameter
(defaults filled in, `*args` as a tuple, `**kwargs` as a dict), so `f(1, b=2)`
and `f(1, 2)` select the same trace. `inspect.Signature.bind` runs only when
the call is not the plain positional case.

    >>> sig = Signature.of(lambda a, b=2: a)
    >>> sig.canonicalize((1,), {})
    (1, 2)
    >>> sig.to_call((1, 2))
    ((1, 2), {})
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["Signature"]

_P = inspect.Parameter


class Signature:
    """Parameter names and kinds of a function, precomputed for fast binding."""

    def __init__(
        self, signature: inspect.Signature, hints: dict[str, Any] | None = None,
        func: Callable[..., Any] | None = None,
    ) -> None:
        self.signature = signature
        self.params = tuple(signature.parameters.values())
        self.names = tuple(p.name for p in self.params)
        self.kinds = tuple(p.kind for p in self.params)
        self._hints = hints
        self._func = func  # whose annotations `hints` resolves when first read
        plain = (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)
        self.all_positional = all(kind in plain for kind in self.kinds)
        self.single_positional = self.all_positional and len(self.params) == 1

    @classmethod
    def of(cls, func: Callable[..., Any], skip_first: bool = False) -> Signature:
        """The signature of `func`; `skip_first` drops `self` of an unbound method."""
        signature = inspect.signature(func)
        if skip_first:
            params = list(signature.parameters.values())[1:]
            signature = signature.replace(parameters=params)
        return cls(signature, func=func)

    @property
    def hints(self) -> dict[str, Any]:
        """Resolved annotations, evaluated when first read.

        Only follow_type_hints needs them, and typing.get_type_hints costs more
        than the rest of the signature.
        """
        if self._hints is None:
            self._hints = {} if self._func is None else _annotations(self._func)
        return self._hints

    def positions_hinted(self, annotation: Any) -> frozenset[int]:
        """Indexes of the parameters annotated with exactly `annotation`."""
        return frozenset(i for i, n in enumerate(self.names) if self.hints.get(n) is annotation)

    def canonicalize(self, args: tuple, kwargs: dict[str, Any]) -> tuple:
        """One value per parameter; raises TypeError like Python for a bad call."""
        if not kwargs and self.all_positional and len(args) == len(self.params):
            return args
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as error:  # inspect's words lack the function Python's own message names
            name = getattr(self._func, "__qualname__", None)
            if name is None:
                raise
            raise TypeError(f"{name}() {error}") from None
        arguments = bound.arguments
        values = []
        for param in self.params:
            if param.name in arguments:
                values.append(arguments[param.name])
            elif param.kind is _P.VAR_POSITIONAL:
                values.append(())
            elif param.kind is _P.VAR_KEYWORD:
                values.append({})
            else:
                values.append(param.default)
        return tuple(values)

    def to_call(self, values: tuple) -> tuple[tuple, dict[str, Any]]:
        """The `(args, kwargs)` that pass canonical `values` to the function."""
        if self.all_positional:
            return tuple(values), {}
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for param, value in zip(self.params, values):
            if param.kind in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD):
                args.append(value)
            elif param.kind is _P.VAR_POSITIONAL:
                args.extend(value)
            elif param.kind is _P.KEYWORD_ONLY:
                if value is not param.default:  # left out: some C functions reject explicit defaults
                    kwargs[param.name] = value
            else:
                kwargs.update(value)
        return tuple(args), kwargs


def _annotations(func: Callable[..., Any]) -> dict[str, Any]:
    """Resolved annotations (string annotations evaluated when possible)."""
    import typing

    target = getattr(func, "__func__", func)
    try:
        return typing.get_type_hints(target)
    except Exception:  # unresolved names: fall back to the raw annotations
        return dict(getattr(target, "__annotations__", {}) or {})
