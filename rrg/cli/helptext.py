"""``rrg --help`` and the README's option table, both rendered from the one option table."""

from __future__ import annotations

import textwrap

from rrg import __version__
from rrg.cli.options import OPTIONS

USAGE = """\
Usage: rrg -q QUERY [RG OPTIONS] PATTERN [PATH...]   search, best files first
       rrg -q QUERY [-g GLOB...]                     the best paragraphs here
       rrg -q QUERY --files [PATH...]                files, best first
       rrg [RG ARGS...]                              exactly rg (no rrg option)
"""
#: Columns of --help, as rg's own help keeps them: read on an 80-column terminal without a
#: line wrapping mid-word under the next option's name.
HELP_WIDTH = 79
#: Where an option's description starts.
_DESCRIPTION_AT = 31

README_START = "<!-- options: `python -m rrg.cli.helptext` writes this table; a test checks it -->"
README_END = "<!-- end of options -->"


def help_text(rg_name: str) -> str:
    lines = [
        f"rrg {__version__}: ripgrep in relevance order.",
        "",
        USAGE,
        "rrg's options (anywhere before a bare --; the rest goes to rg unchanged):",
    ]
    for opt in OPTIONS:
        indent = "" if opt.short else "    "
        described = textwrap.wrap(
            opt.help_text(), HELP_WIDTH - _DESCRIPTION_AT, break_on_hyphens=False
        )
        lines.append(f"  {indent + opt.spelling:<28} {described[0]}")
        lines += [" " * _DESCRIPTION_AT + more for more in described[1:]]
    lines += [
        "",
        "Differences from rg: -q is rrg's --query, not rg's quiet mode (use --quiet);",
        "-h/--help and --version are rrg's. With -q, --sort/--sortr (but none) are",
        "refused, since they would undo the relevance order, and --passthru, which",
        "prints every file whole; -j/--threads is taken, and rg runs on one thread (as",
        "rg's own --sort does).",
        "",
        "Shell completions (rg's flags and rrg's options): rrg --generate complete-bash",
        "(or complete-zsh, complete-fish).",
        "",
        f"rg's own help: {rg_name} --help",
    ]
    return "\n".join(lines) + "\n"


def readme_table() -> str:
    """The README's option table, between its markers."""
    rows = [README_START, "| rrg option | what it does |", "|---|---|"]
    for opt in OPTIONS:
        text = opt.help_text().replace("|", "\\|")
        example = f" Example: {opt.readme}" if opt.readme else ""
        rows.append(f"| `{opt.spelling.replace('|', chr(92) + '|')}` | {text}{example} |")
    rows.append(README_END)
    return "\n".join(rows) + "\n"


def main() -> None:
    """Rewrite the option table inside README.md."""
    from pathlib import Path

    readme = Path("README.md")
    text = readme.read_text()
    head, _, rest = text.partition(README_START)
    _, _, tail = rest.partition(README_END + "\n")
    readme.write_text(head + readme_table() + tail)
    print("rewrote the option table in README.md")


if __name__ == "__main__":
    main()
