"""End-to-end replay on hotpotqa: a scripted agent following the guide with rrg, and the
same script with plain rg. Per question: were both gold paragraphs seen, in how many
commands. Usage: python -m benchmarks.replay [QUESTIONS]   (writes out/replay.md)
"""

from __future__ import annotations

import os
import sys
from typing import Any

from benchmarks.common import OUT, machine, rg, rrg
from benchmarks.datasets import beir
from benchmarks.replay_agent import rg_agent, rrg_agent, seen_files


def replay(n: int, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    s = beir("hotpotqa-distractor-100")
    env = env or {**os.environ, "RRG_CACHE_DIR": str(OUT / "cache")}
    rows = []
    for qid, question in list(s.queries.items())[:n]:
        gold = [s.doc_path[d] for d in s.qrels[qid]]

        def enough(t, gold=gold):  # type: ignore[no-untyped-def]
            return len(seen_files(t, gold)) == len(gold)

        ours = rrg_agent(rrg(), question, str(s.root), env, enough)
        theirs = rg_agent(rg(), question, str(s.root), env, enough)
        rows.append(
            {
                "qid": qid,
                "rrg_seen": len(seen_files(ours, gold)),
                "rrg_cmds": len(ours.commands),
                "rg_seen": len(seen_files(theirs, gold)),
                "rg_cmds": len(theirs.commands),
                "gold": len(gold),
            }
        )
    return rows


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    rows = replay(n)
    both_rrg = sum(r["rrg_seen"] == r["gold"] for r in rows)
    both_rg = sum(r["rg_seen"] == r["gold"] for r in rows)
    lines = [
        f"Machine: {machine()}. hotpotqa-distractor-100, first {len(rows)} questions.",
        "",
        "| tool | questions with both gold paragraphs seen | gold paragraphs seen | "
        "commands (mean) |",
        "|---|---|---|---|",
        f"| rrg (recall, scoped search, rerank, read) | {both_rrg} | "
        f"{sum(r['rrg_seen'] for r in rows)} of {sum(r['gold'] for r in rows)} | "
        f"{sum(r['rrg_cmds'] for r in rows) / len(rows):.2f} |",
        f"| rg (search, second search, read; 30 lines a command) | {both_rg} | "
        f"{sum(r['rg_seen'] for r in rows)} of {sum(r['gold'] for r in rows)} | "
        f"{sum(r['rg_cmds'] for r in rows) / len(rows):.2f} |",
    ]
    (OUT / "replay.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
