"""Whether rg searches multi-line, which -U alone does not decide: asked of rg itself.

rg's searcher goes multi-line only where its matcher may match the line terminator. The
Rust engine knows which bytes a pattern never matches: ``x*`` cannot match a newline, so
under -U rg searches and prints it line by line, its empty matches too, while ``^$`` may
(a multi-line ``^`` or ``$`` counts as matching one). PCRE2 says nothing of its bytes, so
-P is multi-line wherever -U is, the NUL of --null-data included, where the Rust engine
hardly ever matches one. rg's printer follows the searcher (``multi_line_with_matcher``:
no empty match under -o, none at a line's start under --vimgrep), and so must rrg's own
printer (``--rerank``'s)."""

from __future__ import annotations

import os
import subprocess

from rrg.rg.args import RgArgs
from rrg.rg.preflight import rg_over

#: What rg's --trace log says of its search, rg 15.2.0 (pinned: crates/searcher).
_MULTI_LINE = b"searching via multiline strategy"
_ANY = b"strategy"


def searches_multi_line(rg: str, args: RgArgs) -> bool:
    """Whether rg searches with the user's flags and patterns multi-line: rg's --trace log
    of a search of the empty file says which strategy it took. Where the log names none
    (another rg), the rule rg keeps for nearly every pattern: multi-line under -U, except
    where a NUL ends each line (--null-data)."""
    if not args.turned_on("--multiline"):
        return False
    # --no-pre: a preprocessor fed the empty file may fail before rg chose (zcat).
    done = subprocess.run(
        rg_over(rg, args, [os.devnull], ["--trace", "--no-pre"]),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    if _ANY not in done.stderr:
        return not args.nul_ended
    return _MULTI_LINE in done.stderr
