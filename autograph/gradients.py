"""`ag.grad` and `ag.value_and_grad`: Functions that return gradients, as JAX's do.

Each wraps the user's function in a Function whose trace watches the
chosen arguments, runs the function under a GradientTape and asks the tape
for the gradient, so the forward pass and the gradient are one graph,
traced and cached per input signature like any Function.

    dtanh = ag.grad(lambda x: np.sum(np.tanh(x)))
    dtanh(np.float64([0.0, 1.0]))      # array([1.        , 0.41997434])
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from autograph.tracing.function import Function, function
from runtime.ir.errors import StagingError
from runtime.operators.gradient_tape import GradientTape
from runtime.tracing.tensor import Tensor
from runtime.tracing.variables import Variable

__all__ = ["grad", "value_and_grad", "GradientTape"]


def _argnums(argnums: int | tuple[int, ...]) -> tuple[tuple[int, ...], bool]:
    if isinstance(argnums, int):
        return (argnums,), True
    if isinstance(argnums, (tuple, list)) and all(isinstance(i, int) for i in argnums):
        return tuple(argnums), False
    raise TypeError(f"argnums must be an int or a tuple of ints, not {argnums!r}")


def _gradient_function(f: Callable, argnums: Any, has_aux: bool, with_value: bool) -> Function:
    positions, single = _argnums(argnums)
    target_fn = f.python_function if isinstance(f, Function) else f
    name = getattr(target_fn, "__name__", "f")

    def differentiated(*args: Any, **kwargs: Any) -> Any:
        for i in positions:
            if i >= len(args):
                raise TypeError(f"argnums names argument {i} but {name} was called with {len(args)} positional arguments")
            if not isinstance(args[i], (Tensor, Variable)):
                raise StagingError(
                    f"argument {i} of {name} is a Python {type(args[i]).__name__}, a constant of the trace; "
                    f"pass a float NumPy array or scalar (np.float64(x)) to differentiate with respect to it"
                )
        with GradientTape() as tape:
            for i in positions:
                tape.watch(args[i])
            out = converted(*args, **kwargs)
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise TypeError(f"with has_aux=True, {name} must return a pair (output, aux)")
            value, aux = out
        else:
            value, aux = out, None
        sources = [args[i] for i in positions]
        grads = tape.gradient(value, sources, unconnected_gradients="zero")
        grads = grads[0] if single else tuple(grads)
        if with_value:
            return ((value, aux), grads) if has_aux else (value, grads)
        return (grads, aux) if has_aux else grads

    from autograph.api import convert, do_not_convert

    converted = convert(target_fn)
    # ag.grad(ag.grad(f)) calls this function as it is (what it runs is converted already), so errors
    # name the user's lines, never this module's
    do_not_convert(differentiated)
    differentiated.__name__ = f"grad_{name}" if not with_value else f"value_and_grad_{name}"
    differentiated.__qualname__ = differentiated.__name__
    functools.update_wrapper(differentiated, target_fn, assigned=("__module__", "__doc__"), updated=())
    backend = f._backend if isinstance(f, Function) else "numpy"  # grad of a jit_compile=True Function: XLA
    return function(differentiated, autograph=False, backend=backend)


def grad(f: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Function:
    """A Function computing the gradient of `f`'s (summed) output w.r.t. the arguments in `argnums`."""
    return _gradient_function(f, argnums, has_aux, with_value=False)


def value_and_grad(f: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Function:
    """A Function returning `(f(*args), grads)` (with has_aux: `((value, aux), grads)`)."""
    return _gradient_function(f, argnums, has_aux, with_value=True)
