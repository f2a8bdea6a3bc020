"""`autograph explain FILE.py:FUNCTION --arg 'int64[]'`: ag.explain from the command line.

Imports the module as `graph` does (its top-level code runs), traces the
function for the given specs and prints the report of `ag.explain`. The exit
status is 1 when the trace failed (the report says where).
"""

from __future__ import annotations

import argparse
from typing import IO

from autograph.cli.graph import _arguments, _load_target, add_target_arguments

__all__ = ["add_explain", "run_explain"]

_EXAMPLES = """\
examples:
  autograph explain model.py:step --arg 'float32[None,3]' --arg 'int64[]'
  autograph explain model.py:step --arg 'float32[8]' --arg 'limit=3'

explain IMPORTS the module and traces the function (a fresh copy: nothing is
cached) for the given inputs, then lists, for each control-flow statement
with its file:line, whether it was staged, ran as Python (and why) or was
unrolled; the functions converted; the calls left unconverted; and the
Python side effects that ran while tracing. Specs are those of `graph`.
"""


def add_explain(commands: argparse._SubParsersAction) -> None:
    explain = commands.add_parser(
        "explain", help="trace a function and report what became of each statement",
        description="Import a module, trace one function, and explain what tracing did.",
        epilog=_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_target_arguments(explain)


def run_explain(target: str, arg_texts: list[str], stdout: IO[str], stderr: IO[str]) -> int:
    """Print the explanation; 1 if the trace failed or the module cannot be imported."""
    from autograph.explain import explain
    from runtime.ir.errors import AutographError

    args, kwargs = _arguments(arg_texts)
    try:
        function = _load_target(target)
    except AutographError as error:  # a syntax error in the file: its line, no traceback
        stderr.write(f"autograph explain: {type(error).__name__}: {error}\n")
        return 1
    explanation = explain(function, *args, **kwargs)
    stdout.write(f"{explanation}\n")
    return 0 if explanation.error is None else 1
