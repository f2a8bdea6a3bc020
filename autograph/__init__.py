"""autograph: ordinary Python control flow over arrays, staged into fast graphs.

    import autograph as ag

    @ag.function
    def collatz(n):
        steps = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

Everything a user needs is importable from this module (see API.md).
"""

from autograph import errors, onnx, random, saved_model
from autograph.api import convert, do_not_convert, to_code
from autograph.explain import Explanation, explain
from autograph.gradients import GradientTape, grad, value_and_grad
from autograph.tracing.captured import CapturedValueWarning
from autograph.tracing.function import function, functions_run_eagerly, run_functions_eagerly
from autograph.tracing.retracing import RetracingWarning
from autograph.tracing.spec import TensorSpec
from runtime.operators.directives import set_loop_options
from runtime.operators.ranges import range_ as range  # noqa: A001 - ag.range is the staged range
from runtime.tracing.constant import constant
from runtime.tracing.control_flow import cond, while_loop
from runtime.tracing.effects import print_ as print  # noqa: A001 - ag.print is the staged print
from runtime.tracing.effects import py_function
from runtime.tracing.fallbacks import TracingSideEffectWarning
from runtime.tracing.functional import map_fn, scan, switch_case
from runtime.tracing.numpy_functions import SUPPORTED_NUMPY
from runtime.tracing.tensor import Tensor
from runtime.tracing.tensor_array import TensorArray
from runtime.tracing.unrolling import UnrollWarning
from runtime.tracing.variables import Variable

__all__ = [
    "errors",
    "saved_model",
    "onnx",
    "random",
    "convert",
    "do_not_convert",
    "to_code",
    "explain",
    "Explanation",
    "function",
    "functions_run_eagerly",
    "run_functions_eagerly",
    "TensorSpec",
    "RetracingWarning",
    "CapturedValueWarning",
    "TracingSideEffectWarning",
    "UnrollWarning",
    "constant",
    "cond",
    "while_loop",
    "scan",
    "map_fn",
    "switch_case",
    "print",
    "py_function",
    "SUPPORTED_NUMPY",
    "set_loop_options",
    "range",
    "Tensor",
    "TensorArray",
    "Variable",
    "GradientTape",
    "grad",
    "value_and_grad",
]
