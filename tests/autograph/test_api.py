"""ag.convert / ag.to_code / ag.do_not_convert on functions, methods, lambdas and closures."""

from __future__ import annotations

import functools
import inspect
import linecache
import traceback

import numpy as np
import pytest

import autograph as ag
from runtime.ir.origin import map_location


def make_counter_reader():
    count = 0

    def read(bonus):
        if bonus > 0:
            return count + bonus
        return count

    def bump():
        nonlocal count
        count += 1

    return read, bump


def test_closures_see_later_changes():
    read, bump = make_counter_reader()
    converted = ag.convert(read)
    assert converted(0) == 0
    bump()
    bump()
    assert converted(0) == 2
    assert converted(5) == 7
    assert converted.__closure__[0] is not None
    assert any(cell in read.__closure__ for cell in converted.__closure__)


def defaults(a, b=2, *, c=3):
    """Docstring kept."""
    if a > b:
        return a + c
    return b + c


defaults.custom = "attr"


def test_defaults_kwdefaults_dict_doc_preserved():
    converted = ag.convert(defaults)
    assert converted(5) == 8
    assert converted(1, c=10) == 12
    assert converted.__defaults__ == (2,)
    assert converted.__kwdefaults__ == {"c": 3}
    assert converted.custom == "attr"
    assert converted.__doc__ == "Docstring kept."
    assert converted.__name__ == "defaults"
    assert converted.__qualname__ == defaults.__qualname__


class Model:
    def __init__(self, scale):
        self.scale = scale

    def apply(self, x):
        if x > 0:
            return x * self.scale
        return -x


class Child(Model):
    def apply(self, x):
        base = super().apply(x)
        while base > 100:
            base = base // 2
        return base


def test_bound_and_unbound_methods():
    model = Model(3)
    assert ag.convert(model.apply)(4) == 12
    assert ag.convert(Model.apply)(model, -4) == 4
    assert "self.scale" in ag.to_code(model.apply)


def test_zero_argument_super():
    child = Child(50)
    assert ag.convert(child.apply)(5) == Child.apply(child, 5)


def test_lambda():
    square_or_neg = lambda x: x * x if x > 0 else -x  # noqa: E731
    converted = ag.convert(square_or_neg)
    assert converted(3) == 9
    assert converted(-3) == 3
    assert "ag__.if_exp" in ag.to_code(square_or_neg)


def test_two_lambdas_on_one_line_are_told_apart_by_arguments():
    first, second = (lambda a: a + 1), (lambda b: b if b else 0)  # noqa: E731
    assert ag.convert(first)(1) == 2
    assert ag.convert(second)(0) == 0


def test_ambiguous_lambdas_raise():
    pair = [lambda x: x + 1, lambda x: x + 2]
    try:
        results = [ag.convert(f)(0) for f in pair]
    except ag.errors.ConversionError as error:
        assert "lambda" in str(error)
        assert "test_api.py" in str(error)
    else:
        assert results == [1, 2]  # told apart by their columns


def test_no_source_error_names_the_function():
    with pytest.raises(ag.errors.ConversionError, match="'len'"):
        ag.convert(len)
    namespace: dict = {}
    exec("def made(x):\n    return x\n", namespace)
    with pytest.raises(ag.errors.ConversionError, match="'made'"):
        ag.convert(namespace["made"])


def test_exec_source_registered_in_linecache():
    filename = "<notebook-cell-1>"
    source = "def cell(x):\n    if x > 1:\n        x = x - 1\n    return x\n"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {}
    exec(compile(source, filename, "exec"), namespace)
    assert ag.convert(namespace["cell"])(5) == 4


def test_the_same_function_in_two_cells_names_its_own_cell():
    """Equal code objects (same text, same line, another file) compare equal:
    each must still get a conversion whose errors name its own file."""
    source = "def cell(x):\n    if x > 0:\n        y = 1\n    return y\n"
    for filename in ("<notebook-cell-2>", "<notebook-cell-3>"):
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        namespace: dict = {}
        exec(compile(source, filename, "exec"), namespace)
        with pytest.raises(ag.errors.StagingError, match=f"{filename}:2"):
            ag.function(namespace["cell"])(np.float64(1.0))


