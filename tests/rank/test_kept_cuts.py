"""Files' passages kept across processes (rrg/rank/kept_cuts.py, VectorCache's cuts): read
back equal to a fresh cut, keyed by the text (an edited file is cut again), never kept for a
short file or a cut that is not rrg's, bounded, and a damaged entry only costs a cut. Real
files, the real cutter (tree-sitter), a real SQLite file in tmp_path."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
import xxhash

from conftest import rrg_cmd, run
from rrg.index.vectors import VectorCache, vectors_path
from rrg.model.encoder import Encoder
from rrg.model.registry import default_model
from rrg.rank import kept_cuts, passages
from rrg.rank.code_passages import blank_line_passages, cut_passages
from rrg.rank.kept_cuts import KeptCuts
from rrg.rank.paragraphs import Paragraph
from rrg.rank.passages import PassageScorer, score_passages
from rrg.rank.query import Query
from rrg.rank.tuning import TUNING


def _module(functions: int, word: str = "retry") -> str:
    body = "\n".join(f"    total += value * {j}  # step {j} of the {word}" for j in range(8))
    return "\n\n".join(
        f"def {word}_{k}(value):\n    '''Do the {word} number {k}.'''\n    total = 0\n"
        f"{body}\n    return total\n"
        for k in range(functions)
    )


def _digest(text: str) -> str:
    return xxhash.xxh3_64_hexdigest(text.encode("utf-8", "surrogatepass"))


def test_a_kept_cut_reads_back_as_cut_and_an_edit_is_cut_again(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path / "root.sqlite")
    text = _module(12)
    assert KeptCuts.worth_keeping(text)
    cut = cut_passages(text, "src/retry.py")
    writer = KeptCuts(cache)
    assert writer.find(cut_passages, "src/retry.py", _digest(text)) is None
    writer.keep(cut_passages, "src/retry.py", _digest(text), cut)
    writer.save()
    reader = KeptCuts(cache)  # another query, another process's view of the same file
    assert reader.find(cut_passages, "src/retry.py", _digest(text)) == cut
    assert reader.find(blank_line_passages, "src/retry.py", _digest(text)) is None
    assert reader.find(cut_passages, "src/other.py", _digest(text)) is None  # path is read too
    edited = text.replace("retry_3", "backoff_3")
    assert reader.find(cut_passages, "src/retry.py", _digest(edited)) is None
    # A cut that is not rrg's own is never kept: its make is unknown here.
    reader.keep(lambda t, n: [Paragraph(1, 1, t)], "src/retry.py", _digest(edited), [])
    assert reader.fresh == {}


def test_a_kept_cut_keeps_where_a_long_lines_pieces_begin_and_end(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path / "root.sqlite")
    text = _module(12) + "\n\nTABLE = [" + ", ".join(str(k) for k in range(900)) + "]\n"
    cut = cut_passages(text, "src/table.py")
    assert any(p.starts_mid_line for p in cut) and any(p.ends_mid_line for p in cut)
    writer = KeptCuts(cache)
    writer.keep(cut_passages, "src/table.py", _digest(text), cut)
    writer.save()
    assert KeptCuts(cache).find(cut_passages, "src/table.py", _digest(text)) == cut


def test_the_scorer_keeps_long_files_and_cuts_short_ones(tmp_path: Path) -> None:
    """score_passages through a KeptCuts: the long file's cut is written once the files are
    cut, the short one's never, and a later query reads back what was cut."""
    index = tmp_path / "root.sqlite"
    long_text, short_text = _module(12), "def f():\n    return 1\n"
    assert not KeptCuts.worth_keeping(short_text)

    def scorer() -> PassageScorer:
        def no_vectors(kind: str, keys: list[str], encode: object) -> dict[str, object]:
            raise AssertionError("the cheap tier without static vectors reads none")

        kept = KeptCuts(VectorCache(index))
        return PassageScorer(Encoder(default_model()), None, no_vectors, 0, TUNING, kept)

    passages._CUTS.clear()
    first = score_passages(
        Query.of("retry"), [long_text, short_text], scorer(), ["a.py", "b.py"], cut_passages
    )
    with sqlite3.connect(vectors_path(index)) as db:
        assert db.execute("SELECT COUNT(*) FROM cuts").fetchone()[0] == 1
    passages._CUTS.clear()
    again = scorer()
    assert again.cuts is not None
    assert again.cuts.find(cut_passages, "a.py", _digest(long_text)) == cut_passages(
        long_text, "a.py"
    )
    second = score_passages(
        Query.of("retry"), [long_text, short_text], again, ["a.py", "b.py"], cut_passages
    )
    assert second.paragraphs == first.paragraphs and second.owners == first.owners


def test_a_damaged_entry_is_cut_again_and_the_cuts_are_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = tmp_path / "root.sqlite"
    cache = VectorCache(index)
    texts = {f"src/m{k}.py": _module(12, f"word{k}") for k in range(6)}
    writer = KeptCuts(cache)
    for name, text in texts.items():
        writer.keep(cut_passages, name, _digest(text), cut_passages(text, name))
    writer.save()
    with sqlite3.connect(vectors_path(index)) as db:
        db.execute("UPDATE cuts SET data = ?", (b"not zlib",))
    name, text = next(iter(texts.items()))
    assert KeptCuts(cache).find(cut_passages, name, _digest(text)) is None
    # Past the bound, the least recently used go first, down to 90% of it.
    with sqlite3.connect(vectors_path(index)) as db:
        db.execute("UPDATE cuts SET data = zeroblob(1000), used = rowid")
        db.execute("DELETE FROM prune")  # the next write prunes
    monkeypatch.setattr("rrg.index.vectors.MAX_CUT_BYTES", 3 * 1064)
    other = _module(12, "other")
    writer = KeptCuts(cache)
    writer.keep(cut_passages, "src/other.py", _digest(other), cut_passages(other, "src/other.py"))
    writer.save()
    with sqlite3.connect(vectors_path(index)) as db:
        left = db.execute("SELECT rowid FROM cuts ORDER BY rowid").fetchall()
    assert len(left) <= 2 and left[-1][0] == 7  # the newest stays, the oldest went


def test_a_search_keeps_its_long_files_cuts_and_answers_the_same(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Two runs of one query in two processes: the first keeps the long file's cut, the
    second reads it back, and both print the same passages."""
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "retry.py").write_text(_module(14))
    (root / "src" / "small.py").write_text("def wait(n):\n    return n * 2\n")
    env = dict(env, RRG_CACHE_DIR=str(tmp_path / "cache"))
    query = ["-q", "retry the value with steps", "--fast", "--color", "never"]
    first = run([*rrg_cmd(), *query], root, env)
    assert first.returncode == 0, first.stderr
    (store,) = (tmp_path / "cache" / "index").glob("*.vectors.sqlite")
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT COUNT(*) FROM cuts").fetchone()[0] == 1  # the long file
    second = run([*rrg_cmd(), *query], root, env)
    assert second.stdout == first.stdout and b"src/retry.py" in second.stdout
    status = run([*rrg_cmd(), "--index-status"], root, env).stdout.decode()
    assert "\n    the passages of 1 long file as cut, 0.0 MB (up to 32 MB)\n" in status, status
    assert os.path.getsize(store) > 0 and kept_cuts.KEEP_FROM_CHARS > 0
