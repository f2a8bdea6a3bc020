"""What `runtime.backends.export.saved_read.read` returns: loaded functions and restored Variables.

A `LoadedFunction` holds the saved concrete functions of one Function and
calls the one the arguments select, by the Function's rules (tensors by dtype
and shape, Python arguments by value); each `LoadedConcreteFunction` checks a
call against its signature and runs its graph with the backend's runner.
`RestoredVariable`s hold the saved values; every loaded function reads and
writes them.

    >>> loaded = read("saved/f")
    >>> loaded.f(np.float64([1.0, 2.0]))
    >>> print(loaded.f.concrete_functions[0])     # ConcreteFunction f(x) ...
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime.backends.export.loaded_args import (
    conforms,
    describe,
    describe_value,
    fit,
    format_in,
    format_leaves,
    format_out,
    numbers_as_array,
    same_python,
)
from runtime.backends.export.restored import RestoredVariable
from runtime.backends.export.saved_format import TENSOR_HINT, ConstLeaf, TensorLeaf, VariableLeaf
from runtime.ir.graph import Graph
from runtime.ir.structure import TreeDef, flatten, unflatten

__all__ = ["Runner", "LoadedConcreteFunction", "LoadedFunction", "LoadedObject"]

Runner = Callable[[Graph], Callable[..., list]]


class LoadedConcreteFunction:
    """One saved trace: call it with arguments that fit its signature (printed by str())."""

    def __init__(
        self, name: str, signature: inspect.Signature, graph: Graph, in_tree: TreeDef, in_plan: tuple,
        out_tree: TreeDef, out_plan: tuple, runner: Runner,
    ) -> None:
        self.name = name
        self.signature = signature
        self.graph = graph
        self.in_tree = in_tree
        self.in_plan = in_plan
        self.out_tree = out_tree
        self.out_plan = out_plan
        self._runner = runner
        self._run: Callable[..., list] | None = None
        self._ranges = []
        start = 0
        for child in in_tree.children:
            self._ranges.append((start, start + child.num_leaves))
            start += child.num_leaves
        self._kinds = _kinds(in_tree)
        self._shapes = [p.type.shape if p.type.is_fully_defined else None
                        for p in in_plan if isinstance(p, TensorLeaf)]
        positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        # parameters annotated ag.Tensor under follow_type_hints: Python numbers become arrays
        self._hinted = frozenset(i for i, p in enumerate(signature.parameters.values())
                                 if p.annotation == TENSOR_HINT)
        # one leaf per parameter, all positional, no hints: a call with every argument passed
        # positionally maps argument i to leaf i, with no binding and no flattening
        self._flat = not self._hinted and all(p.kind in positional for p in signature.parameters.values()) and all(
            child.kind == "leaf" for child in in_tree.children)

    # -- calling ---------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        inputs = self._inputs(args, kwargs, strict=False)
        if isinstance(inputs, str):
            raise TypeError(f"{self._header()} cannot be called so: {inputs}. Its signature:\n{self}")
        return self.run(inputs)

    def run(self, inputs: list) -> Any:
        """Run on the flat tensor inputs, already checked; returns the saved function's structure."""
        if self._run is None:
            self._run = self._runner(self.graph)
        outputs = self._run(*inputs)
        leaves = []
        for plan in self.out_plan:
            if isinstance(plan, ConstLeaf):
                leaves.append(plan.value)
                continue
            value = outputs[plan]
            if type(value) is np.ndarray and value.ndim == 0:
                value = value[()]
            leaves.append(value)
        return unflatten(self.out_tree, leaves)

    def _values(self, args: tuple, kwargs: dict, strict: bool) -> tuple | str:
        """One value per parameter, or why not. Called as a Function (`strict`), a left-out
        parameter takes its default; called as a ConcreteFunction, a left-out Python (or
        Variable) parameter keeps its traced value, and positional arguments fill the tensor
        parameters in order, as ConcreteFunction calls bind."""
        params = list(self.signature.parameters.values())
        tensors = [p.name for i, p in enumerate(params) if not self._fixed(i)]
        if not strict and len(args) < len(params) and len(args) <= len(tensors):
            bound = dict(zip(tensors, args))
            for name, value in kwargs.items():
                if name in bound:
                    return f"got multiple values for {name!r}"
                bound[name] = value
            if set(bound) - set(self.signature.parameters):
                return f"got an unexpected argument {sorted(set(bound) - set(self.signature.parameters))[0]!r}"
        else:
            try:
                bound = self.signature.bind_partial(*args, **kwargs).arguments
            except TypeError as error:
                return str(error)
        values = []
        for index, param in enumerate(params):
            if param.name in bound:
                values.append(bound[param.name])
            elif strict and param.default is not param.empty:
                values.append(param.default)
            elif self._fixed(index):
                values.append(self._fixed_value(index))
            elif param.default is not param.empty:
                values.append(param.default)
            elif param.kind is param.VAR_POSITIONAL:
                values.append(())
            elif param.kind is param.VAR_KEYWORD:
                values.append({})
            else:
                return f"missing argument {param.name!r}"
        return tuple(values)

    def _inputs(self, args: tuple, kwargs: dict, strict: bool) -> list | str:
        """The graph's inputs for a call, or a sentence saying why the call does not fit.
        `strict` (the dispatch among traces) matches Python numbers only to Python parameters."""
        if self._flat and not kwargs and len(args) == len(self.in_plan):
            leaves: Any = args
        else:
            values = self._values(args, kwargs, strict)
            if isinstance(values, str):
                return values
            if self._hinted:
                values = tuple(numbers_as_array(v) if i in self._hinted else v for i, v in enumerate(values))
            leaves, tree = flatten(values)
            if not conforms(tree, self.in_tree):
                return f"the arguments are structured as {tree}, not {self.in_tree}"
        inputs = []
        for index, (leaf, plan) in enumerate(zip(leaves, self.in_plan)):
            if isinstance(plan, TensorLeaf):
                value = fit(leaf, plan.type, strict)
                if value is None:
                    return f"{self._leaf_name(index)} should be a {describe(plan.type)}, not {describe_value(leaf)}"
                inputs.append(value)
            elif isinstance(plan, VariableLeaf):
                if leaf is not plan.variable:
                    return f"{self._leaf_name(index)} should be the Variable '{plan.variable.name}' saved with it"
            elif not same_python(leaf, plan.value):
                return f"{self._leaf_name(index)} was traced for {plan.value!r}, not {leaf!r}"
        return inputs

    def _loose(self, args: tuple, kwargs: dict) -> bool:
        """Whether a call that fits passes a plain tuple where this trace saved a namedtuple
        (a trace saved for the tuple itself is chosen first)."""
        if "namedtuple" not in self._kinds:
            return False
        values = self._values(args, kwargs, True)
        return not isinstance(values, str) and not conforms(flatten(values)[1], self.in_tree, loose=False)

    def _exact(self, inputs: list) -> bool:
        """Whether every tensor input has exactly the traced shape (the trace a Function reuses first)."""
        for shape, value in zip(self._shapes, inputs):
            if shape is None or (value.shape if type(value) is np.ndarray else np.shape(value)) != shape:
                return False
        return True

    def _fixed(self, index: int) -> bool:
        start, stop = self._ranges[index]
        return not any(isinstance(p, TensorLeaf) for p in self.in_plan[start:stop])

    def _fixed_value(self, index: int) -> Any:
        start, stop = self._ranges[index]
        parts = [p.variable if isinstance(p, VariableLeaf) else p.value for p in self.in_plan[start:stop]]
        return unflatten(self.in_tree.children[index], parts)

    def _leaf_name(self, index: int) -> str:
        for name, (start, stop) in zip(self.signature.parameters, self._ranges):
            if start <= index < stop:
                return f"argument {name!r}" if stop - start == 1 else f"an item of argument {name!r}"
        return f"input {index}"

    # -- reading ---------------------------------------------------------------------------
    def _header(self) -> str:
        parts = []
        for index, name in enumerate(self.signature.parameters):
            start, stop = self._ranges[index]
            plans = self.in_plan[start:stop]
            if plans and all(isinstance(p, ConstLeaf) for p in plans):
                parts.append(f"{name}={self._fixed_value(index)!r}")
            else:
                parts.append(name)
        return f"{self.name}({', '.join(parts)})"

    def signature_summary(self) -> str:
        lines = [self._header(), "  Args:"]
        for index, name in enumerate(self.signature.parameters):
            start, stop = self._ranges[index]
            plans = self.in_plan[start:stop]
            if plans and all(isinstance(p, ConstLeaf) for p in plans):
                continue
            text = format_leaves(self.in_tree.children[index], iter(plans), format_in)
            lines.append(f"    {name}: {text}")
        out_types = [n.type for n in self.graph.outputs]
        returns = format_leaves(self.out_tree, iter(self.out_plan), lambda p: format_out(p, out_types))
        lines += ["  Returns:", f"    {returns}"]
        return "\n".join(lines)

    def __str__(self) -> str:
        return "ConcreteFunction " + self.signature_summary()

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self._header()} (loaded)>"