def other_decorator(func):
    @functools.wraps(func)
    def wrapper(*args):
        return func(*args)

    return wrapper


@ag.do_not_convert
def left_alone(x):
    return x


def test_do_not_convert():
    assert left_alone(3) == 3
    assert ag.convert(left_alone) is left_alone


def test_our_decorator_stripped_others_kept():
    source = '''
import autograph as ag
from autograph import function as fn

def deco(f):
    return f

@deco
@fn
def g(x):
    return x
'''
    from autograph.pipeline import convert_source

    (converted,) = convert_source(source, "m.py")
    assert "@deco" in converted.code
    assert "@fn" not in converted.code


def test_convert_a_function_object():
    class FakeFunction:
        __autograph_function__ = True

        def __init__(self, f):
            self.python_function = f

    converted = ag.convert(FakeFunction(defaults))
    assert converted(5) == 8
    assert ag.to_code(FakeFunction(defaults)) == ag.to_code(defaults)


def test_converted_function_keeps_name_and_source():
    converted = ag.convert(defaults)
    text = inspect.getsource(converted)
    assert text.strip().startswith("def defaults")
    assert ag.to_code(defaults).startswith("def defaults(a, b=2, *, c=3):")


def failing(x):
    y = x + 1
    if y > 0:
        raise RuntimeError("boom")
    return y


def test_traceback_points_at_generated_file_mapped_to_user_line():
    converted = ag.convert(failing)
    with pytest.raises(RuntimeError) as info:
        converted(1)
    frames = traceback.extract_tb(info.tb)
    generated = [f for f in frames if f.filename.startswith("<autograph: ")]
    assert generated, frames
    last = generated[-1]
    assert "raise RuntimeError" in last.line
    origin = map_location(last.filename, last.lineno)
    user_line = inspect.getsourcelines(failing)[1] + 3
    assert origin.file == __file__
    assert origin.line == user_line
    assert "raise RuntimeError" in origin.text


def recursive_sum(n):
    if n <= 0:
        return 0
    return n + recursive_sum(n - 1)


def test_recursion_and_cache():
    converted = ag.convert(recursive_sum)
    assert converted(10) == 55
    from autograph.converters.context import Options
    from autograph.live_conversion import load_converted

    assert load_converted(recursive_sum, Options()) is load_converted(recursive_sum, Options())


def test_not_recursive_leaves_calls_direct():
    assert "converted_call" in ag.to_code(recursive_sum)
    converted = ag.convert(recursive_sum, recursive=False)
    assert converted(4) == 10


def generator(n):
    yield n


def test_yield_is_a_conversion_error_with_location():
    with pytest.raises(ag.errors.ConversionError) as info:
        ag.convert(generator)
    message = str(info.value)
    assert "yield" in message
    assert f"{__file__}:{inspect.getsourcelines(generator)[1] + 1}" in message
    assert "^" in message
    assert "Fix:" in message


async def coroutine(x):
    return x


def test_async_def_is_a_conversion_error():
    with pytest.raises(ag.errors.ConversionError, match="async"):
        ag.convert(coroutine)


@ag.do_not_convert
def where_am_i():
    from runtime.ir.origin import user_origin

    return user_origin(2)


def calls_where(x):
    if x:
        origin = where_am_i()
    else:
        origin = None
    return origin


def test_user_origin_maps_generated_lines_to_the_user_line():
    origin = ag.convert(calls_where)(True)
    assert origin.file == __file__
    assert origin.line == inspect.getsourcelines(calls_where)[1] + 2
    assert "where_am_i()" in origin.text


def test_to_code_of_a_functools_wraps_wrapper_says_it_shows_the_wrapper():
    def logged(fn):
        @functools.wraps(fn)
        def wrapper(*args):
            return fn(*args)

        return wrapper

    def decrement(x):
        if x > 0:
            x = x - 1
        return x

    code = ag.to_code(ag.function(logged(decrement)))
    assert code.startswith("# This is 'wrapper', the wrapper a decorator made for 'decrement'")
    assert "def wrapper(*args):" in code and "ag__.converted_call(fn, *args)" in code
    assert ag.to_code(logged(decrement).__wrapped__).startswith("def decrement(x):")


