"""Random draws while tracing: recognised where converted code calls them, and reported.

`rng.random(x.shape)` inside a Function runs while it traces: the numbers
are drawn once and become constants of the graph, which every later run
reuses. converted_call asks `drawing_target` about each bound method it is
not sure of, and holds `module_callables()` for the functions and classes of
`np.random` and `random`: a random callable (a function of `np.random`, a
method of a `Generator`, `RandomState`, `BitGenerator` or `random.Random`)
comes back wrapped. Called while a graph is being built, the wrapper reports
the draw through `runtime.tracing.fallbacks.fall_back` (a TracingSideEffectWarning,
or a StagingError in strict mode), then draws. Nothing of NumPy's is patched:
only calls that converted code makes are seen (a draw inside an unconverted
library function is not).

One case is faithful and not reported: a generator made from a fixed seed
inside the trace (`rng = np.random.default_rng(0)`), drawn from in the graph
it was made in. The original makes and seeds it at every call, so it too
draws the same numbers every time. `seeded_generators()`, entered by each
trace, keeps what the trace made that way. Made in one graph and drawn in
another (a staged loop's body, a branch), it is reported: the loop draws once
where Python draws at every iteration.
"""

from __future__ import annotations

import random
import types
from collections.abc import Callable
from contextvars import ContextVar

import numpy as np

from runtime.tracing.fallbacks import TracingSideEffectWarning, fall_back
from runtime.tracing.trace_context import graph_being_built

__all__ = ["RANDOM_OWNERS", "BUILTIN_METHOD_OWNERS", "module_callables", "drawing_target", "is_random_module", "seeded_generators"]

# objects whose methods draw from (or set) random state
RANDOM_OWNERS: tuple[type, ...] = (
    np.random.Generator, np.random.RandomState, np.random.BitGenerator, random.Random,
)
_SEEDS = (*RANDOM_OWNERS, np.random.SeedSequence)
# the exact classes whose methods may be C methods (builtin_function_or_method): Python's
# random.Random and, before NumPy 2, NumPy's generators; converted_call tests a C method's
# owner against this set, which costs less than isinstance (it runs for `d.get`, `lst.append`)
BUILTIN_METHOD_OWNERS: frozenset[type] = frozenset(
    kind for module in (np.random, random) for kind in vars(module).values()
    if isinstance(kind, type) and issubclass(kind, RANDOM_OWNERS)
)
_METHODS = (types.MethodType, types.BuiltinMethodType)
# constructors, and the argument that seeds them: made from a fixed seed in a trace, they are kept
_MAKERS: dict[object, str] = {
    np.random.default_rng: "seed", np.random.RandomState: "seed", np.random.SeedSequence: "entropy",
    np.random.Generator: "bit_generator", random.Random: "x",
    **{kind: "seed" for kind in (np.random.MT19937, np.random.PCG64, np.random.PCG64DXSM,
                                 np.random.Philox, np.random.SFC64)},
}
# id -> (generator, the graph it was made in) for generators made from a fixed seed in this trace
_seeded: ContextVar[dict[int, tuple[object, object]] | None] = ContextVar("autograph_seeded", default=None)


class seeded_generators:  # noqa: N801 - used as a `with` block, like a function
    """A `with` block per trace: generators it makes from a fixed seed draw unreported."""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token = _seeded.set({})

    def __exit__(self, *exc_info: object) -> None:
        _seeded.reset(self._token)


def is_random_module(module: str) -> bool:
    """Whether calls of `module`'s attributes may draw: numpy.random and its submodules."""
    return module == "numpy.random" or module.startswith("numpy.random.")


def _drawn(owner: object | None, name: str) -> None:
    """Report a draw made while tracing, unless `owner` was seeded in this very graph."""
    graph = graph_being_built()
    if graph is None:
        return
    seeded = _seeded.get()
    made = seeded.get(id(owner)) if seeded is not None and owner is not None else None
    if made is not None and made[0] is owner and made[1] is graph:
        return
    fall_back(
        f"{name} draws random numbers while the Function traces\n"
        f"The draw happens once, while tracing: its numbers become constants of the graph, and "
        f"every later call (and every iteration of a staged loop) reuses them. Use "
        f"ag.random.Generator(seed) for staged draws (new numbers at every call), or draw outside "
        f"the Function and pass the numbers in as an argument.",
        TracingSideEffectWarning,
    )


def _reported(f: Callable, name: str, owner: object | None = None) -> Callable:
    """`f`, reporting each call made while a graph is being built."""

    def draw(*args: object, **kwargs: object) -> object:
        _drawn(owner, name)
        return f(*args, **kwargs)

    draw.__name__ = getattr(f, "__name__", "draw")
    draw.__wrapped__ = f
    return draw


def _maker(make: Callable, name: str, seed_name: str) -> Callable:
    """`make` (a generator's constructor), keeping what a trace makes from a fixed seed."""

    def made(*args: object, **kwargs: object) -> object:
        value = make(*args, **kwargs)
        graph = graph_being_built()
        if graph is None:
            return value
        seed = args[0] if args else kwargs.get(seed_name)
        seeded = _seeded.get()
        fixed = seed is not None and (not isinstance(seed, _SEEDS) or (seeded is not None and id(seed) in seeded))
        if fixed and seeded is not None:
            seeded[id(value)] = (value, graph)
        elif not fixed and seed_name != "bit_generator":
            _drawn(None, f"{name}() without a seed")  # fresh entropy from the system
        return value

    made.__name__ = getattr(make, "__name__", "make")
    made.__wrapped__ = make
    return made


def module_callables() -> dict[object, Callable]:
    """Every function and generator class of np.random and random (they live as long as the
    process), each mapped to its reporting wrapper: converted_call holds them."""
    found: dict[object, Callable] = {}
    for module, prefix in ((np.random, "np.random"), (random, "random")):
        for attr in dir(module):
            value = getattr(module, attr)
            if attr.startswith("_") or isinstance(value, types.ModuleType) or not callable(value):
                continue
            if value in _MAKERS:
                found[value] = _maker(value, f"{prefix}.{attr}", _MAKERS[value])
            elif isinstance(value, type) or attr == "test":
                continue
            elif isinstance(getattr(value, "__self__", None), RANDOM_OWNERS) or module is np.random:
                found[value] = _reported(value, f"{prefix}.{attr}")
    return found


def drawing_target(f: object) -> Callable | None:
    """The reporting wrapper of a bound method of a random generator, else None."""
    owner = getattr(f, "__self__", None)
    if type(f) in _METHODS and isinstance(owner, RANDOM_OWNERS):
        return _reported(f, f"{type(owner).__name__}.{getattr(f, '__name__', 'method')}", owner)
    return None
