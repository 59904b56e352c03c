"""``rrg --mcp`` beside the CLI (issue 30): the server's first call, then new queries (each
never asked before) through the server and, interleaved, through a fresh ``rrg`` process,
on one tree; and whether both answer the same files in the same order.

Run: python -m benchmarks.mcp_server [N]
(N new queries each way, default 10: sympy's issue titles from ../shared/data/swebench-repos,
the tree written out by benchmarks.datasets.) A few minutes.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from benchmarks.common import machine, rrg
from benchmarks.datasets import swebench_repos


def titles(count: int) -> list[str]:
    sympy = next(s for s in swebench_repos() if s.name.startswith("sympy"))
    seen, out = set(), []
    for qid in sorted(sympy.queries):
        title = sympy.queries[qid].strip().splitlines()[0][:200]
        if title and title not in seen:
            seen.add(title)
            out.append(title)
    return out[: 2 * count]


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    sympy = next(s for s in swebench_repos() if s.name.startswith("sympy"))
    root = sympy.root
    asked = titles(count)
    subprocess.run([*rrg(), "--index", "--no-progress", "."], cwd=root, check=True)
    cli_times: list[float] = []
    server_times: list[float] = []
    same = 0
    first: dict[str, float] = {}

    async def session() -> None:
        nonlocal same
        params = StdioServerParameters(command=rrg()[0], args=["--mcp", str(root)])
        started = time.perf_counter()
        async with Client(params) as client:
            first["connect"] = time.perf_counter() - started
            for k, query in enumerate(asked):
                if k % 2 == 0:
                    t = time.perf_counter()
                    result: Any = await client.call_tool("files", {"query": query, "limit": 10})
                    seconds = time.perf_counter() - t
                    if k == 0:
                        first["call"] = seconds
                    else:
                        server_times.append(seconds)
                    served = [ln for ln in result.content[0].text.splitlines() if ln[:1] != "["]
                    cli = subprocess.run(
                        [*rrg(), "-q", query, "--files", "--limit", "10"],
                        cwd=root,
                        capture_output=True,
                        text=True,
                    ).stdout.splitlines()
                    same += served == cli
                else:
                    t = time.perf_counter()
                    subprocess.run(
                        [*rrg(), "-q", query, "--files", "--limit", "10"],
                        cwd=root,
                        capture_output=True,
                    )
                    cli_times.append(time.perf_counter() - t)

    anyio.run(session)
    print(f"rrg --mcp beside the CLI on {root.name} ({len(sympy.doc_path)} files); {machine()}\n")
    print(
        f"- server start and connect: {first['connect']:.2f} s; first call (files): "
        f"{first['call']:.2f} s"
    )
    print(
        f"- a new query, p50 of {len(server_times)}: server "
        f"{statistics.median(server_times):.2f} s, CLI fresh process "
        f"{statistics.median(cli_times):.2f} s (p50 of {len(cli_times)})"
    )
    print(f"- same ten files in the same order as the CLI: {same} of {count}")


if __name__ == "__main__":
    main()