class _Callable:
    def __call__(self, x):
        return x


def test_to_code_of_a_class_or_a_callable_object_says_which_method_to_pass():
    with pytest.raises(ag.errors.ConversionError, match=r"'_Callable'.*it is a class.*ag\.to_code\(_Callable\.method_name\)"):
        ag.to_code(_Callable)
    with pytest.raises(ag.errors.ConversionError, match=r"callable object.*ag\.to_code\(_Callable\.__call__\)"):
        ag.to_code(_Callable())
    assert "def __call__(self, x):" in ag.to_code(_Callable.__call__)


def _clip(x, low, high):
    if x < low:
        x = low
    elif x > high:
        x = high
    return x


class _Counter:
    def __init__(self, step):
        self.step = step

    def __call__(self, x):
        n = 0
        while x > 0:
            x = x - self.step
            n = n + 1
        return n

    @staticmethod
    def halve(x):
        while x > 1:
            x = x // 2
        return x

    @classmethod
    def named(cls, x):
        if x > 0:
            return cls.__name__
        return ""


def test_convert_of_a_partial_converts_the_function_inside_and_keeps_its_arguments():
    clip = functools.partial(_clip, low=0.0, high=1.0)
    converted = ag.convert(clip)
    assert isinstance(converted, functools.partial) and converted.keywords == clip.keywords
    assert getattr(converted.func, "__autograph_converted__", False)
    assert [converted(v) for v in (-1.0, 0.5, 2.0)] == [clip(v) for v in (-1.0, 0.5, 2.0)]
    staged = ag.function(lambda x: ag.convert(clip)(x))
    assert staged(np.float64(2.0)) == 1.0 and staged(np.float64(-2.0)) == 0.0
    assert "def _clip(x, low, high):" in ag.to_code(clip)


def test_convert_of_a_callable_object_converts_its_call_with_the_object():
    counter = _Counter(2)
    converted = ag.convert(counter)
    assert converted.__self__ is counter
    assert getattr(converted.__func__, "__autograph_converted__", False)
    assert converted(7) == counter(7) == 4
    staged = ag.function(lambda x: ag.convert(counter)(x))
    assert staged(np.int64(7)) == 4


def test_convert_of_raw_staticmethod_and_classmethod_objects_rewraps_them():
    static, klass = vars(_Counter)["halve"], vars(_Counter)["named"]
    converted = ag.convert(static)
    assert isinstance(converted, staticmethod) and converted.__func__(37) == 1
    assert getattr(converted.__func__, "__autograph_converted__", False)
    converted_class = ag.convert(klass)
    assert isinstance(converted_class, classmethod) and converted_class.__func__(_Counter, 1) == "_Counter"
    assert "def halve(x):" in ag.to_code(static)


def test_an_lru_cache_wrapper_is_refused_with_what_to_pass_never_as_source_missing():
    cached = functools.lru_cache(maxsize=None)(_clip)
    for entry in (ag.convert, ag.to_code):
        with pytest.raises(ag.errors.ConversionError) as info:
            entry(cached)
        message = str(info.value)
        assert "lru_cache" in message and "_clip.__wrapped__" in message
        assert "source code is not available" not in message
    with pytest.raises(ag.errors.ConversionError, match=r"ag\.function\(_clip\.__wrapped__\)"):
        ag.function(cached)(np.float64(2.0), 0.0, 1.0)
    assert ag.convert(cached.__wrapped__)(2.0, 0.0, 1.0) == 1.0


def test_other_wrappers_and_classes_say_what_they_are():
    class Wrapper:
        def __init__(self, func):
            self.__wrapped__ = func

    with pytest.raises(ag.errors.ConversionError, match=r"Wrapper object wrapping .*__wrapped__") as info:
        ag.convert(Wrapper(_clip))
    assert "source code is not available" not in str(info.value)
    with pytest.raises(ag.errors.ConversionError, match=r"it is a class.*ag\.convert\(_Counter\.method_name\)"):
        ag.convert(_Counter)
