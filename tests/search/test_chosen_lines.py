"""Which matching lines of a file print under the cap's share (``rrg.rg.chosen_lines``): the
choice by the file's best passages, and rg's output of several files cut to those lines."""

from __future__ import annotations

from rrg.rg.chosen_lines import (
    LeftOut,
    chosen,
    first_lines,
    kept_lines,
    kept_messages,
    matching_line_numbers,
)


def test_the_lines_of_the_best_passage_come_first_then_the_next_then_the_files_first() -> None:
    lines = [3, 10, 42, 44, 90]  # matching lines, by number
    assert chosen(lines, [(40, 50)], 1) == [2]
    # Its two, then the file's next: rg prints a file's lines in its order, and the best
    # prints first where enough follow it (not the file's first line, an import).
    assert chosen(lines, [(40, 50)], 3) == [2, 3, 4]
    assert chosen(lines, [(80, 99), (1, 5)], 2) == [0, 4]  # in file order when printed
    assert chosen(lines, [(42, 42), (40, 50)], 1) == [2]  # a defining line before its passage
    assert chosen(lines, [(60, 70)], 2) == [0, 1]  # no match in it: rg's -m 2
    assert chosen(lines, [], 1) == [0]


def test_a_run_over_several_files_keeps_each_files_chosen_lines() -> None:
    plain = [b"a.py:1:x\nb.py:2:y\nb.py:7:", b"z\nb.py:9:w\nc.py:4:v\n"]
    segments = [(1, {0}), (3, {1}), (1, {0})]
    assert b"".join(kept_lines(plain, segments, heading=False)) == (
        b"a.py:1:x\nb.py:7:z\nc.py:4:v\n"
    )
    under_headings = [b"a.py\n1:x\n\nb.py\n2:y\n7:z\n9:w\n\nc.py\n4:v\n"]
    assert b"".join(kept_lines(under_headings, segments, heading=True)) == (
        b"a.py\n1:x\n\nb.py\n7:z\n\nc.py\n4:v\n"
    )


def test_matching_lines_are_read_by_path_and_number() -> None:
    output = [b"src/a b.py\x0012:[Omitted long matching line]\n", b"c:d.py\x003:x\n", b"junk\n"]
    assert matching_line_numbers(output) == {b"src/a b.py": [12], b"c:d.py": [3]}


def test_a_json_run_keeps_each_files_chosen_match_messages() -> None:
    """The match messages not chosen go; the file's end message, and the run's total for
    its summary, count only those kept (one submatch each here, two in the one left out)."""
    stats = b'"stats":{"bytes_printed":%d,"matched_lines":%d,"matches":%d}}}\n'
    left = b'{"type":"match","data":{"line_number":1,"submatches":[{"match":{},{"match":{}]}}\n'
    kept_one = b'{"type":"match","data":{"line_number":5,"submatches":[{"match":{}]}}\n'
    begin = b'{"type":"begin","data":{"path":{"text":"a.py"}}}\n'
    whole = len(begin) + len(left) + len(kept_one)
    messages = [
        begin,
        left,
        kept_one,
        b'{"type":"end","data":{' + stats % (whole, 2, 3),
        b'{"type":"begin","data":{"path":{"text":"b.py"}}}\n',
        b'{"type":"match","data":{"line_number":2,"submatches":[{"match":{}]}}\n',
        b'{"type":"end","data":{' + stats % (70, 1, 1),
    ]
    run_left_out = LeftOut()
    kept = list(kept_messages(messages, [(2, {1}), (1, {0})], run_left_out))
    assert kept == [
        begin,
        kept_one,
        b'{"type":"end","data":{' + stats % (whole - len(left), 1, 1),
        *messages[4:],
    ]
    assert (run_left_out.matched_lines, run_left_out.matches) == (1, 2)
    assert run_left_out.bytes_printed == len(left)


def test_first_lines_stops_the_run_at_its_last_line() -> None:
    """A one-file run of N matches: its output up to the N-th line's end, in as many
    chunks as it came, and the run stopped there (once); a run that printed fewer is whole."""
    stopped: list[bool] = []
    chunks = [b"a:1\nb:2\nc", b":3\nd:4\n", b"e:5\n"]
    out = list(first_lines(iter(chunks), 3, lambda: stopped.append(True)))
    assert out == [b"a:1\nb:2\nc", b":3\n"] and stopped == [True]
    stopped.clear()
    assert b"".join(first_lines(iter(chunks), 9, lambda: stopped.append(True))) == b"".join(chunks)
    assert stopped == []


def test_the_best_line_prints_first_where_lines_follow_it() -> None:
    """model2vec: "where is mean_sentence_embedding defined" gave the file two lines, the
    method's own at 42 and the class's ``__init__`` at 38 (the next passage), and rg's order
    printed ``__init__`` first; the next lines come from after the best where there are."""
    lines = [38, 42, 55, 70]
    spans = [(42, 42), (42, 50), (30, 40), (51, 60), (61, 80)]
    assert chosen(lines, spans, 2) == [1, 2]  # 42, then 55 (the next span after it)
    assert chosen(lines, spans, 3) == [1, 2, 3]
    assert chosen(lines, spans, 4) == [0, 1, 2, 3]  # too few follow: 38 too, printed first
    assert chosen(lines, [(68, 75), (30, 40)], 2) == [0, 3]  # none follows 70: 38 before it
