"""Generated files (converted code, compiled graphs, fast calls) are forgotten with their code.

Their linecache entries and source maps stay while a function, frame or
traceback running their code lives, and go once the garbage collector has
freed the last one: a program that converts or traces fresh functions over
and over does not grow by a file each time.
"""

import gc
import inspect
import linecache
import traceback

import numpy as np

import autograph as ag
from runtime.ir import origin

_COUNT = iter(range(10**6))


def _fresh(source: str, name: str):
    """A function with a code object of its own, from a file only linecache knows."""
    filename = f"<lifetime-cell-{next(_COUNT)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name], filename


def _known(filename: str) -> bool:
    return filename in linecache.cache or filename in origin._SOURCE_MAPS


def test_converted_file_lives_with_the_converted_function():
    user, cell = _fresh("def scale(x):\n    if x > 1:\n        x = x * 2\n    return x\n", "scale")
    converted = ag.convert(user)
    generated = converted.__code__.co_filename
    del linecache.cache[cell], user  # the user's code may go first: the copy keeps its file
    gc.collect()
    assert _known(generated)
    assert "def scale(x):" in inspect.getsource(converted)
    assert converted(3) == 6
    del converted
    gc.collect()
    assert not _known(generated)


def test_to_code_is_unchanged_while_the_function_lives():
    user, _ = _fresh("def twice(x):\n    return x + x\n", "twice")
    first = ag.to_code(user)
    gc.collect()
    assert ag.to_code(user) == first


def test_a_kept_traceback_still_shows_the_generated_and_user_lines():
    source = "def fails(x):\n    if x > 0:\n        x = x / 0\n    return x\n"
    user, cell = _fresh(source, "fails")
    converted = ag.convert(user)
    generated = converted.__code__.co_filename
    try:
        converted(1)
    except ZeroDivisionError as error:
        kept = error
    before = "".join(traceback.format_exception(kept))
    del converted, user
    gc.collect()
    assert _known(generated)
    assert "".join(traceback.format_exception(kept)) == before
    assert "x = x / 0" in before
    frame = next(f for f, _ in traceback.walk_tb(kept.__traceback__) if f.f_code.co_filename == generated)
    assert origin.map_location(generated, frame.f_lineno).file == cell
    del kept, frame
    gc.collect()
    assert not _known(generated)


def test_graph_and_fast_call_files_live_with_their_function():
    user, _ = _fresh("def add_one(x):\n    return x + 1\n", "add_one")
    function = ag.function(user)
    x = np.arange(3.0)
    for _ in range(3):  # the later calls build the fast call
        np.testing.assert_array_equal(function(x), x + 1)
    before = set(origin._SOURCE_MAPS)
    files = {f for f in origin._SOURCE_MAPS if "add_one" in f and f.startswith("autograph_")}
    assert files and files <= before
    del function
    gc.collect()
    assert not any(_known(f) for f in files)


def test_a_graph_error_names_the_user_line_after_the_function_is_gone():
    source = "def pick(x, i):\n    return x[i]\n"
    user, cell = _fresh(source, "pick")
    function = ag.function(user)
    try:
        function(np.arange(3.0), np.int64(7))
    except Exception as error:  # noqa: BLE001 - whichever NumPy raises
        kept = error
    del function, user
    gc.collect()
    assert f"{cell}:2" in "".join(traceback.format_exception(kept))
