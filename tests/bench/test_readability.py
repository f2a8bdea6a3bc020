"""bench/readability.py: the corpus' to_code stays within the line target, with no placeholder bookkeeping."""

from bench.readability import LINES_TARGET, measure


def test_to_code_of_the_corpus_reads_like_the_source():
    found = measure()
    assert len(found.each) == 49
    assert found.ratio <= LINES_TARGET, f"{found.code_lines} lines for {found.source_lines}: {found.ratio:.2f}x"
    assert found.value_or_undefined == 0
    assert found.undefined == 0  # every name the corpus carries is proven bound where read, or declared
