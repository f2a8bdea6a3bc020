"""Context: what every converter of one function shares (names, options, side tables).

Side tables are keyed by gast node; converters keep loop nodes' identity when
they rewrite them so that entries stay valid.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import gast

from autograph.analysis.activity import Effects
from autograph.source.diagnostics import conversion_error
from autograph.source.naming import Namespace
from runtime.ir.errors import ConversionError

__all__ = ["Context", "Options"]


@dataclass(frozen=True)
class Options:
    """Conversion options; part of the conversion cache key."""

    recursive: bool = True


@dataclass
class Context:
    """Shared state of converting one function."""

    filename: str
    first_line: int
    function_name: str
    namespace: Namespace
    options: Options = Options()
    # name -> module name, for names that refer to modules (e.g. np -> numpy)
    module_of: Callable[[str], str | None] = lambda name: None
    # name -> the object a global/builtin name refers to, when known
    value_of: Callable[[str], object] = lambda name: None
    # loop node -> {'maximum_iterations': expr, 'shape_invariants': expr}
    loop_options: dict[gast.AST, dict[str, gast.expr]] = field(default_factory=dict)
    # for loop node -> flag names whose negation must hold to run another iteration
    loop_flags: dict[gast.AST, list[str]] = field(default_factory=dict)
    # names captured by the user's own nested functions and lambdas
    captured: frozenset[str] = frozenset()
    source_lines: list[str] | None = None
    indent: int = 0
    # flag assignments made by jump lowering; those nothing reads are removed after analysis
    flag_stores: list[gast.stmt] = field(default_factory=list)
    # (the `finally_error = None` before a jump out of a finally block, its try): see finally_jumps
    finally_jumps: list[tuple[gast.stmt, gast.Try]] = field(default_factory=list)
    vars_name: str | None = None
    # id -> helper function control flow generated (hoisting may move them); holding the
    # node keeps its id from being reused by another node while the function converts
    generated: dict[int, gast.FunctionDef] = field(default_factory=dict)
    # id of a generated helper -> names it must keep local (hoisting may make the others nonlocal)
    private: dict[int, frozenset[str]] = field(default_factory=dict)
    # id of a generated get_state/set_state -> what it reads and rebinds, as it was made, and the
    # names of it its operator call passes: hoisting keeps one of those that are alike in a block
    # (see `state.state_functions`)
    state_keys: dict[int, tuple[tuple, list[gast.Name]]] = field(default_factory=dict)
    # generated helper -> its free names, when how it was made tells them (a state function of plain names)
    free_names: dict[gast.AST, frozenset[str]] = field(default_factory=dict)
    # simple statement -> its effects, as the analyses read them, while no pass has rewritten it since:
    # hoisting reads a helper's free names off these rather than walking the statements again
    analysed: dict[gast.stmt, Effects] = field(default_factory=dict)
    # whether control flow converted a loop inside an if or loop, so that a helper calls its operator
    loops_in_helpers: bool = False
    # whether the function may hold `:=` (the census says); without, the names a block binds
    # are read off its statements and targets alone
    walrus: bool = True
    # whether the function is defined in a class body, so it has a `__class__` cell (see super_calls)
    in_class: bool = False
    # id -> (assert, if-expression, and/or or chain, the try/with that may catch what it raises): see catching
    within: dict[int, tuple[gast.AST, tuple[str, int]]] = field(default_factory=dict)
    # whether the function may hold a lazy operator call (`ag__.if_exp`, `and_`, `or_`): set by the
    # passes that write one; the pipeline starts it False unless the user's code names `ag__` itself
    lazy_operands: bool = True
    # the conditional expressions conditional_returns made of returning ifs: their if_exp calls say
    # 'return' where others give the condition's text, so a staged error speaks of the if (the node
    # is held, so its id is not reused)
    returned: dict[int, gast.IfExp] = field(default_factory=dict)
    # if or loop node -> what the function as written reads after it or at its head (see written_liveness)
    written_liveness: dict[gast.AST, object] = field(default_factory=dict)
    # id of the operator call an if/elif chain's head became -> the chain (see if_chains)
    if_chains: dict[int, object] = field(default_factory=dict)

    def within_of(self, node: gast.AST) -> tuple[str, int] | None:
        """The innermost try/with (keyword, user line) that may catch what `node` raises, if marked."""
        found = self.within.get(id(node))
        return None if found is None else found[1]

    def user_line(self, node: gast.AST) -> int:
        return getattr(node, "lineno", 1) + self.first_line - 1

    def error(self, node: gast.AST, what: str, rule: str, fix: str) -> ConversionError:
        """A ConversionError pointing at `node` in the user's file."""
        line = self.user_line(node)
        text = None
        if self.source_lines is not None:
            index = getattr(node, "lineno", 1) - 1
            if 0 <= index < len(self.source_lines):
                text = self.source_lines[index]
        return conversion_error(
            what,
            self.filename,
            line,
            rule,
            fix,
            text=text,
            col=getattr(node, "col_offset", 0) + self.indent,
            function=self.function_name,
        )
