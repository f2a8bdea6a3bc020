"""A one-line progress display on a terminal's stderr for `autograph convert` over many files.

It draws only when stderr is a terminal (so logs and pipes stay clean) and
erases itself before anything else is printed.
"""

from __future__ import annotations

from typing import IO

__all__ = ["Progress"]

_ERASE = "\r\x1b[K"


class Progress:
    """`[3/40] path/to/file.py` redrawn in place; `clear()` before other output."""

    def __init__(self, stream: IO[str], total: int) -> None:
        self._stream = stream
        self._total = total
        isatty = getattr(stream, "isatty", None)
        self.enabled = total > 1 and bool(isatty and isatty())
        self._shown = False

    def step(self, index: int, label: str) -> None:
        if not self.enabled:
            return
        self._stream.write(f"{_ERASE}[{index}/{self._total}] {label}")
        self._stream.flush()
        self._shown = True

    def clear(self) -> None:
        if self._shown:
            self._stream.write(_ERASE)
            self._stream.flush()
            self._shown = False
