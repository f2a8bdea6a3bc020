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
import types
from collections.abc import Callable
from typing import Any

__all__ = ["Signature"]

_P = inspect.Parameter


class Signature:
    """Parameter names and kinds of a function, precomputed for fast binding.

    A plain function's names and kinds come from its code object; the
    `inspect.Signature` (5-10 µs per function, more than the rest of a small
    first call's bookkeeping) is made only when a call needs binding or a
    parameter's default, which the positional calls most traces see never do.
    """

    def __init__(
        self, signature: inspect.Signature | None, hints: dict[str, Any] | None = None,
        func: Callable[..., Any] | None = None, skip_first: bool = False,
        plain: tuple[str, ...] | None = None,
    ) -> None:
        self._signature = signature
        self._skip_first = skip_first
        self._params: tuple[inspect.Parameter, ...] | None = None
        self._hints = hints
        self._func = func  # whose annotations `hints` resolves when first read
        if plain is not None:  # positional-or-keyword parameters only, read off the code
            self.names = plain
            self.kinds = (_P.POSITIONAL_OR_KEYWORD,) * len(plain)
        else:
            self.names = tuple(p.name for p in self.params)
            self.kinds = tuple(p.kind for p in self.params)
        positional = (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)
        self.all_positional = all(kind in positional for kind in self.kinds)
        self.single_positional = self.all_positional and len(self.names) == 1

    @classmethod
    def of(cls, func: Callable[..., Any], skip_first: bool = False) -> Signature:
        """The signature of `func`; `skip_first` drops `self` of an unbound method."""
        plain = _plain_parameters(func)
        if plain is not None:
            return cls(None, func=func, skip_first=skip_first, plain=plain[1:] if skip_first else plain)
        return cls(_inspected(func, skip_first), func=func)

    @property
    def signature(self) -> inspect.Signature:
        """The `inspect.Signature` (for binding calls that are not plainly positional)."""
        if self._signature is None:
            self._signature = _inspected(self._func, self._skip_first)
        return self._signature

    @property
    def params(self) -> tuple[inspect.Parameter, ...]:
        if self._params is None:
            self._params = tuple(self.signature.parameters.values())
        return self._params

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
        if not kwargs and self.all_positional and len(args) == len(self.names):
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


def _inspected(func: Callable[..., Any], skip_first: bool) -> inspect.Signature:
    signature = inspect.signature(func)
    if skip_first:
        params = list(signature.parameters.values())[1:]
        signature = signature.replace(parameters=params)
    return signature


_NOT_PLAIN = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS
# attributes inspect.signature follows instead of reading the function's own code
_FOLLOWED = frozenset({"__wrapped__", "__signature__", "_partialmethod", "__partialmethod__"})


def _plain_parameters(func: Any) -> tuple[str, ...] | None:
    """The parameter names of a function whose parameters are all positional-or-keyword.

    Read off the code object, as `inspect.signature` reads them for such a
    function; None for anything else (positional-only, keyword-only or star
    parameters, a wrapper whose `__wrapped__` or `__signature__` inspect follows,
    no plain function), which goes through `inspect.signature`.
    """
    if type(func) is not types.FunctionType or not _FOLLOWED.isdisjoint(func.__dict__):
        return None
    code = func.__code__
    if code.co_flags & _NOT_PLAIN or code.co_kwonlyargcount or code.co_posonlyargcount:
        return None
    return code.co_varnames[: code.co_argcount]


def _annotations(func: Callable[..., Any]) -> dict[str, Any]:
    """Resolved annotations (string annotations evaluated when possible)."""
    import typing

    target = getattr(func, "__func__", func)
    try:
        return typing.get_type_hints(target)
    except Exception:  # unresolved names: fall back to the raw annotations
        return dict(getattr(target, "__annotations__", {}) or {})
