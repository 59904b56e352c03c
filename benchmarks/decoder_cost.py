"""What a decoder costs a search: ``rrg -q Q PATTERN`` with and without ``-z`` over a tree
that holds many binary files, this checkout against an earlier one, interleaved.

Under a decoder rg may read a binary file as text (a ``.gz`` log), so rrg asks rg's walk
of the doubtful files, through a folder of links to them, and a link costs about 0.75 ms
on this machine's disk. A user whose ripgreprc holds ``--search-zip`` pays that on every
search of a tree of images or time-zone files.

Usage: python -m benchmarks.decoder_cost OLD_CHECKOUT [RUNS] [TREE]
(OLD_CHECKOUT: a worktree of the earlier commit; TREE: a folder to search, default a
generated one of 3,000 PNG-like files, 200 sources and 20 compressed logs.)
Each side has its own cache dir, its index built and the query asked once before timing,
so that the runs time a repeated query (the model's part paid already).
"""

from __future__ import annotations

import gzip
import os
import random
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from benchmarks.common import OUT, machine, needs_arguments, rg, rrg, side_env, timed

QUERY = "where is the connection retried"
PATTERN = r"retr\w+"


def generated_tree(root: Path) -> Path:
    """3,000 binary files (a PNG's header, then random bytes), 200 sources, 20 logs
    compressed as logrotate leaves them; written once, reused while present."""
    marker = root / ".done"
    if marker.exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    rnd = random.Random(11)
    for k in range(3_000):
        folder = root / "static" / f"img{k % 30:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"icon{k:05d}.png").write_bytes(
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + rnd.randbytes(2_000)
        )
    src = root / "src"
    src.mkdir()
    for k in range(200):
        body = f"def handler_{k}(request):\n    return retry(request, attempts={k % 5})\n"
        (src / f"module{k:03d}.py").write_text(body * 20)
    logs = root / "logs"
    logs.mkdir()
    for k in range(20):
        text = b"".join(b"INFO served %d\nWARN retried %d\n" % (i, i) for i in range(200))
        (logs / f"app.log.{k}.gz").write_bytes(gzip.compress(text))
    marker.write_text("")
    return root


def main() -> None:
    needs_arguments(1, __doc__)
    old = Path(sys.argv[1]).resolve()
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    tree = (
        Path(sys.argv[3]).resolve() if len(sys.argv) > 3 else generated_tree(OUT / "decoder-tree")
    )
    files = sum(len(names) for _, _, names in os.walk(tree))
    times: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory(dir=OUT) as scratch:
        envs = {}
        for label, pythonpath in (("before", str(old)), ("after", "")):
            env = side_env(Path(scratch), label, pythonpath)
            timed([*rrg(), "--index", "."], tree, env)
            for flags in ([], ["-z"]):
                timed([*rrg(), "-q", QUERY, *flags, PATTERN], tree, env)
            envs[label] = env
        for _ in range(runs):
            for flags in ([], ["-z"]):
                for label, env in envs.items():
                    spent = timed([*rrg(), "-q", QUERY, *flags, PATTERN], tree, env)
                    times.setdefault((label, " ".join(flags)), []).append(spent)
        for flags in ([], ["-z"]):
            spent = timed([rg(), *flags, PATTERN], tree, dict(os.environ))
            times.setdefault(("rg", " ".join(flags)), []).append(spent)
    print(f"{machine()}; {tree} ({files:,} files), {runs} runs a side, p50 seconds")
    print("| flags | before | after | after / before | rg |")
    print("|---|---|---|---|---|")
    for shown_flags in ("", "-z"):
        before = statistics.median(times[("before", shown_flags)])
        after = statistics.median(times[("after", shown_flags)])
        shown = f"`{shown_flags}`" if shown_flags else "(none)"
        print(
            f"| {shown} | {before:.2f} | {after:.2f} | {after / before:.2f}x "
            f"| {times[('rg', shown_flags)][0]:.3f} |"
        )


if __name__ == "__main__":
    main()
