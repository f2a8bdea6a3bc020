"""Markdown for bench/RESULTS.md: cells, ratios against targets, tables.

A cell is a measured Stats ("12.3 µs [11.9–13.0]": median [min–max]) or the
reason there is no number ("not built", "failed"); ratios use the medians
and say whether the issue's target is met.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from bench.harness import Missing, Result, Stats

__all__ = ["Section", "cell", "fmt_seconds", "ratio", "ratio_cell", "render", "summary"]


def fmt_seconds(seconds: float) -> str:
    """Three significant digits in the unit that suits: ns, µs, ms or s."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def cell(result: Result | int | None) -> str:
    if result is None:
        return "—"
    if isinstance(result, Missing):
        return result.reason
    if isinstance(result, int):
        return str(result)
    lo, hi = fmt_seconds(result.min), fmt_seconds(result.max)
    return f"{fmt_seconds(result.median)} [{lo}–{hi}]"


def _value(result: Result | int | None) -> float | None:
    if isinstance(result, Stats):
        return result.median
    if isinstance(result, int) and not isinstance(result, bool):
        return float(result)
    return None


def ratio(numerator: Result | int | None, denominator: Result | int | None) -> float | None:
    """median(numerator) / median(denominator), or None when either is missing."""
    top, bottom = _value(numerator), _value(denominator)
    if top is None or bottom is None or bottom == 0:
        return None
    return top / bottom


def ratio_cell(value: float | None, met: Callable[[float], bool] | None = None) -> str:
    """"45.1x (met)", "2.0x (not met)", or "—" when a side has no number."""
    if value is None:
        return "—"
    text = f"{value:,.0f}x" if value >= 100 else f"{value:.3g}x"
    if met is None:
        return text
    return f"{text} (met)" if met(value) else f"{text} (not met)"


@dataclass
class Section:
    """One benchmark's table, with the text that says what was measured."""

    title: str
    intro: str
    headers: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    more: list[tuple[list[str], list[list[str]]]] = field(default_factory=list)
    peer_versions: dict[str, str] = field(default_factory=dict)

    def add_table(self, headers: list[str]) -> list[list[str]]:
        """A further table under the first; returns its (empty) list of rows."""
        rows: list[list[str]] = []
        self.more.append((headers, rows))
        return rows

    def note_missing(self, side: str, case: str, result: object) -> None:
        """Keep the reason behind a failed cell, once per distinct message."""
        if isinstance(result, Missing) and result.detail:
            note = f"{side}, {case}: {result.reason} ({result.detail})"
            if result.reason == "not built":
                note = f"{side}: not built ({result.detail})"
            if note not in self.notes:
                self.notes.append(note)

    def markdown(self) -> str:
        lines = [f"## {self.title}", "", self.intro, ""]
        for headers, rows in [(self.headers, self.rows), *self.more]:
            if lines[-1]:
                lines.append("")
            lines.append("| " + " | ".join(headers) + " |")
            lines.append("|" + "|".join(" --- " for _ in headers) + "|")
            lines.extend("| " + " | ".join(row) + " |" for row in rows)
        if self.notes:
            lines.append("")
            lines.extend(f"- {note}" for note in self.notes)
        return "\n".join(lines) + "\n"


def _tally(section: Section) -> tuple[int, int]:
    """(met, judged): the target cells of a section that hold a number."""
    cells = [c for _, rows in [(section.headers, section.rows), *section.more]
             for row in rows for c in row]
    met = sum(c.endswith("(met)") for c in cells)
    return met, met + sum(c.endswith("(not met)") for c in cells)


def summary(sections: list[Section]) -> str:
    """One line per benchmark: how many of its target checks are met."""
    lines = ["| benchmark | target checks met |", "| --- | --- |"]
    for section in sections:
        met, judged = _tally(section)
        lines.append(f"| {section.title} | {f'{met} of {judged}' if judged else 'no target'} |")
    return "\n".join(lines) + "\n"


def render(preamble: str, sections: list[Section]) -> str:
    body = "\n".join(s.markdown() for s in sections)
    return f"{preamble.rstrip()}\n\n## Summary\n\n{summary(sections)}\n{body}"
