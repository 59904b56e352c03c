"""The labelled sets in ../shared/data, read in place and written out as one file per
document (never copied into the repository)."""

from __future__ import annotations

import gzip
import json
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import OUT, SHARED_DATA

BEIR_SETS = ["scifact", "nfcorpus", "cranfield", "hotpotqa-distractor-100"]


@dataclass
class LabelledSet:
    name: str
    root: Path  # one file per document under here
    doc_path: dict[str, str]  # doc id -> path relative to root
    texts: dict[str, str]  # doc id -> the file's text
    queries: dict[str, str]
    qrels: dict[str, dict[str, float]]  # query id -> relevant doc id -> grade
    code: bool = False  # documents are source files under their repository paths


def _open(path: Path):  # type: ignore[no-untyped-def]
    gz = path.with_name(path.name + ".gz")
    return gzip.open(gz, "rt") if not path.exists() and gz.exists() else open(path)


def _safe_name(doc_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", doc_id)[:80]


def load(folder: Path, name: str, code: bool = False) -> LabelledSet:
    """Read a BEIR folder; write its documents as files under benchmarks/out/corpora."""
    root = OUT / "corpora" / name
    doc_path: dict[str, str] = {}
    texts: dict[str, str] = {}
    with _open(folder / "corpus.jsonl") as fh:
        for line in fh:
            doc = json.loads(line)
            if code:
                rel, text = doc["_id"], doc["text"]
            else:
                rel = f"{_safe_name(doc['_id'])}-{len(doc_path)}.txt"
                text = f"{doc.get('title', '')}\n{doc['text']}\n"
            doc_path[doc["_id"]] = rel
            texts[doc["_id"]] = text
    marker = root / ".rrg-bench-complete"
    if not marker.exists():
        for doc_id, rel in doc_path.items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(texts[doc_id])
        marker.write_text("")
    queries = {}
    with _open(folder / "queries.jsonl") as fh:
        for line in fh:
            q = json.loads(line)
            queries[q["_id"]] = q["text"]
    qrels: dict[str, dict[str, float]] = defaultdict(dict)
    with _open(folder / "qrels.tsv") as fh:
        next(fh)
        for line in fh:
            qid, did, score = line.rstrip("\n").split("\t")
            if float(score) > 0 and did in doc_path:
                qrels[qid][did] = float(score)
    queries = {q: t for q, t in queries.items() if q in qrels}
    return LabelledSet(name, root, doc_path, texts, queries, dict(qrels), code)


def beir(name: str, data: Path = SHARED_DATA) -> LabelledSet:
    return load(data / name, name)


def swebench_tasks(data: Path = SHARED_DATA) -> list[LabelledSet]:
    return [
        load(task, f"swebench-{task.name}", code=True)
        for task in sorted((data / "swebench-lite").iterdir())
        if task.is_dir()
    ]


#: Issue texts are cut here: the longest run to pages of logs that name every module.
ISSUE_CHARS = 2000


def swebench_repos(data: Path = SHARED_DATA) -> list[LabelledSet]:
    """Whole repositories (sympy, sphinx) with many issues each as queries."""
    sets = []
    for repo in sorted((data / "swebench-repos").iterdir()):
        if repo.is_dir():
            s = load(repo, repo.name, code=True)
            s.queries.update({q: t[:ISSUE_CHARS] for q, t in s.queries.items()})
            sets.append(s)
    return sets
