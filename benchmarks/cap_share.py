"""The cap's share a file (issue 35, item 3): semble-code's evidence.py with each share.

A share of K lines a file selects the same files within the cap as ``-m K`` given by the
user (each file prints its first K matching lines; where the shares do not fill the cap,
every file with matches prints anyway), so each K is run as ``rrg ... -m K`` through a shim
put first on PATH; "default" runs rrg as installed (its own FILE_SHARE), "none" as
``-m 999999`` (no share: the first files may take the whole cap).

Run: python -m benchmarks.cap_share DATA [none default 1 2 3 5 ...]
(DATA: materialize.py's OUT, built with --whole; the dev half is the repositories at even
places in name order). Prints evidence.py's table for each share; its hit rate is the
share of queries with a labelled file's line within the 30 lines.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from benchmarks.common import BIN, OUT, SHARED_DATA, needs_arguments

SHIM = """#!/bin/sh
for a in "$@"; do
  if [ "$a" = "--no-heading" ]; then exec {rrg} "$@" -m {k}; fi
done
exec {rrg} "$@"
"""


def run(data: str, share: str) -> None:
    env = dict(os.environ, RRG_INDEX_WAIT_S="0")
    env.setdefault("RRG_CACHE_DIR", str(OUT / "cache-cap-share"))
    if share != "default":
        shim = OUT / f"shim-{share}"
        shim.mkdir(parents=True, exist_ok=True)
        k = "999999" if share == "none" else share
        (shim / "rrg").write_text(SHIM.format(rrg=BIN / "rrg", k=k))
        (shim / "rrg").chmod(0o755)
        env["PATH"] = f"{shim}{os.pathsep}{BIN}{os.pathsep}{env['PATH']}"
    else:
        env["PATH"] = f"{BIN}{os.pathsep}{env['PATH']}"
    print(f"\n== share {share}", flush=True)
    script = SHARED_DATA / "semble-code" / "evidence.py"
    subprocess.run([sys.executable, str(script), data], env=env, check=True)


def main() -> None:
    needs_arguments(1, __doc__)
    data, shares = sys.argv[1], sys.argv[2:] or ["none", "default"]
    OUT.mkdir(exist_ok=True)
    if not Path(data).is_dir():
        sys.exit(f"cap_share: {data} is not a folder (materialize.py's OUT)")
    for share in shares:
        run(data, share)


if __name__ == "__main__":
    main()
