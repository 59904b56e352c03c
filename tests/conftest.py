"""Shared fixtures: the real rg, the installed rrg, and small corpora written to tmp_path."""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from rrg.rg.binary import find_rg

#: Every rrg a test starts runs its search itself; tests/cli/test_resident.py turns the
#: resident process on, in a folder of its own, and stops it.
os.environ["RRG_RESIDENT"] = "0"

BIN = Path(sys.executable).parent
#: The checkout: tests live a folder per layer under tests/.
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def rg() -> str:
    return find_rg()


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for the session: the model's static table is distilled once (about 15 s)."""
    return tmp_path_factory.mktemp("rrg-cache")


@pytest.fixture(scope="session", autouse=True)
def model_prepared(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The default model's table made before any test (once a machine, 15-30 s): the search
    that makes it says so in a line of its own, which a test reading one search's stderr
    would otherwise meet on a fresh machine, whichever test came first."""
    tree = tmp_path_factory.mktemp("prepare")
    (tree / "one.txt").write_text("one file\n")
    env = {**os.environ, "RRG_CACHE_DIR": str(tmp_path_factory.mktemp("prepare-cache"))}
    subprocess.run([*rrg_cmd(), "--index", "."], cwd=tree, env=env, capture_output=True, check=True)


@pytest.fixture(autouse=True)
def unshared_sessions(monkeypatch: pytest.MonkeyPatch) -> None:
    """The library shares the model's session and tokenizer across a process once a project
    is opened (``share_sessions``); each test starts as a command does, sharing nothing."""
    import rrg.model.encoder as encoder

    monkeypatch.setattr(encoder, "_SESSIONS", None)
    monkeypatch.setattr(encoder, "_TOKENIZERS", {})


@pytest.fixture(autouse=True)
def no_background_jobs(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process searches start no background job either (see ``env``)."""
    monkeypatch.setenv("RRG_INDEX_BACKGROUND", "0")


@pytest.fixture
def env(cache_dir: Path) -> dict[str, str]:
    out = dict(os.environ)
    out["RRG_CACHE_DIR"] = str(cache_dir)
    # Every search waits for its whole index: a loaded machine must not turn a first
    # search into a partial ranking (test_first_use tests the bound itself).
    out["RRG_INDEX_WAIT_S"] = "0"
    # No background jobs (a partial index finished, passages computed ahead) outliving the
    # test that started them: the tests of those jobs turn them on.
    out["RRG_INDEX_BACKGROUND"] = "0"
    # And where a test turns them on, no model run over every passage of its tree: the
    # tests of embedding ahead ask for it.
    out["RRG_EMBED_AHEAD"] = "0"
    out.pop("RIPGREP_CONFIG_PATH", None)
    # Python's streams as users have them: buffered (a CI machine may set it unbuffered).
    out.pop("PYTHONUNBUFFERED", None)
    return out


def on_a_terminal(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, bytes]:
    """The exit code and what a terminal shows of a command run with stdout on one."""
    master, slave = os.openpty()
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.PIPE
    )
    os.close(slave)
    shown = read_until_closed(master)
    os.close(master)
    proc.wait(timeout=60)
    return proc.returncode, shown


def read_until_closed(terminal: int) -> bytes:
    """All a terminal's reader gets until the last writer closes it."""
    shown = b""
    while True:
        try:
            chunk = os.read(terminal, 65536)
        except OSError:  # the terminal closed with the writer
            break
        if not chunk:
            break
        shown += chunk
    return shown


def run(
    cmd: list[str], cwd: Path, env: dict[str, str], stdin: bytes | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        cmd,
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        timeout=timeout,
        **({} if stdin is not None else {"stdin": subprocess.DEVNULL}),
    )


def outcome(done: subprocess.CompletedProcess[bytes]) -> tuple[int, bytes, bytes]:
    """What a run gave: its exit code, standard output and standard error, the three a
    differential test holds rrg's run to (rg's, or another of rrg's)."""
    return done.returncode, done.stdout, done.stderr


