"""ConcreteFunction: one trace — a compiled graph plus how to call it.

A trace fixes the structure of the arguments, the TensorSpec of every tensor
input and the value of every Python argument. Calling it checks a call
against that: a tensor of the wrong dtype or shape raises
InvalidArgumentError, another structure or another Python value a TypeError
(Python arguments may be left out: they keep their traced value).

    >>> print(double.get_concrete_function(np.int64(1)))
    ConcreteFunction double(a)
      Args:
        a: int64 Tensor, shape=()
      Returns:
        int64 Tensor, shape=()
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from autograph.tracing.captured import check as check_captured
from autograph.tracing.fast_call import build_fast_call, general_call, hot_class, never
from autograph.tracing.input_signature import value_for_spec
from autograph.tracing.keys import Identity, is_tensor_like, is_variable, key_value, leaf_key
from autograph.tracing.signature import Signature
from autograph.tracing.spec import TensorSpec, dtype_label
from runtime.backends import get_backend
from runtime.backends.numpy.compiler import may_be_scalar, output_value
from runtime.backends.numpy.run_errors import note_user_line
from runtime.ir.errors import FailedPreconditionError, InvalidArgumentError
from runtime.ir.graph import Graph
from runtime.ir.structure import LEAF, TreeDef, flatten, unflatten
from runtime.tracing.eager_tape import active_recorder
from runtime.tracing.tensor import Tensor

__all__ = ["ConcreteFunction", "Static"]


class Static:
    """An output leaf known at trace time (None, or an object that is no tensor)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class ConcreteFunction:
    """A traced, compiled graph with the signature it was traced for."""

    watches: list = []  # noqa: RUF012 - the captured values a Function's trace read (see captured)

    def __init__(
        self,
        name: str,
        signature: Signature,
        graph: Graph,
        in_tree: TreeDef,
        in_plan: tuple,
        out_tree: TreeDef,
        out_plan: tuple,
        backend: str | None = None,
    ) -> None:
        self.name = name
        self.signature = signature
        self.graph = graph
        self.in_tree = in_tree
        self.in_plan = in_plan  # per input leaf: a TensorSpec (graph input) or a key part
        self.input_positions = tuple(i for i, p in enumerate(in_plan) if isinstance(p, TensorSpec))
        self.out_tree = out_tree
        self.out_plan = out_plan  # per output leaf: index into the graph outputs, or Static
        self._compiled = get_backend(backend).compile(graph)  # the backend's Executable
        self.backend: str = self._compiled.backend
        self._single = out_tree == LEAF and isinstance(out_plan[0], int)
        self._ranges = self._compute_ranges()
        self._input_names: list[str] | None = None  # see _bind
        self._may_be_scalar = frozenset(
            i for i, out in enumerate(graph.outputs) if may_be_scalar(out.type)
        )
        self._fast: Callable[..., Any] | None = None  # built at the first call that hits
        # every tensor input has a fixed shape: the fast call's tests are the cache key
        self.exact = all(
            p.shape is not None and None not in p.shape for p in in_plan if isinstance(p, TensorSpec)
        )

    @property
    def fast(self) -> Callable[..., Any]:
        """The generated function that checks plain arguments and runs this trace (see fast_call)."""
        if self._fast is None:
            self._fast = build_fast_call(self)  # NumPy: the generated code inlined; others: called
        return self._fast

    def lowered_text(self, dialect: str = "stablehlo") -> str:
        """What the backend compiled: for "jax", StableHLO text or (dialect="jaxpr") the jaxpr;
        for "numpy", the generated Python source."""
        if self.backend == "numpy":
            return self._compiled.source
        return self._compiled.lowered_text(dialect)

    # -- running --------------------------------------------------------
    def run(self, inputs: list) -> Any:
        """Run the graph on flat tensor inputs already known to fit."""
        try:
            outputs = self._compiled(*inputs)
        except Exception as error:
            note_user_line(error)
            raise
        if self._single:
            value = outputs[0]
            if type(value) is np.ndarray and value.ndim == 0:
                return value[()]
            return value
        leaves = []
        for plan in self.out_plan:
            if isinstance(plan, Static):
                leaves.append(plan.value)
            else:
                value = outputs[plan]
                if type(value) is np.ndarray and value.ndim == 0:
                    value = value[()]
                leaves.append(value)
        return unflatten(self.out_tree, leaves)

    def pack(self, outputs: list) -> Any:
        """The returned structure from the graph function's raw outputs (0-d as NumPy scalars)."""
        leaves = []
        for plan in self.out_plan:
            if isinstance(plan, Static):
                leaves.append(plan.value)
                continue
            value = outputs[plan]
            if plan in self._may_be_scalar:
                value = output_value(value)
            elif type(value) is np.ndarray and value.ndim == 0:
                value = value[()]
            leaves.append(value)
        return unflatten(self.out_tree, leaves)

    # As for a Function: the first call builds the fast call and makes it the
    # class's `__call__` (`hot_class`); until then, or without one, calls are general.
    __call__ = general_call

    def _general(self, args: tuple, kwargs: dict) -> Any:
        """A call the fast call does not answer: bind, check and convert the arguments, then run."""
        if type(self) is ConcreteFunction and self.fast is not never:
            self.__class__ = hot_class(ConcreteFunction, self.fast, self)  # the first call
            return self(*args, **kwargs)
        if self.watches:  # a captured value changed: warn once (see captured)
            check_captured(self.name, self.watches)
        values = self._bind(args, kwargs)
        leaves, tree = flatten(values)
        if tree != self.in_tree:
            raise TypeError(
                f"ConcreteFunction {self._header(False)} was traced for arguments structured as "
                f"{_strip(self.in_tree)} but was called with {_strip(tree)}; pass the same "
                f"nesting of lists, tuples and dicts, or call the Function to trace again."
            )
        inputs = []
        for index, (leaf, plan) in enumerate(zip(leaves, self.in_plan)):
            if isinstance(plan, TensorSpec):
                inputs.append(self._check_input(index, leaf, plan))
            elif leaf_key(leaf) != plan:
                raise TypeError(
                    f"ConcreteFunction {self._header(False)} was constructed with "
                    f"{_describe_part(plan)} in {self._leaf_name(index)}, but was called with "
                    f"{_describe_part(leaf_key(leaf))}."
                )
        recorder = active_recorder()
        if recorder is not None:  # an eager GradientTape: it records the graph's ops as they run
            outputs = recorder.call_graph(self.graph, inputs)
            leaves = [plan.value if isinstance(plan, Static) else outputs[plan] for plan in self.out_plan]
            return unflatten(self.out_tree, leaves)
        return self.run(inputs)

    def _check_input(self, index: int, leaf: Any, spec: TensorSpec) -> Any:
        value = value_for_spec(leaf, spec) if isinstance(leaf, np.ndarray) or not is_tensor_like(leaf) else leaf
        if value is None:
            value = np.asarray(leaf)
        if not spec.is_compatible_with(value):
            got = TensorSpec.from_value(value)
            raise InvalidArgumentError(
                f"cannot compute {self.name} as input #{self.input_positions.index(index)} "
                f"({self._leaf_name(index)}) was expected to be a {_describe_spec(spec)} but is a "
                f"{_describe_spec(got)}"
            )
        return value

    def _bind(self, args: tuple, kwargs: dict[str, Any]) -> tuple:
        """Canonical values; parameters left out keep their traced Python value."""
        if not kwargs and len(args) == len(self.signature.names) and self.signature.all_positional:
            return args
        params = self.signature.params
        if self._input_names is None:
            self._input_names = [p.name for i, p in enumerate(params) if not self._is_python_param(i)]
        inputs = self._input_names
        if len(args) < len(params) and len(args) <= len(inputs):
            # Python arguments are bound: positional arguments go to the inputs, in order.
            bound = dict(zip(inputs, args))
            for name, value in kwargs.items():
                if name in bound:
                    raise TypeError(f"ConcreteFunction {self._header(False)} got multiple values for {name!r}")
                bound[name] = value
        else:
            bound = self.signature.signature.bind_partial(*args, **kwargs).arguments
        values = []
        for i, param in enumerate(self.signature.params):
            if param.name in bound:
                values.append(bound[param.name])
            elif self._is_static_param(i):
                values.append(self._static_value(i))
            elif param.default is not param.empty:
                values.append(param.default)
            elif param.kind is param.VAR_POSITIONAL:
                values.append(())
            elif param.kind is param.VAR_KEYWORD:
                values.append({})
            else:
                raise TypeError(f"ConcreteFunction {self._header(False)} missing argument {param.name!r}")
        return tuple(values)

    # -- reading --------------------------------------------------------
    def _param_ranges(self) -> list[tuple[int, int]]:
        return self._ranges

    def _compute_ranges(self) -> list[tuple[int, int]]:
        ranges, start = [], 0
        for child in self.in_tree.children:
            ranges.append((start, start + child.num_leaves))
            start += child.num_leaves
        return ranges

    def _is_static_param(self, i: int) -> bool:
        start, stop = self._param_ranges()[i]
        return not any(isinstance(p, TensorSpec) for p in self.in_plan[start:stop])

    def _is_python_param(self, i: int) -> bool:
        """A parameter bound to its traced Python value (no tensor, no Variable in it)."""
        if not self._is_static_param(i):
            return False
        start, stop = self._param_ranges()[i]
        return not any(type(p) is Identity and is_variable(p.ref()) for p in self.in_plan[start:stop])

    def _static_value(self, i: int) -> Any:
        start, stop = self._param_ranges()[i]
        return unflatten(self.in_tree.children[i], [_resolve(p) for p in self.in_plan[start:stop]])

    def _leaf_name(self, index: int) -> str:
        for name, (start, stop) in zip(self.signature.names, self._param_ranges()):
            if start <= index < stop:
                return name
        return f"input {index}"

    def _header(self, with_values: bool = True) -> str:
        parts = []
        for i, name in enumerate(self.signature.names):
            if with_values and self._is_static_param(i):
                start, stop = self._param_ranges()[i]
                if all(type(p) is tuple for p in self.in_plan[start:stop]):
                    parts.append(f"{name}={self._static_value(i)!r}")
                    continue
            parts.append(name)
        return f"{self.name}({', '.join(parts)})"

    def signature_summary(self) -> str:
        """`name(args)` with the Args and Returns sections, as the guide prints them."""
        lines = [self._header(), "  Args:"]
        for i, name in enumerate(self.signature.names):
            if not self._is_python_param(i):
                start, stop = self._param_ranges()[i]
                text = _format(self.in_tree.children[i], iter(self.in_plan[start:stop]), _format_in)
                lines.append(f"    {name}: {text}")
        out_types = [n.type for n in self.graph.outputs]
        returns = _format(self.out_tree, iter(self.out_plan), lambda p: _format_out(p, out_types))
        lines += ["  Returns:", f"    {returns}"]
        return "\n".join(lines)

    @property
    def structured_input_signature(self) -> tuple[tuple, dict]:
        """The arguments with every tensor input as its TensorSpec (named after the input)."""
        inputs = iter(self.graph.inputs)
        leaves = [
            TensorSpec.from_type(p.type, next(inputs).name) if isinstance(p, TensorSpec) else _resolve(p)
            for p in self.in_plan
        ]
        return self.signature.to_call(unflatten(self.in_tree, leaves))

    @property
    def structured_outputs(self) -> Any:
        """The returned structure with a graph Tensor for each output (static values as is)."""
        outputs = self.graph.outputs
        leaves = [
            p.value if isinstance(p, Static) else Tensor(outputs[p], self.graph) for p in self.out_plan
        ]
        return unflatten(self.out_tree, leaves)

    def describe(self) -> str:
        """What the backend runs for this trace: the generated source (NumPy), the lowered program."""
        return self._compiled.describe()

    def __str__(self) -> str:
        return "ConcreteFunction " + self.signature_summary()

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self._header()}>"


