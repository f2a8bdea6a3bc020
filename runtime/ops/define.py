"""`define`: turn a NumPy callable plus a shape rule into a registered Op.

Every op of the set is a NumPy call (recorded by `runtime.tracing.record.split_call`), so its
three faces are derived the same way: `impl` fills the template with values
and calls NumPy, `infer` fills it with TensorTypes and calls the op's rule,
`emit` fills it with the compiler's names and prints the call. `infer`
remembers its answers (`rule_memo`): a rule is a pure function of its question.

    define("tanh", np.tanh, rule)              # emits np.tanh(x)
    define("add", np.add, rule, fmt="{0} + {1}")  # emits x + y
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from runtime.ir.errors import StagingError
from runtime.ir.types import TensorType
from runtime.ops.calls import render, render_call, resolve_call, staging_error
from runtime.ops.registry import Op, register
from runtime.ops.rule_memo import remembered

__all__ = ["define", "Rule"]

Rule = Callable[..., "TensorType"]
_SIMPLE = re.compile(r"^(?:[A-Za-z_][\w.]*|\d[\w.]*)$")


def _operand(source: str) -> str:
    """A name or non-negative number as is; anything else parenthesised (`(-1) ** x`)."""
    if source.isascii() and source.isidentifier():  # the usual operand, without the regex
        return source
    return source if _SIMPLE.match(source) else f"({source})"


def define(
    name: str,
    fn: Callable,
    rule: Rule,
    fmt: str | Callable | None = None,
    path: str | None = None,
    emit: Callable | None = None,
) -> Op:
    """Register op `name` computing `fn`; `rule(*args, **kwargs)` sees TensorTypes for tensors.

    `fmt` prints the call as an expression over the positional arguments
    ("{0} + {1}") when no keyword attrs are set; otherwise, and without `fmt`,
    the call prints as `path(...)` (default `np.<name>`). A callable `fmt`
    gets the rendered positional arguments and keyword arguments (a dict).
    """
    path = path or f"np.{name}"

    def impl(*values: Any, **attrs: Any) -> Any:
        args, kwargs = resolve_call(values, attrs)
        return fn(*args, **kwargs)

    def infer(types: Sequence[TensorType], attrs: Mapping[str, Any]) -> TensorType:
        args, kwargs = resolve_call(types, attrs)
        try:
            return rule(*args, **kwargs)
        except StagingError:
            raise
        except (TypeError, ValueError, OverflowError, IndexError) as exc:
            raise staging_error(f"{path}: {exc}") from exc

    def emit_call(sources: Sequence[str], attrs: Mapping[str, Any]) -> str:
        if callable(fmt):
            template = attrs.get("args")
            rendered = list(sources) if template is None else [render(v, sources) for v in template]
            keywords = {k: render(v, sources) for k, v in attrs.items() if k != "args"}
            return fmt(rendered, keywords)
        if fmt is not None and all(key == "args" for key in attrs):
            template = attrs.get("args")
            rendered = list(sources) if template is None else [render(v, sources) for v in template]
            return fmt.format(*(_operand(s) for s in rendered))
        return render_call(path, sources, attrs)

    return register(Op(
        name, infer=remembered(infer), impl=impl, emit=emit or emit_call, numpy=fn, path=path,
    ))
