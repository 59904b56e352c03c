"""The embedding index (``rrg --index --embed``): built, resumed after kill -9, kept fresh
file by file, and never served damaged. Real rrg, real model, real files."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import rrg_cmd, run

QUERIES = ("parse a configuration file", "retry a request after a timeout", "Router")


def _tree(root: Path, files: int = 12) -> Path:
    topics = ["config", "retry", "router", "cache", "session", "logger", "parser", "queue"]
    root.mkdir(parents=True)
    (root / "router.py").write_text(
        "class Router:\n    '''Dispatches a request to the handler of its path.'''\n\n"
        "    def add(self, path, handler):\n        self.routes[path] = handler\n"
    )
    for k in range(files):
        topic = topics[k % len(topics)]
        body = "".join(
            f"def {topic}_step_{j}(value):\n"
            f"    '''Step {j} of the {topic}: {topic} work on the value.'''\n"
            f"    return value + {j}\n\n"
            for j in range(6)
        )
        (root / f"{topic}_{k}.py").write_text(body)
    (root / "notes.md").write_text("Parse a configuration file before a retry.\n\nThen wait.\n")
    return root


def _embed_dir(cache: Path, root: Path) -> Path:
    found = sorted((cache / "index").glob(f"{root.name}-*.sqlite.embed"))
    assert len(found) == 1, found
    return found[0]


def _embedded(stdout: bytes) -> tuple[int, int]:
    """Files embedded and files already embedded, from ``rrg --index``'s report."""
    found = re.search(rb"^embedded .*: (\d+) files \(.*\), (\d+) already embedded", stdout, re.M)
    assert found, stdout
    return int(found[1]), int(found[2])


def _status_line(root: Path, env: dict[str, str]) -> str:
    out = run([*rrg_cmd(), "--index-status", "."], root, env)
    assert out.returncode == 0, out.stderr
    # A line folded to the terminal's width goes on in the lines indented under it.
    unfolded = re.sub(r"\n {4,}", " ", out.stdout.decode())
    lines = [ln for ln in unfolded.splitlines() if ln.strip().startswith("embedded:")]
    assert len(lines) == 1, out.stdout
    return lines[0]


def _answers(root: Path, env: dict[str, str]) -> list[list[str]]:
    answers = []
    for query in QUERIES:
        out = run([*rrg_cmd(), "-q", query, "--files"], root, env)
        assert out.returncode == 0, out.stderr
        answers.append(out.stdout.decode().splitlines())
    return answers


def test_embed_builds_the_embedding_index_and_status_tells_it(
    tmp_path: Path, env: dict[str, str]
) -> None:
    root = _tree(tmp_path / "embedbuild")
    assert run([*rrg_cmd(), "--index", "--no-progress", "."], root, env).returncode == 0
    assert _status_line(root, env).split(":", 1)[1].strip().startswith("no ")
    out = run([*rrg_cmd(), "--index", "--embed", "--no-progress", "."], root, env)
    assert out.returncode == 0, out.stderr
    assert _embedded(out.stdout) == (14, 0)
    assert _status_line(root, env).split(":", 1)[1].strip().startswith("14 of 14 indexed files")
    answers = _answers(root, env)
    assert answers[2][0] == "router.py"