def _resolve(part: Any) -> Any:
    if type(part) is Identity:
        obj = part.ref()
        if obj is None:
            raise FailedPreconditionError(
                "an object this trace was made for has been garbage collected; keep it alive "
                "while the function is in use, or trace again with a live object"
            )
        return obj
    return key_value(part[1])


def _describe_part(part: Any) -> str:
    if type(part) is Identity:
        return repr(part)
    if len(part) == 2 and isinstance(part[0], np.dtype):
        return _describe_spec(TensorSpec(part[1], part[0]))
    return f"{part[0].__name__} value {part[1]!r}"


def _describe_spec(spec: TensorSpec) -> str:
    return f"{dtype_label(spec.dtype)} tensor of shape {spec.type.shape_str()}"


def _format_in(plan: Any) -> str:
    if isinstance(plan, TensorSpec):
        return f"{dtype_label(plan.dtype)} Tensor, shape={plan.type.shape_str()}"
    if type(plan) is Identity and is_variable(plan.ref()):
        variable = plan.ref()
        return f"{dtype_label(variable.dtype)} Variable, shape={TensorSpec(variable.shape).type.shape_str()}"
    return repr(_resolve(plan)) if type(plan) is tuple else repr(plan)


def _format_out(plan: Any, out_types: list) -> str:
    if isinstance(plan, Static):
        return repr(plan.value)
    out_type = out_types[plan]
    return f"{dtype_label(out_type.dtype)} Tensor, shape={out_type.shape_str()}"


def _format(tree: TreeDef, leaves, fmt) -> str:
    """A structure printed with each leaf described by `fmt`."""
    if tree.kind == "leaf":
        return fmt(next(leaves))
    items = [_format(child, leaves, fmt) for child in tree.children]
    if tree.kind == "list":
        return "[" + ", ".join(items) + "]"
    if tree.kind == "tuple":
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if tree.kind == "dict":
        return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(tree.data, items)) + "}"
    cls = tree.data if tree.kind == "namedtuple" else tree.data[0]
    return f"{cls.__name__}(" + ", ".join(items) + ")"


def _strip(tree: TreeDef) -> str:
    """The structure of the arguments without the outer tuple of parameters."""
    return ", ".join(str(child) for child in tree.children) if tree.kind == "tuple" else str(tree)