def _kinds(tree: TreeDef) -> frozenset[str]:
    return frozenset({tree.kind}).union(*(_kinds(child) for child in tree.children))


class LoadedFunction:
    """A saved Function: calling it runs the saved concrete function the arguments select
    (tensors by dtype and shape, Python arguments by value), as the Function chose its traces."""

    def __init__(self, name: str, concrete_functions: Sequence[LoadedConcreteFunction],
                 variables: tuple[RestoredVariable, ...]) -> None:
        self.__name__ = name
        self.concrete_functions = tuple(concrete_functions)
        self._variables = variables  # the graphs hold their Variables weakly: keep them alive

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        concrete, inputs = self._select(args, kwargs)
        return concrete.run(inputs)

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> LoadedConcreteFunction:
        """The saved concrete function these arguments select."""
        return self._select(args, kwargs)[0]

    def _select(self, args: tuple, kwargs: dict) -> tuple[LoadedConcreteFunction, list]:
        """The first saved trace whose shapes are exactly the call's, else the first that fits."""
        fits = []
        misses = []
        loose = []  # fits that pass a tuple for a saved namedtuple: after every other fit
        for concrete in self.concrete_functions:
            inputs = concrete._inputs(args, kwargs, strict=True)
            if isinstance(inputs, str):
                misses.append((concrete, inputs))
            elif concrete._loose(args, kwargs):
                loose.append((concrete, inputs))
            elif concrete._exact(inputs):
                return concrete, inputs
            else:
                fits.append((concrete, inputs))
        if fits:
            return fits[0]
        if loose:
            return next(((c, i) for c, i in loose if c._exact(i)), loose[0])
        reasons = "\n".join(f"  {concrete._header()}: {why}" for concrete, why in misses)
        raise TypeError(
            f"no saved concrete function of {self.__name__} fits these arguments (a loaded function "
            f"cannot trace again):\n{reasons}"
        )

    def pretty_printed_concrete_signatures(self) -> str:
        return "\n\n".join(c.signature_summary() for c in self.concrete_functions)

    def __str__(self) -> str:
        return f"loaded function {self.__name__} with signatures:\n" + self.pretty_printed_concrete_signatures()

    def __repr__(self) -> str:
        return f"<loaded function {self.__name__}: {len(self.concrete_functions)} concrete function(s)>"


class LoadedObject:
    """What `read` returns: the saved functions and Variables as attributes; callable when a
    single Function was saved."""

    _callable: LoadedFunction | None = None
    _variables: tuple[RestoredVariable, ...] = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._callable is None:
            names = [n for n, v in vars(self).items() if isinstance(v, LoadedFunction)]
            raise TypeError(
                f"this loaded object is not callable (an object with functions was saved); call one of "
                f"its functions: {', '.join(names) or 'none'}."
            )
        return self._callable(*args, **kwargs)

    @property
    def variables(self) -> tuple[RestoredVariable, ...]:
        """Every Variable saved, including those with no attribute name."""
        return self._variables

    def __str__(self) -> str:
        return str(self._callable) if self._callable is not None else repr(self)

    def __repr__(self) -> str:
        names = ", ".join(sorted(n for n in vars(self) if not n.startswith("_")))
        return f"<loaded saved graph: {names}>"
