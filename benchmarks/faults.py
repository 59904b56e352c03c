"""Fault campaign: kills, corruptions and bad inputs, each tried and its outcome recorded.

Usage: python -m benchmarks.faults   (prints a Markdown table)
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from benchmarks.common import OUT, machine, rg, rrg


def main() -> None:
    root = OUT / "faults-tree"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    rnd = random.Random(2)
    for k in range(4000):
        (root / f"f{k:05d}.txt").write_text(f"{rnd.random()} needle {k}\n")
    cache = OUT / "faults-cache"
    shutil.rmtree(cache, ignore_errors=True)
    env = {**os.environ, "RRG_CACHE_DIR": str(cache)}
    rows: list[tuple[str, str, str, bool]] = []

    def call(
        *args: str, extra_env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [*rrg(), *args],
            cwd=root,
            env={**env, **(extra_env or {})},
            capture_output=True,
            stdin=subprocess.DEVNULL,
        )

    def warned(out: subprocess.CompletedProcess[bytes]) -> bool:
        """An rrg: warning on stderr ([rrg: ...] notices are not warnings)."""
        return any(line.startswith(b"rrg:") for line in out.stderr.splitlines())

    def record(name: str, out: subprocess.CompletedProcess[bytes], ok: bool) -> None:
        first = out.stderr.decode(errors="replace").strip().splitlines()[:1]
        rows.append((name, str(out.returncode), first[0][:90] if first else "", ok))

    reference = call("-q", "needle 7", "--files").stdout
    kills = 0
    for delay in [rnd.uniform(0.2, 2.0) for _ in range(10)]:
        call("--index-clear", ".")
        proc = subprocess.Popen(
            [*rrg(), "--index", "."],
            cwd=root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(delay)
        killed = proc.poll() is None
        if killed:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
        if not killed:
            continue  # the build won the race: no fault happened, so no row
        out = call("-q", "needle 7", "--files")
        record(
            f"cold build killed (-9) at {delay:.1f} s, then a search",
            out,
            out.returncode == 0 and out.stdout == reference,
        )
    status = call("--index-status", ".").stdout.decode()
    index = Path(status.split("file: ")[1].splitlines()[0])
    for damage in ("truncated", "zeroed", "random bytes", "older format"):
        size = index.stat().st_size
        if damage == "truncated":
            with open(index, "r+b") as fh:
                fh.truncate(size // 2)
        elif damage == "zeroed":
            index.write_bytes(b"\0" * size)
        elif damage == "random bytes":
            index.write_bytes(rnd.randbytes(size))
        else:
            db = sqlite3.connect(index)
            db.execute("PRAGMA user_version=2")
            db.commit()
            db.close()
        for side in ("-wal", "-shm"):
            Path(f"{index}{side}").unlink(missing_ok=True)
        out = call("-q", "needle 7", "--files")
        record(
            f"index {damage}",
            out,
            out.returncode == 0 and out.stdout == reference and out.stderr.count(b"\n") == 1,
        )
    # Segments: damage one array of the live segment (the registry names it, so a reader
    # meets the damage), or leave a half-written segment no registry names.
    for damage in ("segment array truncated", "segment array missing", "orphan segment"):
        call("-q", "needle 7", "--files")
        folder = Path(f"{index}.segments")
        segment = next(p for p in folder.iterdir() if not p.name.startswith("."))
        if damage == "segment array truncated":
            target = segment / "post_doc.npy"
            with open(target, "r+b") as fh:
                fh.truncate(target.stat().st_size // 2)
        elif damage == "segment array missing":
            (segment / "static.npy").unlink()
        else:
            orphan = folder / "s999999999-00000000"
            shutil.copytree(segment, orphan)
            (orphan / "kind.npy").write_bytes(b"half")
        out = call("-q", "needle 7", "--files")
        lines = out.stderr.count(b"\n")
        record(
            damage,
            out,
            out.returncode == 0
            and out.stdout == reference
            and lines == (0 if damage == "orphan segment" else 1),
        )
    broken = OUT / "faults-broken-model"
    broken.mkdir(exist_ok=True)
    (broken / "model.onnx").write_bytes(b"not onnx")
    shutil.copy(
        Path(__file__).resolve().parent.parent / "rrg" / "data" / "minilm-tokenizer.json",
        broken / "tokenizer.json",
    )
    blocked = OUT / "faults-blocked"
    blocked.write_text("a file where a directory should be")
    rg_decides = [
        ("invalid regex (rg's message)", ["-q", "x", "(unclosed"]),
        ("unknown option (rg's message)", ["-q", "x", "--no-such-flag", "y"]),
        ("missing pattern file (rg's message)", ["-q", "x", "-f", "no-such-file"]),
    ]
    for name, args in rg_decides:
        out = call(*args)
        plain = subprocess.run(
            [rg(), *args[2:]], cwd=root, capture_output=True, stdin=subprocess.DEVNULL
        )
        record(name, out, out.returncode == 2 and out.stderr == plain.stderr)
    bad_inputs = [
        ("--limit -1", ["-q", "x", "--limit", "-1", "y"], {}, 2),
        ("--pool 0", ["-q", "x", "--pool", "0", "y"], {}, 2),
        ("empty query", ["-q", "", "y"], {}, 2),
        ("model name that does not exist", ["-q", "x", "--model", "nope", "y"], {}, 2),
        # A pattern found in the tree: where nothing matches, rrg ends as rg does before it
        # loads any model (How -q works, step 5), and the fault would not be met.
        (
            "model folder with a broken ONNX file",
            ["-q", "x", "--model", str(broken), "needle"],
            {},
            2,
        ),
        (
            "unwritable cache dir (search goes on)",
            ["-q", "x", "needle"],
            {"RRG_CACHE_DIR": str(blocked / "c")},
            0,
        ),
    ]
    for name, args, extra, code in bad_inputs:
        out = call(*args, extra_env=extra)
        ok = out.returncode == code and b"Traceback" not in out.stderr
        ok &= out.stderr.count(b"\n") <= 2
        record(name, out, ok)
    # rrg's own copy of the model's graph cut short (bytes lost after its rename): made
    # again from the model, the stage kept, nothing said.
    graphs = list((cache / "models").glob("optimised-v3-*/model-q8.onnx"))  # queries run it
    for graph in graphs:
        graph.write_bytes(graph.read_bytes()[:1000])
    out = call("-q", "a question never asked before", "needle")
    remade = bool(graphs) and all(g.stat().st_size > 1000 for g in graphs)
    ok = out.returncode == 0 and not warned(out) and remade
    record("rrg's optimised copy of the model cut short (made again)", out, ok)
    # The root's vector cache overwritten with bytes that are no database: made anew by the
    # search's first write, so that the next query finds what this one's model read.
    for vectors in (cache / "index").glob("*.vectors.sqlite"):
        vectors.write_bytes(rnd.randbytes(3000))
    out = call("-q", "one more question never asked", "needle")
    kept = 0
    for vectors in (cache / "index").glob("*.vectors.sqlite"):
        db = sqlite3.connect(vectors)
        with contextlib.suppress(sqlite3.Error):  # still damaged: nothing kept
            kept += db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
        db.close()
    record(
        "vector cache overwritten (made anew)",
        out,
        out.returncode == 0 and not warned(out) and kept > 0,
    )
    print(f"machine: {machine()}; tree: 4,000 files; builds killed: {kills} of 10\n")
    print("| fault | exit | first stderr line | outcome as required |")
    print("|---|---|---|---|")
    for name, exit_code, line, ok in rows:
        print(f"| {name} | {exit_code} | `{line}` | {'yes' if ok else 'NO'} |")


if __name__ == "__main__":
    main()
