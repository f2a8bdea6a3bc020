"""Reading source for static conversion: PEP 263 decoding and syntax errors."""

from __future__ import annotations

import io
import tokenize

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograph.cli.source_file import (
    SourceError,
    SourceFile,
    decode_source,
    parse_source,
    read_source,
)


def test_utf8_is_the_default():
    assert decode_source("x = 'é'\n".encode(), "m.py") == ("x = 'é'\n", "utf-8")


def test_coding_cookie_is_honoured():
    data = b"# -*- coding: latin-1 -*-\nx = '\xe9'\n"
    text, encoding = decode_source(data, "m.py")
    assert encoding == "iso-8859-1"
    assert "x = 'é'" in text


def test_bom_is_dropped_and_newlines_are_universal():
    text, encoding = decode_source(b"\xef\xbb\xbfx = 1\r\ny = 2\r", "m.py")
    assert (text, encoding) == ("x = 1\ny = 2\n", "utf-8-sig")


def test_undecodable_bytes_name_file_line_and_fix():
    with pytest.raises(SourceError) as info:
        decode_source(b"x = 1\ny = '\xff'\n", "m.py")
    message = str(info.value)
    assert message.startswith("m.py:2: cannot decode byte 0xff as utf-8")
    assert "coding" in message


def test_a_first_line_that_is_not_utf8_names_the_byte_not_a_coding_comment():
    with pytest.raises(SourceError, match=r"^m\.py:1: cannot decode byte 0xff as utf-8"):
        decode_source(b"\xff = 1\n", "m.py")


def test_unknown_coding_cookie_is_a_clear_error():
    with pytest.raises(SourceError, match=r"^m\.py:1: cannot decode: .*coding"):
        decode_source(b"# coding: no-such-codec\nx = 1\n", "m.py")


@given(st.text(alphabet=st.characters(codec="latin-1", exclude_characters="\r\n\x0c"), max_size=40),
       st.sampled_from(["utf-8", "latin-1", "cp1252", "utf-16"]))
def test_decoding_agrees_with_tokenize_open(body, encoding):
    source = f"# -*- coding: {encoding} -*-\ns = {body!r}\n"
    try:
        data = source.encode(encoding)
    except UnicodeEncodeError:
        return
    if encoding == "utf-16":  # not ASCII-compatible: tokenize rejects the cookie too
        with pytest.raises(SourceError):
            decode_source(data, "m.py")
        return
    wrapper = io.TextIOWrapper(io.BytesIO(data), tokenize.detect_encoding(io.BytesIO(data).readline)[0])
    assert decode_source(data, "m.py")[0] == wrapper.read()


def test_syntax_error_has_file_line_and_caret():
    with pytest.raises(SourceError) as info:
        parse_source(SourceFile("m.py", "x = 1\nif x > 0\n    pass\n", "utf-8"))
    lines = str(info.value).splitlines()
    assert lines[0].startswith("m.py:2: syntax error:")
    assert lines[1].strip() == "if x > 0"
    assert lines[2].strip() == "^"


def test_read_source_from_stdin_and_missing_file(tmp_path):
    source = read_source("-", io.BytesIO(b"x = 1\n"))
    assert (source.path, source.text) == ("<stdin>", "x = 1\n")
    with pytest.raises(SourceError, match="cannot read"):
        read_source(str(tmp_path / "missing.py"))
