"""rg's config file (``RIPGREP_CONFIG_PATH``), read as rg reads it, so that rrg knows the
flags every rg run it starts will take from it.

rg reads the file itself in every run, so its flags already shape what rg lists, searches
and prints; rrg must know them only where it acts on rg's flags itself: which files rg
skips as binary (``--text``, ``--search-zip``), how its output is cut into records
(``--null``, ``--null-data``) and separated between runs (``--heading``), and the like.
"""

from __future__ import annotations

import os

from rrg.rg.args import RgArgs, parse_rg_args


def config_args(cli: list[str]) -> list[str]:
    """The arguments of rg's config file: one a line, white space trimmed, blank lines and
    lines starting with ``#`` skipped; none under ``--no-config`` or where it cannot be
    read (rg then says so itself)."""
    path = os.environ.get("RIPGREP_CONFIG_PATH")
    if not path or parse_rg_args(cli).has("--no-config"):
        return []
    try:
        with open(path, "rb") as config:
            lines = config.read().splitlines()
    except OSError:
        return []
    return [
        os.fsdecode(line.strip()) for line in lines if line.strip() and line.strip()[:1] != b"#"
    ]


def parse_rg_command(cli: list[str]) -> RgArgs:
    """An rg command line taken apart, with the flags of rg's config file before it."""
    return parse_rg_args(cli, config_args(cli))