def test_a_resumed_embedding_answers_as_one_uninterrupted_run(
    tmp_path: Path, env: dict[str, str], cache_dir: Path
) -> None:
    """kill -9 in the middle keeps every finished part; the re-run embeds only the rest,
    and every answer equals that of a copy of the tree embedded in one run."""
    killed = _tree(tmp_path / "embedkilled", files=40)
    whole = _tree(tmp_path / "embedwhole", files=40)
    slow = {**env, "RRG_EMBED_BATCH": "2"}
    job = subprocess.Popen(
        [*rrg_cmd(), "--index", "--embed", "--no-progress", "."],
        cwd=killed,
        env=slow,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    parts: list[Path] = []
    while time.monotonic() < deadline and job.poll() is None:
        embed = list((cache_dir / "index").glob(f"{killed.name}-*.sqlite.embed"))
        parts = [p for p in embed[0].iterdir() if p.name.startswith("p")] if embed else []
        if len(parts) >= 3:
            break
        time.sleep(0.01)
    os.kill(job.pid, signal.SIGKILL)
    job.wait()
    assert job.returncode == -signal.SIGKILL, "the job ended before it was killed"
    first = _status_line(killed, env)
    assert "of 42 indexed files" in first and "42 of 42" not in first, first
    again = run([*rrg_cmd(), "--index", "--embed", "--no-progress", "."], killed, slow)
    assert again.returncode == 0, again.stderr
    done, kept = _embedded(again.stdout)
    assert kept >= 3 and done + kept == 42, again.stdout
    assert _status_line(killed, env).split(":", 1)[1].strip().startswith("42 of 42")
    one = run([*rrg_cmd(), "--index", "--embed", "--no-progress", "."], whole, env)
    assert one.returncode == 0, one.stderr
    assert not list(_embed_dir(cache_dir, killed).glob(".tmp-*"))
    assert _answers(killed, env) == _answers(whole, env)


def test_an_edited_file_is_embedded_again_alone(
    tmp_path: Path, env: dict[str, str], cache_dir: Path
) -> None:
    root = _tree(tmp_path / "embededit")
    assert run([*rrg_cmd(), "--index", "--embed", "--no-progress", "."], root, env).returncode == 0
    (root / "retry_1.py").write_text("def retry_forever(request):\n    return request()\n")
    # A root once embedded stays so: a plain --index embeds what changed.
    out = run([*rrg_cmd(), "--index", "--no-progress", "."], root, env)
    assert out.returncode == 0, out.stderr
    assert _embedded(out.stdout) == (1, 13)
    assert _status_line(root, env).split(":", 1)[1].strip().startswith("14 of 14")
    # The edited file's old vectors were merged away: one part, every file once.
    assert len([p for p in _embed_dir(cache_dir, root).iterdir() if p.is_dir()]) == 1


def test_an_index_of_a_part_of_the_root_keeps_the_rest_embedded(
    tmp_path: Path, env: dict[str, str], cache_dir: Path
) -> None:
    """``rrg --index src`` of an embedded root lists src alone: its merge kept only the
    files listed and dropped every other file's vectors (minutes of the model's work on a
    large root), which the next ``rrg --index .`` embedded again."""
    root = _tree(tmp_path / "embedpart")
    (root / "sub").mkdir()
    (root / "sub" / "queue_extra.py").write_text("def queue_more(q):\n    return q\n")
    assert run([*rrg_cmd(), "--index", "--embed", "--no-progress", "."], root, env).returncode == 0
    (root / "sub" / "queue_extra.py").write_text("def queue_less(q):\n    return q[1:]\n")
    for part in ("sub", "router.py"):
        out = run([*rrg_cmd(), "--index", "--no-progress", part], root, env)
        assert out.returncode == 0, out.stderr
        assert _status_line(root, env).split(":", 1)[1].strip().startswith("15 of 15"), part
    assert _embedded(run([*rrg_cmd(), "--index", "--no-progress", "."], root, env).stdout) == (
        0,
        15,
    )


def test_a_damaged_part_is_never_served_and_is_embedded_again(
    tmp_path: Path, env: dict[str, str], cache_dir: Path
) -> None:
    root = _tree(tmp_path / "embeddamage")
    plain = _tree(tmp_path / "embedplain")
    assert run([*rrg_cmd(), "--index", "--embed", "--no-progress", "."], root, env).returncode == 0
    assert run([*rrg_cmd(), "--index", "--no-progress", "."], plain, env).returncode == 0
    (part,) = [p for p in _embed_dir(cache_dir, root).iterdir() if p.is_dir()]
    vectors = part / "vectors.npy"
    data = bytearray(vectors.read_bytes())
    data[-64:] = bytes(64)  # the same size, other values: only the checksum can tell
    vectors.write_bytes(bytes(data))
    assert "damaged part" in _status_line(root, env)
    # Served from the bounded stage, as a root never embedded is.
    assert _answers(root, env) == _answers(plain, env)
    out = run([*rrg_cmd(), "--index", "--no-progress", "."], root, env)
    assert out.returncode == 0, out.stderr
    assert _embedded(out.stdout) == (14, 0)
    status = _status_line(root, env)
    assert "14 of 14" in status and "damaged" not in status, status


@pytest.mark.parametrize(
    ("args", "extra", "message"),
    [
        (["--embed", "."], {}, b"--embed"),
        (["--index", "."], {"RRG_EMBED": "yes"}, b"RRG_EMBED must be a whole number"),
        (["--index", "--embed", "."], {"RRG_EMBED_BATCH": "-1"}, b"RRG_EMBED_BATCH"),
    ],
)
def test_bad_embedding_settings_are_one_line_errors(
    tmp_path: Path, env: dict[str, str], args: list[str], extra: dict[str, str], message: bytes
) -> None:
    root = _tree(tmp_path / "embedbad", files=1)
    out = run([*rrg_cmd(), *args], root, {**env, **extra})
    assert out.returncode == 2
    assert out.stderr.startswith(b"rrg: ") and out.stderr.count(b"\n") == 1, out.stderr
    assert message in out.stderr


def test_an_index_beside_a_job_embedding_the_root_is_no_error(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """An embedded root (the job ahead embeds one on its own) is embedded again by each
    rrg --index; where another process holds the embedding lock (that job, minutes long),
    the index is brought up to date and the embedding left to it, one line said, exit 0.
    Asked for with --embed, the busy lock is the answer: exit 2."""
    import fcntl

    root = _tree(tmp_path / "embedbusy")
    cache = Path(env["RRG_CACHE_DIR"])
    assert run([*rrg_cmd(), "--index", "--embed", "--no-progress", "."], root, env).returncode == 0
    (root / "later.py").write_text("def later():\n    '''Added after the embedding.'''\n")
    busy = {**env, "RRG_INDEX_BUSY_S": "0.2"}
    fd = os.open(f"{_embed_dir(cache, root)}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        out = run([*rrg_cmd(), "--index", "--no-progress", "."], root, busy)
        asked = run([*rrg_cmd(), "--index", "--embed", "--no-progress", "."], root, busy)
    finally:
        os.close(fd)
    assert out.returncode == 0, out.stderr
    assert out.stderr.count(b"\n") == 1 and b"the embedding is left to that job" in out.stderr
    assert out.stdout.startswith(b"indexed ")
    assert asked.returncode == 2 and asked.stderr.startswith(b"rrg: cannot embed it: ")
    again = run([*rrg_cmd(), "--index", "--no-progress", "."], root, env)
    assert again.returncode == 0 and _embedded(again.stdout)[0] == 1  # the new file


def test_the_job_embedding_the_root_is_left_to_it_or_waited_for(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Where the job a search started holds the embedding lock (its build lock held too),
    it embeds the root for up to minutes: rrg --index leaves the embedding to it at once
    (it waited RRG_INDEX_BUSY_S, a minute by default, first), and rrg --index --embed, which
    asked for the embedding, says it waits for the job and does, past RRG_INDEX_BUSY_S,
    then embeds what is left. --index-status says the root is being embedded."""
    import fcntl

    root = _tree(tmp_path / "embedjob")
    cache = Path(env["RRG_CACHE_DIR"])
    assert run([*rrg_cmd(), "--index", "--embed", "--no-progress", "."], root, env).returncode == 0
    (root / "later.py").write_text("def later():\n    '''Added after the embedding.'''\n")
    embed = _embed_dir(cache, root)
    index = embed.with_name(embed.name.removesuffix(".embed"))
    held = []
    for lock in (f"{index}.builder", f"{embed}.lock"):  # as the job holds them
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        held.append(fd)
    try:
        status = _status_line(root, env)
        out = run([*rrg_cmd(), "--index", "--no-progress", "."], root, env, timeout=30)
        asked = subprocess.Popen(
            [*rrg_cmd(), "--index", "--embed", "--no-progress", "."],
            cwd=root,
            env={**env, "RRG_INDEX_BUSY_S": "0.2"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        time.sleep(3)
        waited = asked.poll() is None
    finally:
        for fd in held:
            os.close(fd)
    stdout, stderr = asked.communicate(timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stderr == (
        b"rrg: cannot embed it: the background job a search started is embedding this root;"
        b" the index is up to date, the embedding is left to that job\n"
    )
    assert waited, stderr
    assert stderr == (
        b"rrg: the background job a search started is embedding this root; waiting for it"
        b" (Ctrl-C stops the wait, not the job)\n"
    )
    assert asked.returncode == 0 and _embedded(stdout) == (1, 14)  # the new file
    assert status.endswith("; being embedded now"), status
    assert not _status_line(root, env).endswith("now")
