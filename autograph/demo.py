"""`make run`: convert, show, trace and run the examples of a fixture file."""

from __future__ import annotations

import importlib.util
import sys

import autograph as ag


def main(argv: list[str] | None = None) -> int:
    path = (argv or sys.argv[1:] or ["fixtures/collatz.py"])[0]
    spec = importlib.util.spec_from_file_location("example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for function, args in module.EXAMPLES:
        name = function.python_function.__name__
        print(f"# {name}: converted code")
        print(ag.to_code(function))
        concrete = function.get_concrete_function(*args)
        print(concrete)
        print(f"# graph: {len(concrete.graph.as_graph_def().node)} nodes, compiled to:")
        print(concrete.describe())
        print(f"{name}{args} = {function(*args)!r}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