def as_at_a_terminal() -> None:
    """A child's Ctrl-C and Ctrl-\\ as at a terminal (``preexec_fn``): a shell's background
    job (a suite started with ``&``) passes SIGINT and SIGQUIT on ignored, and rrg rightly
    keeps a signal its caller ignores ignored, so a test that sends one would wait."""
    for signum in (signal.SIGINT, signal.SIGQUIT):
        signal.signal(signum, signal.SIG_DFL)


def rrg_cmd() -> list[str]:
    script = BIN / "rrg"
    return [str(script)] if script.exists() else [sys.executable, "-m", "rrg"]


SHERLOCK = """\
For the Doctor Watsons of this world, as opposed to the Sherlock
Holmeses, success in the province of detective work must always
be, to a very large extent, the result of luck. Sherlock Holmes
can extract a clew from a wisp of straw or a flake of cigar ash;
but Doctor Watson has to have it taken out for him and dusted,
and exhibited clearly, with a label attached.
"""


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A small tree with the awkward cases rg users meet."""
    root = tmp_path / "tree"
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "sherlock.txt").write_text(SHERLOCK)
    (root / "sub" / "watson.md").write_text("Doctor Watson writes notes.\nNo match here.\n")
    (root / "sub" / "deep" / "code.py").write_text(
        "def find_holmes(x):\n    return 'Holmes' in x\n\n# Watson helper\n"
    )
    (root / "-dash.txt").write_text("a file whose name starts with a dash: Watson\n")
    (root / "naïve café.txt").write_text("non-ASCII name, Watson inside\n")
    (root / "latin1.txt").write_bytes(b"caf\xe9 Watson latin-1 bytes\n")
    (root / "binary.bin").write_bytes(b"Watson\x00\x01\x02 binary Watson\n")
    (root / ".hidden.txt").write_text("hidden Watson\n")
    (root / "ignored.log").write_text("ignored Watson\n")
    (root / ".ignore").write_text("*.log\n")
    (root / "long.txt").write_text("x" * 3000 + " Watson " + "y" * 3000 + "\n")
    return root


def crashed_log(path: Path) -> None:
    """A service's log whose last blocks a crash left as NULs, past rg's first 64 KiB read:
    rg's walk prints its matching lines up to the buffer that holds the first NUL, says it
    stopped there, and gives the file up; named, rg searches it whole. ``ERROR Moriarty``
    matches it alone: twice early, once just before the NUL (in its buffer: rg's walk
    prints it not) and once past it."""
    lines = [b"%05d INFO request served\n" % k for k in range(9_000)]
    lines[100] = b"00100 ERROR Moriarty refused the connection\n"
    lines[5_000] = b"05000 ERROR Moriarty timed out\n"
    lines[8_990] = b"08990 ERROR Moriarty near the NULs\n"
    path.write_bytes(b"".join(lines) + b"\0" * 4096 + b"ERROR Moriarty after the NULs\n")


_TIMING = re.compile(rb'"(elapsed_total|elapsed)":\{[^}]*\}')


def without_timings(data: bytes) -> bytes:
    """rg's JSON carries wall-clock timings, which differ run to run."""
    return _TIMING.sub(b'"elapsed":0', data)


def opening_logger(folder: Path) -> tuple[Path, Path]:
    """A --pre hook that logs every file rg opens and passes it on: the hook's path, and
    the log's (``openings`` reads it)."""
    log = folder / "opened.log"
    hook = folder / "hook.sh"
    hook.write_text(f'#!/bin/sh\necho "$PPID $1" >> {log}\nexec cat "$1"\n')
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR)
    return hook, log


def openings(log: Path) -> list[tuple[str, str]]:
    """(the pid of the rg run, the file) for each file an opening_logger hook saw opened."""
    pairs = [line.split(" ", 1) for line in log.read_text().splitlines()]
    return [(pid, path) for pid, path in pairs]


def q(query: str, *args: str) -> list[str]:
    """An ``rrg -q`` command line."""
    return [*rrg_cmd(), "-q", query, *args]


def make_tree(root: Path, files: int) -> Path:
    """``files`` text files of 60 random words each (seeded) and a numbered needle line."""
    rnd = random.Random(3)
    words = ["alpha", "beta", "gamma", "delta", "kappa", "omega", "sigma", "theta", "zeta"]
    root.mkdir(parents=True, exist_ok=True)
    for k in range(files):
        text = " ".join(rnd.choice(words) for _ in range(60))
        (root / f"f{k:05d}.txt").write_text(f"{text}\nneedle {k}\n")
    return root


