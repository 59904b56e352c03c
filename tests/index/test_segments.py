"""The index as segments: an edit writes one small segment, merges keep the order a fresh
index gives, damage is rebuilt, and a segment removed under a reader stays readable."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from conftest import rrg_cmd, run
from rrg.index.compact import MERGE_AT, TIER_BASE, plan
from rrg.index.segment import (
    SEGMENT_DOCS,
    Doc,
    Segment,
    Streamed,
    build_arrays,
    merged_columns,
    open_segment,
    write_segment,
)
from rrg.index.store import IndexStore
from rrg.index.view import IndexView, load_view

TOPICS = ["river delta flood", "mountain glacier ice", "desert dune sand", "forest canopy moss"]


def make_tree(tmp_path: Path, files: int = 40) -> Path:
    """A tree named after its test: the session shares one cache dir."""
    root = tmp_path / f"tree-{tmp_path.name}"
    root.mkdir()
    for k in range(files):
        topic = TOPICS[k % len(TOPICS)]
        (root / f"doc{k:03d}.txt").write_text(f"{topic} notes {k}\n{topic} survey {k}\n")
    return root


def files_order(tree: Path, env: dict[str, str], query: str, *extra: str) -> list[bytes]:
    out = run([*rrg_cmd(), "-q", query, *extra, "--files"], tree, env)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def fresh_order(
    tree: Path, env: dict[str, str], query: str, cache: Path, *extra: str
) -> list[bytes]:
    """The order from an index built from scratch, in a cache of its own."""
    cache.mkdir()
    os.symlink(Path(env["RRG_CACHE_DIR"]) / "models", cache / "models")
    return files_order(tree, {**env, "RRG_CACHE_DIR": str(cache)}, query, *extra)


def topics(tree: Path, order: list[bytes], query: str) -> list[str]:
    """The topic of each file that holds a query word (those the ranking must agree on).
    Static vectors weigh tokens by the idf of when they were indexed, so an updated index
    and a fresh one may swap near-ties: two files of one topic, or two files that hold no
    query word."""
    texts = [(tree / os.fsdecode(name)).read_text() for name in order]
    return [t.split(" notes")[0] for t in texts if set(query.split()) & set(t.split())]


def segments_of(env: dict[str, str], tree: Path) -> list[str]:
    folders = list((Path(env["RRG_CACHE_DIR"]) / "index").glob(f"{tree.name}-*.segments"))
    assert len(folders) == 1
    return sorted(p.name for p in folders[0].iterdir())


def test_an_edit_writes_one_small_segment_and_ranks_as_a_fresh_index(
    tmp_path: Path, env: dict[str, str]
) -> None:
    tree = make_tree(tmp_path)
    files_order(tree, env, "glacier")
    before = segments_of(env, tree)
    (tree / "doc002.txt").write_text("glacier: a glacier calving into a glacier lake\n" * 3)
    # The index's own order (--fast): the transformer stage may prefer another of these
    # one-line glacier files, which says nothing about the index.
    after_edit = files_order(tree, env, "glacier", "--fast")
    after = segments_of(env, tree)
    assert set(before) < set(after) and len(after) == len(before) + 1
    assert after_edit[0] == b"doc002.txt"
    fresh = fresh_order(tree, env, "glacier", tmp_path / "fresh", "--fast")
    assert topics(tree, after_edit, "glacier") == topics(tree, fresh, "glacier")


def test_merges_keep_the_order_and_bound_the_segments(tmp_path: Path, env: dict[str, str]) -> None:
    tree = make_tree(tmp_path)
    files_order(tree, env, "sand dune")
    for k in range(2 * MERGE_AT + 1):
        (tree / f"doc{k:03d}.txt").write_text(f"dune sand edit {k}\n")
        (tree / f"new{k}.txt").write_text(f"a new sand note {k}\n")
        files_order(tree, env, "sand dune")
        assert len(segments_of(env, tree)) <= MERGE_AT
    # Files holding a query word come first, as from a fresh index (near-ties may swap).
    fresh = fresh_order(tree, env, "sand dune", tmp_path / "fresh")
    merged = files_order(tree, env, "sand dune")
    holding = len(topics(tree, merged, "sand dune"))
    assert holding == 10 + 2 * (2 * MERGE_AT + 1) - 2  # two edits hit desert files
    assert set(merged[:holding]) == set(fresh[:holding])
    assert merged[holding:] and len(merged) == len(fresh)


def _plan_names(sizes: list[tuple[int, int]]) -> list[list[str]]:
    return plan([(f"s{i}", docs, live) for i, (docs, live) in enumerate(sizes)])


def test_merge_plan_in_tiers() -> None:
    assert _plan_names([(100, 100)] * (MERGE_AT - 1)) == []
    assert _plan_names([(100, 100)] * MERGE_AT) == [[f"s{i}" for i in range(MERGE_AT)]]
    # One big segment and small deltas: the big one is left alone.
    big = (SEGMENT_DOCS, SEGMENT_DOCS)
    assert _plan_names([big, (1, 1), (1, 1)]) == []
    # A segment mostly dead is rewritten alone; one a little dead is not.
    assert _plan_names([(TIER_BASE * 2, TIER_BASE // 2)]) == [["s0"]]
    assert _plan_names([(TIER_BASE * 2, TIER_BASE * 2 - 10)]) == []
    # Four full segments would overflow one: not merged.
    assert _plan_names([big] * MERGE_AT) == []


def test_static_vectors_survive_int8_storage() -> None:
    rnd = np.random.default_rng(3)
    vectors = rnd.normal(size=(50, 256)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    docs = [Doc(f"f{i}".encode(), 1, 1, i, 0, vector=v) for i, v in enumerate(vectors)]
    seg = Segment("s", build_arrays(docs, 256, 100))
    query = rnd.normal(size=256).astype(np.float32)
    query /= np.linalg.norm(query)
    exact = vectors @ query
    stored = seg.vectors(0, 50) @ query
    assert np.abs(exact - stored).max() < 0.01
    assert list(np.argsort(-exact)[:5]) == list(np.argsort(-stored)[:5])


def _index_path(env: dict[str, str], tree: Path) -> Path:
    folder = Path(env["RRG_CACHE_DIR"]) / "index"
    (path,) = [p for p in folder.glob(f"{tree.name}-*.sqlite") if "vectors" not in p.name]
    return path


def test_a_segment_removed_under_a_reader_stays_readable(
    tmp_path: Path, env: dict[str, str]
) -> None:
    tree = make_tree(tmp_path)
    files_order(tree, env, "moss")
    store = IndexStore(_index_path(env, tree), create=False)
    view = load_view(store, 30522)
    store.close()
    before = (
        view.cosines(np.ones(256, np.float32)),
        view.postings(7),
        [view.path(r) for r in range(len(view.kinds))],
    )
    # What a merge does to the segments it replaced, while this reader has them mapped.
    shutil.rmtree(store.segment_dir)
    after = (
        view.cosines(np.ones(256, np.float32)),
        view.postings(7),
        [view.path(r) for r in range(len(view.kinds))],
    )
    assert np.array_equal(before[0], after[0]) and before[2] == after[2]
    assert all(np.array_equal(a, b) for a, b in zip(before[1], after[1], strict=True))


@pytest.mark.parametrize("damage", ["truncated", "missing", "garbage", "empty", "header"])
def test_a_damaged_segment_is_reported_once_and_rebuilt(
    damage: str, tmp_path: Path, env: dict[str, str]
) -> None:
    tree = make_tree(tmp_path)
    expected = files_order(tree, env, "flood delta")
    folder = _index_path(env, tree).with_suffix(".sqlite.segments")
    target = next(folder.iterdir()) / "post_doc.npy"
    if damage == "truncated":
        with open(target, "r+b") as fh:
            fh.truncate(target.stat().st_size // 2)
    elif damage == "missing":
        target.unlink()
    elif damage == "empty":  # np.load raises EOFError
        target.write_bytes(b"")
    elif damage == "header":  # its dict left open: numpy's tokenizer raises TokenError
        data = target.read_bytes()
        target.write_bytes(data.replace(b"}", b" ", 1))
    else:
        target.write_bytes(b"not an array at all")
    out = run([*rrg_cmd(), "-q", "flood delta", "--files"], tree, env)
    assert out.returncode == 0 and out.stdout.splitlines() == expected
    assert out.stderr.startswith(b"rrg: index ") and out.stderr.count(b"\n") == 1, out.stderr
    assert b"rebuilding" in out.stderr
    again = run([*rrg_cmd(), "-q", "flood delta", "--files"], tree, env)
    assert again.stderr == b"" and again.stdout.splitlines() == expected


def test_an_orphan_segment_is_never_read_and_cleaned_by_the_next_writer(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """A writer killed between writing a segment and registering it leaves a folder that
    no registry names: readers ignore it, the next writer removes it."""
    tree = make_tree(tmp_path)
    expected = files_order(tree, env, "canopy")
    folder = _index_path(env, tree).with_suffix(".sqlite.segments")
    orphan = folder / "s000000099-deadbeef"
    shutil.copytree(next(folder.iterdir()), orphan)
    (orphan / "kind.npy").write_bytes(b"half written")
    out = run([*rrg_cmd(), "-q", "canopy", "--files"], tree, env)
    assert out.stderr == b"" and out.stdout.splitlines() == expected
    assert orphan.exists()
    (tree / "doc100.txt").write_text("a new canopy note\n")
    out = run([*rrg_cmd(), "-q", "canopy", "--files"], tree, env)
    assert out.stderr == b"" and not orphan.exists()


def merged_arrays(parts: list[tuple[Segment, np.ndarray]], vocab: int) -> dict[str, np.ndarray]:
    """A merge's columns gathered whole in memory: what the streamed writer must write."""
    out: dict[str, np.ndarray] = {}
    for key, column in merged_columns(parts, vocab):
        if isinstance(column, Streamed):
            blocks = list(column.blocks)
            for i, name in enumerate(column.keys):
                whole = [b[i] for b in blocks]
                out[name] = (
                    np.concatenate(whole).astype(column.dtypes[i], copy=False)
                    if whole
                    else np.zeros(column.shapes[i], column.dtypes[i])
                )
        else:
            out[key] = column
    return out


