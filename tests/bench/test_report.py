"""RESULTS.md cells: units, missing reasons, ratios judged against targets."""

import pytest

from bench.harness import Missing, Stats
from bench.report import Section, cell, fmt_seconds, ratio, ratio_cell, render


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(2.5, "2.5 s"), (0.0123, "12.3 ms"), (4.56e-6, "4.56 µs"), (7e-8, "70 ns")],
)
def test_seconds_in_the_unit_that_suits(seconds, text):
    assert fmt_seconds(seconds) == text


def test_cells_show_median_min_max_or_the_reason():
    assert cell(Stats(2e-6, 1e-6, 3e-6, 7)) == "2 µs [1 µs–3 µs]"
    assert cell(Missing("not built")) == "not built"
    assert cell(12) == "12"


def test_ratio_needs_both_numbers():
    assert ratio(Stats(4.0, 1, 5, 7), Stats(2.0, 1, 3, 7)) == 2.0
    assert ratio(Missing("not built"), Stats(2.0, 1, 3, 7)) is None
    assert ratio_cell(None, lambda r: True) == "—"


def test_ratio_cells_say_whether_the_target_is_met():
    assert ratio_cell(45.0, lambda r: r >= 30) == "45x (met)"
    assert ratio_cell(2.0, lambda r: r >= 30) == "2x (not met)"
    assert ratio_cell(2034.4) == "2,034x"


def test_section_renders_tables_and_notes():
    section = Section("T", "intro", ["a", "b"], rows=[["1", "2"]])
    section.add_table(["c"]).append(["3"])
    section.note_missing("ours", "case", Missing("failed", "ValueError: x"))
    section.note_missing("ours", "case", Missing("failed", "ValueError: x"))
    text = render("# R", [section])
    assert "| a | b |" in text and "| 1 | 2 |" in text and "| c |" in text
    assert text.count("ValueError: x") == 1


def test_summary_counts_target_checks():
    section = Section("B", "intro", ["x"], rows=[["1x (met)"], ["2x (not met)"], ["—"]])
    plain = Section("C", "intro", ["x"], rows=[["4"]])
    text = render("# R", [section, plain])
    assert "| B | 1 of 2 |" in text and "| C | no target |" in text