def make_code_tree(root: Path) -> Path:
    """A module whose third function answers "parse the configuration file", beside
    modules about other things; every function a ``def`` line."""
    root.mkdir()
    (root / "config.py").write_text(
        'def setup_logging(level):\n    """Set up the log handlers."""\n    return level\n\n\n'
        'def render_template(name):\n    """Render an HTML page."""\n    return name\n\n\n'
        "def parse_config_file(path):\n"
        '    """Parse the configuration file into a dictionary of settings."""\n'
        "    settings = {}\n    for line in open(path):\n"
        "        key, value = line.split('=')\n        settings[key] = value\n"
        "    return settings\n"
    )
    topics = ["bake bread in an oven", "repair a bicycle tyre", "water tomato plants"]
    for topic in topics:
        name = topic.split()[0]
        (root / f"{name}.py").write_text(
            f'def {name}_first(x):\n    """How to {topic}."""\n    return x\n\n\n'
            f'def {name}_second(y):\n    """More on how to {topic}."""\n    return y\n'
        )
    return root


def without_root_powers() -> list[str] | None:
    """A command prefix under which even root obeys file permissions (all capabilities
    dropped), so a mode-000 file is unreadable; None where that cannot be had."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    prefix = [setpriv, "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs"]
    probe = subprocess.run([*prefix, "true"], capture_output=True)
    return prefix if probe.returncode == 0 else None


def model_that_fails_on_long_inputs(folder: Path, positions: int = 4) -> None:
    """A tiny ONNX model that runs on 3-token inputs (so its static table can be made) and
    fails on anything longer than ``positions`` tokens, as a model can fail mid-query
    (given 256, on nothing rrg gives it: a fast model of 8 dimensions)."""
    import json

    import numpy as np

    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    tensors = [
        numpy_helper.from_array(rng.standard_normal((30522, 8)).astype(np.float32), "emb"),
        numpy_helper.from_array(rng.standard_normal((positions, 8)).astype(np.float32), "pos"),
        numpy_helper.from_array(np.array(0, np.int64), "zero"),
        numpy_helper.from_array(np.array(1, np.int64), "one"),
    ]
    nodes = [
        helper.make_node("Gather", ["emb", "input_ids"], ["tok"]),
        helper.make_node("Shape", ["input_ids"], ["shape"]),
        helper.make_node("Gather", ["shape", "one"], ["seq"], axis=0),
        helper.make_node("Range", ["zero", "seq", "one"], ["idx"]),
        helper.make_node("Gather", ["pos", "idx"], ["p"]),
        helper.make_node("Add", ["tok", "p"], ["last_hidden_state"]),
    ]
    ints = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["b", "s"])
        for name in ("input_ids", "attention_mask")
    ]
    out = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["b", "s", 8])
    model = helper.make_model(
        helper.make_graph(nodes, "tiny", ints, [out], tensors),
        opset_imports=[helper.make_opsetid("", 17)],
    )
    model.ir_version = 8
    folder.mkdir()
    onnx.save(model, str(folder / "model.onnx"))
    tokenizer = ROOT / "rrg" / "data" / "minilm-tokenizer.json"
    shutil.copy(tokenizer, folder / "tokenizer.json")
    meta = {"name": "fails-on-long-input", "dims": 8, "pooling": "mean", "max_tokens": 256}
    (folder / "rrg-model.json").write_text(json.dumps(meta))


def flock_waited_for(path: Path) -> bool:
    """Whether a process waits for the flock of ``path``."""
    return bool(flock_waiters(path))


def flock_waiters(path: Path) -> list[int]:
    """The pids of the processes waiting for the flock of ``path`` (Linux's /proc/locks
    lists a waiter as ``N: -> FLOCK ADVISORY WRITE PID MAJ:MIN:INODE ...``)."""
    inode = path.stat().st_ino
    waiters = []
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if len(fields) > 6 and fields[1] == "->":
            found = re.fullmatch(r"[0-9a-f]+:[0-9a-f]+:(\d+)", fields[6])
            if found and int(found.group(1)) == inode:
                waiters.append(int(fields[5]))
    return waiters
