"""A passage printed with its file's own bytes: only the lines it was cut from."""

from __future__ import annotations

from pathlib import Path

import pytest

from rrg.rank.paragraphs import Paragraph
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
