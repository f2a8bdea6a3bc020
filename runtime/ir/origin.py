"""Where in the user's code a node, an error or a generated line comes from.

An `Origin` travels with every graph node. Converted code lives in generated
files; the converter registers a line map for each one here, so a frame in
generated code is reported at the user's own file and line. A generated
file's line map and linecache entry live as long as the code that runs it
(`tie_to_code`): a program that makes functions over and over keeps only
those of the functions, frames and tracebacks still alive.
"""

from __future__ import annotations

import contextlib
import contextvars
import linecache
import os
import sys
import sysconfig
import types
import weakref
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy

__all__ = [
    "Origin", "register_source_map", "tie_to_code", "user_origin", "map_location", "graph_origin",
    "outermost_converted_frame", "is_internal_file", "is_standard_library", "user_frame_origin",
    "pinned_origin",
]


@dataclass(frozen=True, slots=True)
class Origin:
    """A place in the user's source: file, 1-based line, the line's text, function."""

    file: str
    line: int
    text: str = ""
    function: str = ""
    col: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"

    def excerpt(self) -> str:
        """`file:line` followed by the source line and a caret under the column."""
        text = self.text.rstrip()
        stripped = text.lstrip()
        caret_col = max(0, self.col - (len(text) - len(stripped)))
        return f"  {self}    {stripped}\n  {' ' * (len(str(self)) + 4 + caret_col)}^"


_PACKAGE_DIRS = tuple(  # this file is runtime/ir/origin.py: the packages are beside runtime/
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep + name + os.sep
    for name in ("runtime", "autograph")
)
# NumPy's own frames (its dispatchers call back into Tensor methods) are never the user's line.
_LIBRARY_DIRS = (os.path.dirname(os.path.abspath(numpy.__file__)) + os.sep,)
_NOT_USER_DIRS = _PACKAGE_DIRS + _LIBRARY_DIRS
# The standard library calling into us (copy.deepcopy making a Variable) is not the user's line
# either; packages installed beside it (site-packages may lie inside it) are someone's code.
_STDLIB = sysconfig.get_path("stdlib") + os.sep
_INSTALLED = tuple({sysconfig.get_path("purelib") + os.sep, sysconfig.get_path("platlib") + os.sep})
# generated file name -> {generated line: Origin}
_SOURCE_MAPS: dict[str, Mapping[int, Origin]] = {}
# the generated files that hold compiled graphs (the rest hold converted code)
_GRAPH_FILES: set[str] = set()
# generated file name -> how many live code objects run it
_LIVE_CODE: dict[str, int] = {}


class _Tie(weakref.ref):
    """A weak reference to a code object, naming the generated file it runs."""

    __slots__ = ("filename",)


# id -> tie, to keep each alive until its code dies (code objects that differ only in their
# file compare equal, and so would their live weak references: they cannot be set members)
_TIES: dict[int, _Tie] = {}


def register_source_map(filename: str, line_map: Mapping[int, Origin], graph: bool = False) -> None:
    """Tell error reporting where each line of a generated file came from."""
    _SOURCE_MAPS[filename] = line_map
    if graph:
        _GRAPH_FILES.add(filename)


def tie_to_code(filename: str, code: types.CodeType) -> None:
    """Keep `filename`'s linecache entry and line map while `code` (or another code tied to it) lives.

    Every function, frame and traceback that could show a line of the file
    holds its code object, so once the last tied code is gone nothing can ask
    for the file again and its entries go: a program that converts or traces
    fresh functions over and over no longer grows by a file each time.
    """
    tie = _Tie(code, _release)
    tie.filename = filename
    _TIES[id(tie)] = tie
    _LIVE_CODE[filename] = _LIVE_CODE.get(filename, 0) + 1


def _release(tie: _Tie) -> None:
    """A code object running a generated file is gone: forget the file with the last one.

    Runs when the code dies, in whichever thread freed it: no locks, and each
    step one dict or set operation.
    """
    del _TIES[id(tie)]
    filename = tie.filename
    left = _LIVE_CODE.pop(filename, 1) - 1
    if left > 0:
        _LIVE_CODE[filename] = left
        return
    _SOURCE_MAPS.pop(filename, None)
    _GRAPH_FILES.discard(filename)
    linecache.cache.pop(filename, None)