def test_a_merge_keeps_exact_frequencies_and_postings() -> None:
    """Rows left behind by a merge take their postings and WordPiece counts with them."""
    rnd = np.random.default_rng(5)
    docs = []
    for i in range(60):
        terms = np.unique(rnd.integers(0, 40, 12)).astype(np.uint32)
        pieces = np.unique(rnd.integers(0, 100, 15))
        docs.append(
            Doc(f"f{i}".encode(), 1, 1, i, 0, 12, terms, np.ones(len(terms), np.uint16), pieces)
        )
    first, second = (
        Segment("a", build_arrays(docs[:30], 8, 100)),
        Segment("b", build_arrays(docs[30:], 8, 100)),
    )
    keep_a, keep_b = np.arange(0, 30, 2), np.arange(30)
    merged = Segment("m", merged_arrays([(first, keep_a), (second, keep_b)], 100))
    kept = [docs[i] for i in keep_a] + docs[30:]
    assert merged.paths() == [d.path for d in kept]
    want_df = np.bincount(np.concatenate([d.pieces for d in kept]), minlength=100)
    assert np.array_equal(merged.a["piece_df"], want_df)
    for term in range(40):
        rows, _ = merged.postings(term)
        assert rows.tolist() == [k for k, d in enumerate(kept) if term in d.terms]


