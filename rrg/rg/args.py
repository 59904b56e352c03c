"""Reading an rg command line: its patterns, its paths, and the flags that change how rrg
must drive rg (file selection, output mode, binary handling).

rg resolves conflicting mode flags by "last one wins"; so does this reader.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from rrg.errors import RrgError
from rrg.rg.flags import (
    FILE_SELECTION_LONG,
    LONG_ALIASES,
    SHORT_TO_LONG,
    VALUE_LONG,
    VALUE_SHORT,
)

#: Output modes where every printed line (or NUL-ended record) stands for one file.
RECORD_MODES = frozenset(
    {"--files-with-matches", "--files-without-match", "--count", "--count-matches"}
)


#: The flags that shape each printed match, in the order rrg names them when it refuses them.
_MATCH_SHAPES = (
    "--vimgrep",
    "--only-matching",
    "--replace",
    "--invert-match",
    "--byte-offset",
    "--column",
)
_CONTEXT = ("--after-context", "--before-context", "--context")
_ESCAPES = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"0": b"\0", b"\\": b"\\"}
_HEX = b"0123456789abcdefABCDEF"


def unescape(value: str) -> bytes:
    """A separator as rg reads it (grep-cli's ``unescape``): ``\\n``, ``\\r``, ``\\t``,
    ``\\0``, ``\\\\`` and ``\\xHH`` become their bytes; any other backslash stays as typed."""
    data = os.fsencode(value)
    out = bytearray()
    i = 0
    while i < len(data):
        pair = data[i + 1 : i + 2]
        if data[i : i + 1] == b"\\" and pair in _ESCAPES:
            out += _ESCAPES[pair]
            i += 2
        elif (
            data[i : i + 2] == b"\\x"
            and len(data[i + 2 : i + 4]) == 2
            and all(c in _HEX for c in data[i + 2 : i + 4])
        ):
            out.append(int(data[i + 2 : i + 4], 16))
            i += 4
        else:
            out.append(data[i])
            i += 1
    return bytes(out)


def _no(name: str) -> str:
    """A long flag's negation: ``--no-column`` for ``--column``."""
    return f"--no-{name[2:]}"


def _environment_allows_colour() -> bool:
    """rg's rule for a terminal (its termcolor crate's ``ColorChoice::Auto``): no colour
    where TERM is unset or ``dumb`` (Emacs's shell, many agents' terminals) or NO_COLOR is
    set, even empty."""
    return os.environ.get("TERM", None) not in (None, "dumb") and "NO_COLOR" not in os.environ


@dataclass
class RgArgs:
    """An rg command line taken apart; ``flags`` keeps every flag with its value, in order."""

    flags: list[tuple[str, str | None]] = field(default_factory=list)
    positionals: list[str] = field(default_factory=list)
    patterns_by_flag: list[str] = field(default_factory=list)
    pattern_files: list[str] = field(default_factory=list)
    # Where each pattern file's name stands in the argument list: (argument, offset in it).
    pattern_file_spots: list[tuple[int, int]] = field(default_factory=list)
    after_dashdash: bool = False
    # The first this many flags came from rg's config file (RIPGREP_CONFIG_PATH): they shape
    # what rg does, but rg reads them itself, so rrg never passes them on.
    config_count: int = 0
    # Each flag as typed (``-m``, ``--maxdepth``), beside ``flags``: rg names a flag so in
    # its errors, and rrg's runs pass it on so.
    spellings: list[str] = field(default_factory=list)

    # ---- derived views -------------------------------------------------------------
    @property
    def cli_flags(self) -> list[tuple[str, str | None]]:
        """The flags of the command line itself (not rg's config file's)."""
        return self.flags[self.config_count :]

    def has(self, *names: str) -> bool:
        return any(name in names for name, _ in self.flags)

    def turned_on(self, name: str) -> bool:
        """Whether the last of a switch and its opposite (``--pre`` and ``--no-pre``,
        ``--no-messages`` and ``--messages``) leaves it given, as rg reads them: a config
        file's flag turned off on the command line is off."""
        opposite = f"--{name[5:]}" if name.startswith("--no-") else _no(name)
        return self._switch(False, (name,), (opposite,))

    @property
    def pattern(self) -> str | None:
        """The positional pattern, or None when -e/-f gave the patterns (or none was given)."""
        if self.patterns_by_flag or self.pattern_files or self.files_mode:
            return None
        return self.positionals[0] if self.positionals else None

    @property
    def paths(self) -> list[str]:
        if self.patterns_by_flag or self.pattern_files or self.files_mode:
            return list(self.positionals)
        return list(self.positionals[1:])

    @property
    def pattern_args(self) -> list[str]:
        """The positional pattern as a flag (``--regexp``), for runs whose positionals are
        files; empty where -e/-f gave the patterns (they are among the flags)."""
        return ["--regexp", self.pattern] if self.pattern is not None else []

    def with_paths(self, paths: list[str]) -> RgArgs:
        """The same command line searching ``paths`` instead of its own PATHs."""
        kept = len(self.positionals) - len(self.paths)
        return replace(self, positionals=[*self.positionals[:kept], *paths])

    @property
    def has_pattern(self) -> bool:
        return bool(
            self.patterns_by_flag
            or self.pattern_files
            or (self.positionals and not self.files_mode)
        )

    @property
    def files_mode(self) -> bool:
        """rg lists files: ``--files`` comes after every other mode flag (rg keeps the
        last: ``--files -l`` searches, with its first positional as the pattern, where
        ``-l --files`` lists)."""
        listing = False
        for name, _ in self.flags:
            if name == "--files":
                listing = True
            elif name in RECORD_MODES or name == "--json":
                listing = False
        return listing

    @property
    def info_mode(self) -> bool:
        """rg reports on itself (its file types, its PCRE2, man page or completions, its
        version: ``-V``, rrg's own ``--version`` aside) and searches nothing."""
        return self.has("--type-list", "--pcre2-version", "--generate", "--version")

    @property
    def path_separator(self) -> bytes | None:
        """The byte rg prints between a path's parts instead of ``/`` (the last
        ``--path-separator``); None for rg's own. rg refuses any other length than one."""
        value = None
        for name, given in self.flags:
            if name == "--path-separator":
                value = given
        if not value:
            return None
        sep = os.fsencode(value)
        if len(sep) != 1:
            raise RrgError(f"--path-separator must be exactly one byte, not {value!r}")
        return sep

    @property
    def field_separators(self) -> tuple[bytes, bytes]:
        """What rg prints after each field of a line's prefix (path, line number, column):
        on a matching line (the last ``--field-match-separator``, ``:`` by default) and on
        a context line (``--field-context-separator``, ``-``), read as rg reads them."""
        match, context = b":", b"-"
        for name, value in self.flags:
            if name == "--field-match-separator" and value is not None:
                match = unescape(value)
            elif name == "--field-context-separator" and value is not None:
                context = unescape(value)
        return match, context

    @property
    def output_mode(self) -> str:
        """What rg prints: a RECORD_MODES member, ``--json``, ``--quiet`` or ``lines``. The
        last mode flag given decides (``--no-json`` goes back to lines), but ``--quiet``
        silences any mode wherever it stands, --json's alone printing on (its summary)."""
        mode = self._mode_given
        return "--quiet" if self.has("--quiet") and mode != "--json" else mode

    @property
    def counts_zeros(self) -> bool:
        """Whether rg prints a count of 0 for each file without a match: ``--include-zero``
        where rg prints counts (-c, --count-matches); under -l, --json or lines it changes
        nothing."""
        return self.turned_on("--include-zero") and self.output_mode in (
            "--count",
            "--count-matches",
        )

    @property
    def lists_files_without_match(self) -> bool:
        """Whether rg prints the files without a match (``--files-without-match`` the last
        mode given; ``--quiet`` only silences it)."""
        return self._mode_given == "--files-without-match"

    @property
    def _mode_given(self) -> str:
        """The last mode flag given: a RECORD_MODES member, ``--json``, or ``lines``
        (``--no-json`` goes back to lines)."""
        mode = "lines"
        for name, _ in self.flags:
            if name in RECORD_MODES or name == "--json":
                mode = name
            elif name == "--no-json":
                mode = "lines"
        return mode

    @property
    def max_columns(self) -> int:
        """The last ``-M``/``--max-columns`` (0: none, as rg reads 0)."""
        limit = 0
        for name, value in self.flags:
            if name == "--max-columns" and value is not None:
                limit = int(value) if value.isdigit() else 0
        return limit

    @property
    def nul_ended(self) -> bool:
        """Whether NUL ends each line rg reads and writes (``--null-data``): a count record
        then ends with one too, a NUL marks no file binary, and a "line" is a record. A
        later ``--crlf`` sets the line terminator again (rg's flags each set it, the last
        wins; ``--no-crlf`` sets none back)."""
        return self._switch(False, ("--null-data",), ("--crlf",))

    @property
    def crlf_ended(self) -> bool:
        """Whether rg reads CRLF as a line's end (``--crlf``; ``--no-crlf`` turns it off).
        Its coloured output then ends every line with CRLF, a line that ended with LF in
        its file too, where its plain output keeps each line's own end. A later
        ``--null-data`` turns it off (``nul_ended``)."""
        return self._switch(False, ("--crlf",), ("--no-crlf", "--null-data"))

    @property
    def binary_ok(self) -> bool:
        """Whether rg would search binary files it finds while walking a directory."""
        if self.nul_ended:
            return True
        ok = False
        unrestricted = 0
        for name, _ in self.flags:
            if name in ("--text", "--binary"):
                ok = True
            elif name in ("--no-text", "--no-binary"):
                ok = False
            elif name == "--unrestricted":
                unrestricted += 1
                ok = ok or unrestricted >= 3
        return ok

    @property
    def prints_context(self) -> bool:
        """Whether rg prints lines of context: ``-A`` and ``-B`` each override ``-C``
        whatever their order, and each flag's last count counts (rg's ``ContextMode``), so
        ``-C 1 -C 0`` and ``-C 2 -A 0 -B 0`` print none."""
        last = {name: value for name, value in self.flags if name in _CONTEXT}
        both = last.get("--context")
        after = last.get("--after-context", both)
        before = last.get("--before-context", both)
        return any(count not in (None, "0") for count in (after, before))

    @property
    def stats_block(self) -> bool:
        """Whether rg ends its output with a ``--stats`` block (the last of --stats and
        --no-stats; --json carries its statistics in its summary message instead)."""
        wanted = self.turned_on("--stats")
        return wanted and self.output_mode != "--json"

    @property
    def match_shapes(self) -> list[str]:
        """The flags given that shape each printed match (``--vimgrep``, ``-o``, ``-r``,
        ``-v``, ``-b``, ``--column``), each as its long name, where the last of it and its
        ``--no-`` form turned it on: a search without a PATTERN has no match to shape."""
        # -r '' too: it replaces each match with nothing.
        return [name for name in _MATCH_SHAPES if self.turned_on(name)]

    @property
    def decodes_files(self) -> bool:
        """Whether rg searches what a decompressor (``-z``), a preprocessor (``--pre``) or
        an encoding the user names (``-E utf-16``) makes of a file rather than its bytes:
        then a file whose bytes look binary may be text to rg (a ``.gz`` log, a file of
        NULs read as UTF-16), and only rg knows which it takes for binary."""
        return any(self._decoders())

    @property
    def unzips_only(self) -> bool:
        """Whether ``-z`` is rg's only decoder: it decompresses the files whose names say
        so (``*.gz``, ...) and reads every other file as it would without ``-z``."""
        unzipped, preprocessed, encoded = self._decoders()
        return unzipped and not preprocessed and not encoded

    def _decoders(self) -> tuple[bool, bool, bool]:
        """Which of ``-z``, ``--pre`` and a named encoding the flags leave on."""
        unzipped = preprocessed = encoded = False
        for name, value in self.flags:
            if name == "--search-zip":
                unzipped = True
            elif name == "--no-search-zip":
                unzipped = False
            elif name == "--pre":
                preprocessed = bool(value)  # an empty COMMAND turns it off, as --no-pre
            elif name == "--no-pre":
                preprocessed = False
            elif name == "--encoding":
                encoded = value != "auto"  # auto: what the index assumes (a BOM or UTF-8)
            elif name == "--no-encoding":
                encoded = False
        return unzipped, preprocessed, encoded

    def colour_wanted(self, stdout_is_tty: bool) -> bool:
        """Whether rg would colour its output (``--color``, ``-p``, else a terminal that
        takes colour)."""
        return self.colour_by_flags(stdout_is_tty and _environment_allows_colour())

    def colour_by_flags(self, auto: bool) -> bool:
        """Whether ``--color`` and ``-p`` ask for colour, where ``auto`` is what their
        absence (or ``--color=auto``) gives."""
        wanted = auto
        for name, value in self.flags:
            if name == "--color" and value is not None:
                wanted = value in ("always", "ansi") or (value == "auto" and auto)
            elif name == "--pretty":
                wanted = True
        return wanted

    def heading(self, stdout_is_tty: bool) -> bool:
        """Whether rg would print each file's path above its lines (the last of
        ``--heading``, ``-p`` and ``--no-heading``, else a terminal), never under
        ``--vimgrep``, wherever it stands (rg's ``HiArgs``)."""
        asked = self._switch(stdout_is_tty, ("--heading", "--pretty"), ("--no-heading",))
        return asked and not self.has("--vimgrep")

    def line_numbers(self, stdout_is_tty: bool) -> bool:
        """Whether rg would number its lines: the last of ``-n``, ``-p`` and ``-N`` where
        one is given, whatever else is (``-N --vimgrep`` numbers none); else a terminal,
        ``--column`` or ``--vimgrep`` (rg's ``HiArgs``)."""
        given = None
        for name, _ in self.flags:
            if name in ("--line-number", "--pretty"):
                given = True
            elif name == "--no-line-number":
                given = False
        if given is not None:
            return given
        return stdout_is_tty or self.has("--vimgrep") or self.column_shown

    @property
    def column_shown(self) -> bool:
        """Whether rg prints each match's column: the last of ``--column`` and
        ``--no-column``, else ``--vimgrep`` (``--vimgrep --no-column`` shows none)."""
        return self._switch(self.has("--vimgrep"), ("--column",), ("--no-column",))

    def filenames(self, default: bool) -> bool:
        """Whether rg names each line's file: the last of -H and -I decides, rg's config
        file's too; where neither is given, --vimgrep names it, else ``default`` (rg's own
        rule for the PATHs given: one file is not named)."""
        named = default or self.has("--vimgrep")
        return self._switch(named, ("--with-filename",), ("--no-filename",))

    def _switch(self, default: bool, on: tuple[str, ...], off: tuple[str, ...]) -> bool:
        """A setting the last of its flags decides, as rg reads them; ``default`` without."""
        value = default
        for name, _ in self.flags:
            if name in on:
                value = True
            elif name in off:
                value = False
        return value

    def file_selection_args(self) -> list[str]:
        """The flags that shape which files rg searches, and whether it says what it cannot
        read (``--no-messages``), for ``rg --files``."""
        told = ("--messages", "--no-messages")
        return self.typed_args(lambda name: name in FILE_SELECTION_LONG or name in told)

    def search_args(self) -> list[str]:
        """Every flag as given, for the ordered search runs (paths and pattern come after)."""
        return self.typed_args(lambda name: True)

    def count_args(self) -> list[str]:
        """``search_args`` for a count pass: less ``--quiet``, which would silence the
        counts the pass reads (it reaches one with ``--json``, which prints on). Where each
        match prints as a line of its own, the pass counts matches (rg counts them under
        ``-o``; ``--vimgrep`` alone it counts by line); elsewhere lines, as the cap does
        (``-o`` under ``--json`` or with context, where rg's counts would be matches)."""
        each = self.prints_each_match
        args = self.typed_args(
            lambda name: name != "--quiet" and (each or name != "--only-matching")
        )
        return [*args, "--only-matching"] if each else args

    @property
    def prints_each_match(self) -> bool:
        """Whether rg prints each match as one output line of its own (``-o``, ``--vimgrep``)
        and nothing else: no context, no ``--stats`` block, lines ended by a newline, a
        match within one line. Then the cap counts matches, the lines a reader sees: one
        minified line of 4,000 matches printed 4,000 lines past a cap of 30."""
        only = self.turned_on("--only-matching")
        apart = ("--null-data", "--multiline", "--passthru")
        return (
            (only or self.has("--vimgrep"))
            and self.output_mode == "lines"
            and not self.stats_block
            and not self.prints_context
            and not any(self.turned_on(name) for name in apart)
        )

    def typed_args(self, keep: Callable[[str], bool], with_config: bool = False) -> list[str]:
        """The command line's flags whose long name ``keep`` takes, as the arguments that
        give each as typed (``-m5``, ``--max-count=5``): rg names a flag so in its errors. A
        short flag takes its value joined (``-e-x`` is the pattern ``-x``), or apart where
        the value is empty; a long one as ``--name=value``. ``with_config``: rg's config
        file's first, for a run that reads no config file (``--no-config``)."""
        out: list[str] = []
        for k in range(0 if with_config else self.config_count, len(self.flags)):
            name, value = self.flags[k]
            if not keep(name):
                continue
            spelled = self.spellings[k]
            if value is None:
                out.append(spelled)
            elif spelled.startswith("--"):
                out.append(f"{spelled}={value}")
            else:
                out += [spelled + value] if value else [spelled, value]
        return out

    def order_breaker(self) -> str | None:
        """The flag that would undo a relevance order: a sort (the last of --sort, --sortr
        and --sort-files is the one rg keeps; ``none`` sorts nothing). Only the command
        line's: rg keeps the order of files it is given by name whatever its config file
        sorts by. Threads undo nothing: rrg runs rg with one thread, as rg's own sorts do
        whatever -j says (``rg --sort path -j4`` is single-threaded, and takes the flag)."""
        sort = None
        for name, value in self.cli_flags:
            if name in ("--sort", "--sortr", "--sort-files"):
                sort = None if value == "none" else name
        return sort


def as_printed(path: bytes, separator: bytes | None) -> bytes:
    """A path as rg prints it: ``separator`` (``--path-separator``) between its parts where
    one is given."""
    return path.replace(b"/", separator) if separator else path


def parse_rg_args(args: list[str], config: list[str] | None = None) -> RgArgs:
    """Take an rg argument list apart into normalised long flags and positionals; with
    ``config``, the arguments of rg's config file, whose flags come first (as rg reads
    them) and count as given unless the command line overrides them."""
    out = RgArgs()
    if config:
        from_config = parse_rg_args(config)
        out.flags = from_config.flags
        out.spellings = from_config.spellings
        out.patterns_by_flag = from_config.patterns_by_flag
        out.pattern_files = from_config.pattern_files
        out.pattern_file_spots = [(-1, 0)] * len(from_config.pattern_files)
        out.config_count = len(out.flags)
    i = 0
    while i < len(args):
        arg = args[i]
        if out.after_dashdash or arg == "-" or not arg.startswith("-"):
            if arg == "--" and not out.after_dashdash:
                out.after_dashdash = True
            else:
                out.positionals.append(arg)
            i += 1
            continue
        if arg == "--":
            out.after_dashdash = True
            i += 1
            continue
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            spot = (i, len(name) + 1)
            typed = name
            name = LONG_ALIASES.get(name, name)
            if name in VALUE_LONG and not eq:
                if i + 1 >= len(args):
                    raise RrgError(f"rg flag {name} needs a value")
                value = args[i + 1]
                i += 1
                spot = (i, 0)
            _add(out, name, value if (eq or name in VALUE_LONG) else None, spot, typed)
            i += 1
            continue
        cluster = arg[1:]
        for pos, char in enumerate(cluster):
            long = SHORT_TO_LONG.get(char)
            if long is None:
                # An unknown short flag: keep it verbatim so rg reports it in its own words.
                _add(out, f"-{char}", None)
                continue
            if char in VALUE_SHORT:
                value = cluster[pos + 1 :]
                spot = (i, pos + 2)
                if not value:
                    if i + 1 >= len(args):
                        raise RrgError(f"rg flag -{char} needs a value")
                    value = args[i + 1]
                    i += 1
                    spot = (i, 0)
                _add(out, long, value, spot, f"-{char}")
                break
            _add(out, long, None, spelled=f"-{char}")
        i += 1
    return out


def _add(
    out: RgArgs,
    name: str,
    value: str | None,
    spot: tuple[int, int] = (-1, 0),
    spelled: str | None = None,
) -> None:
    out.flags.append((name, value))
    out.spellings.append(spelled or name)
    if name == "--regexp" and value is not None:
        out.patterns_by_flag.append(value)
    elif name == "--file" and value is not None:
        out.pattern_files.append(value)
        out.pattern_file_spots.append(spot)


def with_pattern_file(args: list[str], old: str, new: str) -> list[str]:
    """The argument list with every ``-f OLD`` (any spelling: ``-fOLD``, ``--file=OLD``)
    naming ``new`` instead."""
    parsed = parse_rg_args(args)
    out = list(args)
    for name, (at, offset) in zip(parsed.pattern_files, parsed.pattern_file_spots, strict=True):
        if name == old:
            out[at] = out[at][:offset] + new
    return out


def streamed_paths(parsed: RgArgs) -> list[str]:
    """The PATHs that are streams, neither a file nor a folder: a FIFO (a shell's
    ``<(cmd)``), a device, a socket. Each can be read once, and a search in order reads
    its files twice (a count, then the lines printed)."""
    out = []
    for path in parsed.paths:
        try:
            mode = os.stat(path).st_mode
        except (OSError, ValueError):
            continue  # missing: rg says so in its place
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            out.append(path)
    return out


def reads_stdin(parsed: RgArgs) -> bool:
    """Whether rg would search stdin: a ``-`` path, or no path with stdin a pipe or file."""
    if "-" in parsed.paths:
        return True
    if parsed.paths or not parsed.has_pattern or parsed.files_mode:
        return False
    try:
        mode = os.fstat(0).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode)