def graph_origin(filename: str, line: int) -> Origin | None:
    """The origin of the node on `line` of a compiled graph's file, or None."""
    if filename not in _GRAPH_FILES:
        return None
    line_map = _SOURCE_MAPS.get(filename)
    return None if line_map is None else line_map.get(line)


def map_location(filename: str, line: int) -> Origin | None:
    """The user's origin of a line: mapped if generated, else the line itself."""
    line_map = _SOURCE_MAPS.get(filename)
    if line_map is not None:
        try:  # what Mapping.get does, without its frame: every staged op asks for its origin
            return line_map[line]
        except KeyError:
            return None
    if filename.startswith(_PACKAGE_DIRS):
        return None
    text = linecache.getline(filename, line)
    return Origin(filename, line, text)


def outermost_converted_frame(frame: types.FrameType | None) -> types.FrameType | None:
    """The one frame of generated code in `frame` and its callers, up to the first of the
    user's own; None if there is none or more than one. Cheap: operators ask it of every
    exception that passes them (see runtime.ir.user_frames)."""
    found = None
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename in _SOURCE_MAPS:
            if found is not None:
                return None
            found = frame
        elif not filename.startswith(_PACKAGE_DIRS):  # the user's own code
            return found
        frame = frame.f_back
    return found


def is_internal_file(filename: str) -> bool:
    return filename.startswith(_PACKAGE_DIRS) and filename not in _SOURCE_MAPS


def is_standard_library(filename: str) -> bool:
    return filename.startswith(_STDLIB) and not filename.startswith(_INSTALLED)


def user_origin(depth: int = 1) -> Origin | None:
    """The innermost caller frame that is user code (generated code maps back)."""
    found = user_frame_origin(depth + 1)
    return None if found is None else found[1]


def user_frame_origin(depth: int = 1) -> tuple[types.FrameType, Origin] | None:
    """`user_origin`, with the frame it was found in (a warning goes into its module's registry)."""
    return _user_frame_from(sys._getframe(depth))


# id(anchor frame) -> (that frame, the user's frame, origin): see `pinned_origin`
_PINNED: contextvars.ContextVar[dict | None] = contextvars.ContextVar("pinned_origins", default=None)


@contextlib.contextmanager
def pinned_origin(origin: Origin | None, anchor: types.FrameType) -> Iterator[None]:
    """While it runs, the user's code that called the operator running in `anchor` stands at `origin`.

    One call of converted code can run several statements of the user's: a
    flat elif chain (runtime.operators.if_chain) stages the cond of each arm
    from the line of the chain's first `if`, and pins the line of the arm's
    `elif` while it does. Frames inside (the branches) still count at their
    own lines. A walk for the user's frame stops at the anchor, so arms staged
    one inside another's false branch do not each walk the whole stack.
    """
    found = _user_frame_from(anchor.f_back) if origin is not None else None
    if found is None:
        yield
        return
    pins = dict(_PINNED.get() or ())
    pins[id(anchor)] = (anchor, found[0], origin)
    token = _PINNED.set(pins)
    try:
        yield
    finally:
        _PINNED.reset(token)


def _user_frame_from(frame: types.FrameType | None) -> tuple[types.FrameType, Origin] | None:
    """The first user frame from `frame` on, and its origin (or a pinned one's)."""
    pins = _PINNED.get()
    while frame is not None:
        if pins:
            pin = pins.get(id(frame))
            if pin is not None and pin[0] is frame:
                return pin[1], pin[2]
        filename = frame.f_code.co_filename
        user = not filename.startswith(_NOT_USER_DIRS) and not is_standard_library(filename)
        if user or filename in _SOURCE_MAPS:
            origin = map_location(filename, frame.f_lineno)
            if origin is not None:
                return frame, origin
        frame = frame.f_back
    return None