def test_a_merge_written_as_it_streams_equals_one_made_whole(tmp_path: Path) -> None:
    """Terms spread over the whole hashed range (so every term range of the merge holds
    some), counts past one: the segment written block by block reads back as the merge
    made in memory, and as the documents themselves say."""
    rnd = np.random.default_rng(9)
    vocab_terms = rnd.integers(0, 2**32, 200, dtype=np.uint64).astype(np.uint32)
    docs = []
    for i in range(90):
        terms = np.unique(rnd.choice(vocab_terms, 25))
        tfs = rnd.integers(1, 300, len(terms)).astype(np.uint16)
        pieces = np.unique(rnd.integers(0, 100, 15))
        vector = rnd.normal(size=8).astype(np.float32)
        doc = Doc(f"d{i}/f.txt".encode(), i, i, i, 0, 30, terms, tfs, pieces, None, vector)
        docs.append(doc)
    segments = [
        Segment(n, build_arrays(docs[k : k + 30], 8, 100))
        for n, k in (("a", 0), ("b", 30), ("c", 60))
    ]
    parts = [
        (segments[0], np.arange(1, 30, 3)),
        (segments[1], np.arange(30)),
        (segments[2], np.arange(0, 30, 2)),
    ]
    whole = merged_arrays(parts, 100)
    name = write_segment(tmp_path, 7, merged_columns(parts, 100))
    streamed = open_segment(tmp_path / name)
    for key in whole:
        assert streamed.a[key].dtype == whole[key].dtype, key
        assert np.array_equal(streamed.a[key], whole[key]), key
    kept = (
        [docs[i] for i in range(1, 30, 3)] + docs[30:60] + [docs[60 + i] for i in range(0, 30, 2)]
    )
    for term in vocab_terms.tolist():
        rows, tfs = streamed.postings(term)
        want = [
            (k, min(int(d.tfs[d.terms == term][0]), 255))
            for k, d in enumerate(kept)
            if term in d.terms
        ]
        assert list(zip(rows.tolist(), tfs.astype(int).tolist(), strict=True)) == want
    assert not list(tmp_path.glob(".tmp-*"))


