"""Paragraph splitting for entry points: 400-1200 characters, contiguous line ranges."""

from __future__ import annotations

from rrg.rank.entry_points import spread
from rrg.rank.paragraphs import MAX_CHARS, MIN_CHARS, split_paragraphs


def test_short_blocks_merge_and_ranges_are_contiguous() -> None:
    blocks = [f"block {k} " + "word " * 30 for k in range(12)]  # ~160 chars each
    text = "\n\n".join(blocks)
    paragraphs = split_paragraphs(text)
    lines = text.splitlines()
    for p in paragraphs[:-1]:
        assert MIN_CHARS <= len(p.text) <= MAX_CHARS
    for p in paragraphs:
        assert p.text == "\n".join(lines[p.start - 1 : p.end])
    covered = [n for p in paragraphs for n in range(p.start, p.end + 1)]
    assert covered == sorted(covered)
    assert all(f"block {k}" in "".join(p.text for p in paragraphs) for k in range(12))


def test_a_big_block_is_cut_at_line_boundaries() -> None:
    text = "\n".join("x" * 100 for _ in range(40))  # 40 lines, no blank line
    paragraphs = split_paragraphs(text)
    assert all(len(p.text) <= MAX_CHARS for p in paragraphs)
    assert paragraphs[0].start == 1 and paragraphs[-1].end == 40
    assert [p.start for p in paragraphs[1:]] == [p.end + 1 for p in paragraphs[:-1]]


def test_a_single_very_long_line_is_cut_evenly_into_pieces_of_that_line() -> None:
    text = "first paragraph " * 30 + "\n\n" + "y" * 3000 + "\n\nend"
    paragraphs = split_paragraphs(text)
    long_parts = [p for p in paragraphs if p.start == p.end == 3]
    assert [len(p.text) for p in long_parts] == [1000, 1000, 1000]
    assert "".join(p.text for p in long_parts) == "y" * 3000
    assert paragraphs[0].end == 1 and paragraphs[-1].text == "end"


def test_each_piece_of_a_long_line_says_where_the_line_goes_on() -> None:
    """What the printer marks [...]: the pieces after the first begin inside the line, the
    pieces before the last end inside it; whole lines are neither."""
    text = "intro words\n" + "w " * 1500 + "\nshort line\n\nlast block"
    paragraphs = split_paragraphs(text)
    pieces = [p for p in paragraphs if p.end == 2]
    assert len(pieces) == 3 and pieces[0].start == 1
    assert [(p.starts_mid_line, p.ends_mid_line) for p in pieces] == [
        (False, True),
        (True, True),
        (True, False),
    ]
    whole = [p for p in paragraphs if p.end != 2]
    assert whole and not any(p.starts_mid_line or p.ends_mid_line for p in whole)


def test_a_title_above_a_long_line_is_read_with_its_start() -> None:
    # A title line, then an abstract written as one line: the layout of paper abstracts and
    # of Markdown written a paragraph a line.
    title = "Exosomal levels of miRNA-21 in cerebrospinal fluid"
    abstract = " ".join(f"word{k}" for k in range(300))  # 2,389 characters, one line
    paragraphs = split_paragraphs(f"{title}\n{abstract}\n")
    assert paragraphs[0].text.startswith(title + "\n" + "word0 word1")
    assert (paragraphs[0].start, paragraphs[0].end) == (1, 2)
    assert all(p.start == p.end == 2 for p in paragraphs[1:])
    assert "".join(p.text for p in paragraphs) == f"{title}\n{abstract}"
    # Near-equal pieces, each ending at a word's end: no word is cut, no tail of a few words.
    assert all(MIN_CHARS <= len(p.text) <= MAX_CHARS for p in paragraphs)
    assert all(p.text.endswith(" ") for p in paragraphs[:-1])


def test_a_short_block_and_the_long_line_after_it_share_pieces() -> None:
    text = "short intro line\n" + "z" * 1195  # together over MAX_CHARS, each part under it
    paragraphs = split_paragraphs(text)
    assert len(paragraphs) == 2
    assert paragraphs[0].text.startswith("short intro line\nzzz")
    assert all(MIN_CHARS <= len(p.text) <= MAX_CHARS for p in paragraphs)


def test_a_line_of_spaces_between_short_blocks_adds_nothing() -> None:
    text = "title\n" + " " * 5000 + "\nshort text\n"
    paragraphs = split_paragraphs(text)
    assert [p.text for p in paragraphs] == ["title\n\nshort text"]


def test_a_line_of_spaces_between_short_blocks_is_kept_as_written_where_it_fits() -> None:
    """The model reads no spaces; a reader matching the passage against its file does."""
    text = "title\n    \nshort text\n\t\nmore\n"
    assert [p.text for p in split_paragraphs(text)] == ["title\n    \nshort text\n\t\nmore"]


def test_blank_text_has_no_paragraphs() -> None:
    assert split_paragraphs("\n\n  \n") == []


def test_entry_points_take_each_files_best_passage_before_any_second() -> None:
    # Passages 0-2 of file 0 have the best cosines; file 1 ranks above file 0 in the order.
    best = [0, 1, 2, 3, 4]
    owners = [0, 0, 0, 1, 2]
    file_rank = [1, 0, 2]
    assert spread(best, owners, file_rank, 3) == [3, 0, 4]
    assert spread(best, owners, file_rank, 5) == [3, 0, 4, 1, 2]


def test_a_files_preamble_comes_after_every_other_passage_but_its_files_best() -> None:
    """File 0's second passage is its imports: file 1's second, though file 1 ranks below,
    comes first; a preamble that is its file's best keeps its place (file 2 holds no other)."""
    best = [0, 2, 4, 1, 3]
    owners = [0, 0, 1, 1, 2]
    file_rank = [0, 1, 2]
    assert spread(best, owners, file_rank, 5) == [0, 2, 4, 1, 3]
    assert spread(best, owners, file_rank, 5, last={1, 4}) == [0, 2, 4, 3, 1]
