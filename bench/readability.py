"""What `ag.to_code` shows for the conversion corpus: lines against the source's, and bookkeeping.

`python -m bench.readability [--each]`: over bench/corpus/scalar_code.py,
array_code.py and solver_code.py (the 49 functions of `load_numerics()`),
the lines of `ag.to_code(f)` against those of `inspect.getsource(f)`, the
generated helper defs, and the calls a person would not write
(`value_or_undefined`, `Undefined(`). `--each` lists every function, the
most expanded first. The target: at most 1.8 times the source's lines.
"""

from __future__ import annotations

import argparse
import inspect
import re
from dataclasses import dataclass

__all__ = ["Readability", "measure", "main", "LINES_TARGET"]

LINES_TARGET = 1.8
_DEF = re.compile(r"^\s+def ", re.M)


@dataclass(frozen=True)
class Readability:
    """Totals over the corpus, and (source lines, to_code lines) per function."""

    source_lines: int
    code_lines: int
    helpers: int
    value_or_undefined: int  # of plain names and composites (`simplex[2]`, `self.x`) alike
    undefined: int
    each: dict[str, tuple[int, int]]

    @property
    def ratio(self) -> float:
        return self.code_lines / self.source_lines


def measure() -> Readability:
    import autograph as ag
    from bench.corpus import load_numerics

    module = load_numerics()
    totals = [0, 0, 0, 0, 0]
    each: dict[str, tuple[int, int]] = {}
    for name in sorted(module.CASES):
        func = getattr(module, name)
        source = inspect.getsource(func)
        code = str(ag.to_code(func))
        counts = (len(source.splitlines()), len(code.splitlines()), len(_DEF.findall(code)) - len(_DEF.findall(source)),
                  code.count("value_or_undefined("), code.count("Undefined("))
        totals = [t + c for t, c in zip(totals, counts)]
        each[name] = counts[:2]
    return Readability(*totals, each=each)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.readability", description=__doc__.splitlines()[0])
    parser.add_argument("--each", action="store_true", help="one line per function")
    args = parser.parse_args(argv)
    found = measure()
    print(f"{len(found.each)} functions: {found.source_lines} source lines -> {found.code_lines} to_code lines "
          f"({found.ratio:.2f}x, target <= {LINES_TARGET}x); {found.helpers} generated helpers; "
          f"value_or_undefined: {found.value_or_undefined}; Undefined(: {found.undefined}")
    if args.each:
        for name, (source, code) in sorted(found.each.items(), key=lambda kv: -kv[1][1] / kv[1][0]):
            print(f"  {name:24s} {source:4d} -> {code:4d}  {code / source:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