def test_a_full_disk_during_a_build_loses_nothing(tmp_path: Path, env: dict[str, str]) -> None:
    """Writes past a file size limit fail as on a full disk (EFBIG; rrg ignores SIGXFSZ as
    Python does): the search runs in rg's order with one warning, no half-written segment
    is left, and the next run, with room again, builds an index that serves as usual."""
    import resource
    import subprocess

    (tmp_path / "warm").mkdir()
    warm = make_tree(tmp_path / "warm", 3)  # the model's static table exists beforehand
    files_order(warm, env, "glacier")
    tree = make_tree(tmp_path, 400)

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024, resource.RLIM_INFINITY))

    cmd = [*rrg_cmd(), "-q", "glacier", "--limit", "0", "glacier"]
    full = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, preexec_fn=limited)
    assert full.returncode == 0, full.stderr
    assert full.stderr.startswith(b"rrg: cannot use the index") and full.stderr.count(b"\n") == 1
    assert len(full.stdout.splitlines()) == 200  # every glacier line, in rg's order
    folders = list((Path(env["RRG_CACHE_DIR"]) / "index").glob(f"{tree.name}-*.segments"))
    assert all(not any(f.iterdir()) for f in folders)  # no segment, not even a temporary one
    again = run(cmd, tree, env)
    assert again.returncode == 0 and again.stderr == b""
    assert sorted(again.stdout.splitlines()) == sorted(full.stdout.splitlines())
    assert segments_of(env, tree)


def test_a_view_finds_each_paths_live_row() -> None:
    """An edited file's old row is dead and its new one lives in a later segment; a removed
    file's row is dead with no successor; a path never indexed has no row."""

    def doc(name: str) -> Doc:
        return Doc(name.encode(), 1, 1, 1, 0, 1, np.array([3], np.uint32), np.ones(1, np.uint16))

    old = Segment("s1", build_arrays([doc("a.txt"), doc("b.txt"), doc("c.txt")], 8, 10))
    new = Segment("s2", build_arrays([doc("d.txt"), doc("b.txt")], 8, 10))
    dead = {"s1": np.array([1, 2])}  # b.txt (edited: its new row is in s2), c.txt (removed)
    view = IndexView([old, new], [0, 3], dead, 10)
    wanted = [b"b.txt", b"new.txt", b"a.txt", b"c.txt", b"d.txt"]
    assert view.rows_of(wanted).tolist() == [4, -1, 0, -1, 3]
    assert [view.path(r) for r in range(5)] == [b"a.txt", b"b.txt", b"c.txt", b"d.txt", b"b.txt"]
