"""What rrg must know of rg's own flags to split and read an rg command line.

Kept as plain data (no imports) for the pass-through path. ``tests/test_rgflags.py`` reads
the installed rg's ``--help`` and fails when these tables drift from it.
"""

from __future__ import annotations

#: rg flags whose value is the next argument (or follows ``=`` for long ones).
VALUE_SHORT = frozenset("efEmjgtTdABCMr")
VALUE_LONG = frozenset({
    "--regexp", "--file", "--pre", "--pre-glob", "--dfa-size-limit", "--encoding", "--engine",
    "--max-count", "--regex-size-limit", "--threads", "--glob", "--iglob", "--ignore-file",
    "--max-depth", "--max-filesize", "--type", "--type-not", "--type-add", "--type-clear",
    "--after-context", "--before-context", "--color", "--colors", "--context",
    "--context-separator", "--field-context-separator", "--field-match-separator",
    "--hostname-bin", "--hyperlink-format", "--max-columns", "--path-separator", "--replace",
    "--sort", "--sortr", "--generate",
})

#: Flags that choose which files rg searches; they also shape ``rg --files``.
FILE_SELECTION_LONG = frozenset({
    "--glob", "--iglob", "--type", "--type-not", "--type-add", "--type-clear", "--max-depth",
    "--max-filesize", "--ignore-file", "--hidden", "--no-hidden", "--follow", "--no-follow",
    "--no-ignore", "--ignore", "--no-ignore-dot", "--ignore-dot", "--no-ignore-exclude",
    "--ignore-exclude", "--no-ignore-files", "--ignore-files", "--no-ignore-global",
    "--ignore-global", "--no-ignore-parent", "--ignore-parent", "--no-ignore-vcs",
    "--ignore-vcs", "--no-require-git", "--require-git", "--one-file-system",
    "--no-one-file-system", "--glob-case-insensitive", "--no-glob-case-insensitive",
    "--ignore-file-case-insensitive", "--no-ignore-file-case-insensitive", "--unrestricted",
    "--no-config", "--search-zip", "--no-search-zip", "--pre", "--pre-glob",
})

SHORT_TO_LONG = {
    "e": "--regexp", "f": "--file", "E": "--encoding", "m": "--max-count", "j": "--threads",
    "g": "--glob", "t": "--type", "T": "--type-not", "d": "--max-depth", "A": "--after-context",
    "B": "--before-context", "C": "--context", "M": "--max-columns", "r": "--replace",
    "z": "--search-zip", "s": "--case-sensitive", "F": "--fixed-strings", "i": "--ignore-case",
    "v": "--invert-match", "x": "--line-regexp", "U": "--multiline", "P": "--pcre2",
    "S": "--smart-case", "a": "--text", "w": "--word-regexp", "L": "--follow", ".": "--hidden",
    "u": "--unrestricted", "b": "--byte-offset", "h": "--help", "n": "--line-number",
    "N": "--no-line-number", "0": "--null", "o": "--only-matching", "p": "--pretty",
    "q": "--quiet", "H": "--with-filename", "I": "--no-filename", "c": "--count",
    "l": "--files-with-matches", "V": "--version",
}
