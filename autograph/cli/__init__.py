"""The `autograph` command: `autograph convert`, `graph`, `export` and `explain`.

Exit status: 0 on success, 1 when a function failed to convert (or a file
could not be read, decoded, parsed, traced or drawn), 2 on usage errors.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import IO, BinaryIO

from autograph.cli.convert import ConvertOptions, run_convert
from autograph.cli.explain import add_explain, run_explain
from autograph.cli.export import FORMATS, ExportOptions, run_export
from autograph.cli.graph import GraphOptions, UsageError, add_target_arguments, run_graph

__all__ = ["main", "build_parser"]

_CONVERT_EXAMPLES = """\
examples:
  autograph convert model.py                 print the converted @ag.function functions
  autograph convert model.py --diff          show what conversion changes, as a diff
  autograph convert model.py --all -o out.py write an importable, converted module
  autograph convert src/*.py --check         only report what cannot be converted
  autograph convert model.py --function step --stats
  cat model.py | autograph convert -         read the source from stdin

convert is static: it reads the files and never imports or runs them.
Exit status: 0 success, 1 some function failed to convert, 2 usage error.
--all keeps generators and coroutines as written, with a note (converted code
calls them as they are); named with --function or decorated, they fail.
The module --output writes imports and runs like the original: converted
functions replace the originals, @ag.function decorators gain autograph=False
and functions converted without one are marked @ag.do_not_convert, so nothing
is converted twice; ag__ comes from autograph.namespace.
Printing and --output read a file one top-level statement at a time, so
memory stays that of the largest function (files up to 256 MiB); --diff and
--stats hold the whole file's tree (files up to 32 MiB). --output is written
to a temporary file and renamed over the target once complete.
"""

_GRAPH_EXAMPLES = """\
examples:
  autograph graph model.py:step --arg 'float32[None,3]' --arg 'int64[]'
  autograph graph model.py:step --arg 'float32[8]' --arg 'limit=float32[]' -o step.svg
  autograph graph mypackage.layers:dense.call --arg 'float32[?]' -o call.dot --optimized

graph IMPORTS the module (its top-level code runs) and traces the function
for the given inputs; a method is named through an instance the module makes
(layers:dense.call), its self. Specs: dtype[dims] with None or ? for unknown
dims (float32[None,3], int64[] for a scalar, a bare float32 for unknown rank);
any other --arg is a Python literal passed as a constant (3, True, 'mean').
Without --output the DOT text is printed. .svg and .png need Graphviz's
'dot' program; .dot needs nothing.
"""


_EXPORT_EXAMPLES = """\
examples:
  autograph export model.py:step --arg 'float32[None]' --format saved --output saved/step
  autograph export model.py:step --arg 'float32[8]' --arg 'n=int64[]' --format onnx --output step.onnx

export IMPORTS the module (its top-level code runs), traces the function for
the given inputs (specs as for `autograph graph`) and writes the trace: as a
saved graph directory that ag.saved_model.load reads without the source
(--format saved, the default), or as an ONNX model (--format onnx, needs
pip install 'autograph[onnx]'). See docs/saving.md.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="autograph",
        description="Convert Python control flow into staged graphs, and draw them.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_convert(commands)
    _add_graph(commands)
    _add_export(commands)
    add_explain(commands)
    return parser


def _add_convert(commands: argparse._SubParsersAction) -> None:
    convert = commands.add_parser(
        "convert", help="print converted code (static: never imports the files)",
        description="Convert functions of Python files without importing or running them.",
        epilog=_CONVERT_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    convert.add_argument("files", nargs="+", metavar="FILE", help="Python file, or - for stdin")
    convert.add_argument(
        "--function", "-f", action="append", default=[], metavar="NAME", dest="functions",
        help="convert this function (name or qualified name such as Model.call); repeatable",
    )
    convert.add_argument(
        "--all", action="store_true", dest="all_functions",
        help="convert every function and method, decorated or not",
    )
    convert.add_argument(
        "--output", "-o", metavar="PATH",
        help="write an importable converted module (a directory when several FILEs)",
    )
    convert.add_argument("--diff", action="store_true", help="print a unified diff against the original")
    convert.add_argument(
        "--check", action="store_true", help="only report the functions that fail to convert"
    )
    convert.add_argument(
        "--stats", action="store_true", help="print each function's conversion time on stderr"
    )
    _add_color(convert)


def _add_graph(commands: argparse._SubParsersAction) -> None:
    graph = commands.add_parser(
        "graph", help="trace a function and draw its graph (imports the module)",
        description="Import a module, trace one function for the given inputs, draw its graph.",
        epilog=_GRAPH_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_target_arguments(graph)
    graph.add_argument("--output", "-o", metavar="PATH", help="g.svg, g.png or g.dot")
    graph.add_argument("--optimized", action="store_true", help="draw the optimised graph")


def _add_export(commands: argparse._SubParsersAction) -> None:
    export = commands.add_parser(
        "export", help="trace a function and save it, as a saved graph or ONNX (imports the module)",
        description="Import a module, trace one function for the given inputs, and save the trace.",
        epilog=_EXPORT_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_target_arguments(export)
    export.add_argument("--format", choices=FORMATS, default="saved", help="saved (a directory) or onnx")
    export.add_argument("--output", "-o", metavar="PATH", required=True, help="where to write")


def _add_color(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--color", choices=("auto", "always", "never"), default="auto",
        help="highlight code: auto (default) when stdout is a terminal and NO_COLOR is unset",
    )


def main(
    argv: Sequence[str] | None = None,
    stdin: BinaryIO | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> int:
    """Run the command line; returns the exit status."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return _dispatch(args, stdin or sys.stdin.buffer, stdout, stderr)
    except UsageError as error:
        parser.exit(2, f"autograph {args.command}: error: {error}\n")
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader (`| head`) went away: stop quietly, without a second
        # BrokenPipeError when Python flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return 0


def _dispatch(args: argparse.Namespace, stdin: BinaryIO, stdout: IO[str], stderr: IO[str]) -> int:
    from runtime.ir.errors import AutographError

    if args.command == "convert":
        options = ConvertOptions(
            files=args.files, functions=args.functions, all_functions=args.all_functions,
            output=args.output, diff=args.diff, check=args.check, stats=args.stats,
            color=args.color,
        )
        return run_convert(options, stdin, stdout, stderr)
    if args.command == "explain":
        return run_explain(args.target, args.args, stdout, stderr)
    try:
        if args.command == "export":
            return run_export(ExportOptions(args.target, args.output, args.format, args.args), stdout, stderr)
        return run_graph(GraphOptions(args.target, args.args, args.output, args.optimized), stdout, stderr)
    except AutographError as error:
        stderr.write(f"autograph {args.command}: {type(error).__name__}: {error}\n")
        return 1
