"""A passage printed with its file's own bytes: only the lines it was cut from."""

from __future__ import annotations

from pathlib import Path

import pytest

from rrg.rank.paragraphs import Paragraph, split_paragraphs
from rrg.search.as_written import as_written


def test_a_passage_takes_its_files_bytes_only_where_they_are_its_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("a.txt").write_bytes(b"first\ncaf\xe9 au lait\r\nsecond caf\xe9\n")
    Path("b.txt").write_bytes(b"caf\xe9 changed since\n")
    Path("c.txt").write_bytes(b"\xef\xbb\xbfcaf\xe9 marked\n")  # rg prints no byte order mark
    found = [
        (b"a.txt", Paragraph(2, 3, "caf\ufffd au lait\nsecond caf\ufffd")),
        (b"b.txt", Paragraph(1, 1, "caf\ufffd as ranked")),  # the file changed since
        (b"gone.txt", Paragraph(1, 1, "caf\ufffd")),  # the file is gone
        (b"a.txt", Paragraph(1, 1, "first")),  # no byte lost: as it was
        (b"c.txt", Paragraph(1, 1, "caf\ufffd marked")),
    ]
    printed = [p.text.encode("utf-8", "surrogateescape") for _, p in as_written(found)]
    assert printed == [
        b"caf\xe9 au lait\nsecond caf\xe9",
        "caf\ufffd as ranked".encode(),
        "caf\ufffd".encode(),
        b"first",
        b"caf\xe9 marked",
    ]


def test_a_long_lines_pieces_take_their_own_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line longer than a passage is read in pieces; a piece that lost a byte printed
    U+FFFD (where it started in the line's bytes was not kept). Each piece now prints its
    own stretch of the line's bytes, a Latin-1 byte, a UTF-8 character and a broken
    sequence (two bytes, one U+FFFD) in place, and the pieces join to the line."""
    monkeypatch.chdir(tmp_path)
    line = b" ".join(b"caf\xe9 na\xc3\xafve \xe2\x82 %d" % k for k in range(400))
    Path("long.txt").write_bytes(b"title\n" + line + b"\n")
    pieces = [p for p in split_paragraphs((b"title\n" + line).decode("utf-8", "replace")) if p]
    assert len(pieces) > 2 and pieces[1].starts_mid_line and pieces[1].ends_mid_line
    printed = [
        p.text.encode("utf-8", "surrogateescape")
        for _, p in as_written([(b"long.txt", p) for p in pieces])
    ]
    assert all("\ufffd".encode() not in text for text in printed)
    assert b"".join(printed) == b"title\n" + line
