"""Which of the files rrg would name rg's walk takes for binary, asked of rg itself.

rrg names the files it searches, and rg searches a file it is given by name whole ("binary
file matches"), where its walk gives up a file at a NUL. The index knows a NUL in a file's
first 64 KiB, and that settles most files; where it does not, only rg's walk knows:

- where rg decodes files (``-z``, ``--pre``, ``-E``) it searches what comes out: a ``.gz``
  log is text to it, a ``.tar.gz`` still binary;
- a NUL further on ends a line-by-line search wherever it lies, a multi-line one (which
  reads the file at once) only where a match or its context reaches it, and never past
  ``--max-count``'s last match.

So rg walks the doubtful files themselves, with the user's search.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import tempfile

from rrg.rg.args import RgArgs
from rrg.rg.flags import FILE_SELECTION_LONG
from rrg.rg.replies import count_records, json_bytes
from rrg.rg.walk import COUNT_FLAGS

#: The flags that change what rg reads of a file: kept, though they also choose files.
_DECODING = frozenset({"--search-zip", "--no-search-zip", "--pre", "--no-pre", "--pre-glob"})
#: After the user's flags, for a walk of a folder of links: every file in it, each read
#: through its link.
_TO_EVERY_FILE = ["--follow", "--no-ignore", "--hidden", "-j1"]
#: Then a count of each file rg's walk reads as text, its path printed as the walk's counts
#: print it (``COUNT_FLAGS``: the last mode flag wins, whatever -I or --path-separator the
#: user gave). ``--include-zero`` prints a count of none too; a file given up as binary
#: prints nothing (rg's binary filter of counts).
_COUNT_EACH = [*_TO_EVERY_FILE, "--include-zero", *COUNT_FLAGS]


def binary_to_walk(rg: str, args: RgArgs, files: list[bytes]) -> set[bytes]:
    """Those of ``files`` that rg's walk, searching as the user asks, gives up as binary
    (``walk_gives_up``)."""
    return walk_gives_up(rg, args, files)[0]


def walk_gives_up(
    rg: str, args: RgArgs, files: list[bytes], printed_too: bool = False
) -> tuple[set[bytes], set[bytes]]:
    """Those of ``files`` that rg's walk, searching as the user asks, gives up as binary;
    and, with ``printed_too``, those of them it may print something of first
    (``_printed_of``; else none).

    rg walks a folder of links to them, each at its own path below the folder (which
    decides what -z decompresses and --pre-glob preprocesses, as in the user's walk), with
    --follow, the user's flags and patterns, and none that choose files. Asked of each file
    named instead, read at once as rg's JSON reports it, a NUL past 64 KiB went unseen (a
    log under -E latin1), and past a decoder's first piece when read a line at a time (an
    Illustrator file's NUL at 19,966 bytes under -E latin1, 8 KiB the piece). A file rg
    cannot read (a preprocessor that fails) is no binary file: the search reports it in
    rg's own words. Where no such folder can be made, every one of ``files`` counts as
    binary (the index's rule), and may print (rg's walk to each alone tells). Both
    questions go to rg in one folder: its links cost more than rg's walks of them (3,000
    links 2.3 s here, a walk of them 0.04 s)."""
    if not files:
        return set(), set()
    asked = _printed_question(args) if printed_too else None
    tails = [_COUNT_EACH] if asked is None else [_COUNT_EACH, asked[0]]
    walked = _farm_walks(rg, args, files, tails)
    if walked is None:
        return set(files), set(files) if asked is not None else set()
    links, done = walked
    counted = {path for path, _ in count_records(io.BytesIO(done[0].stdout))}
    given_up = {
        path
        for link, path in links.items()
        if b"./" + link not in counted and link not in done[0].stderr
    }
    if asked is None:
        return given_up, set()
    printed = _printed_of(done[1].stdout, listing=asked[1])
    return given_up, {path for link, path in links.items() if b"./" + link in printed} & given_up


def _printed_question(args: RgArgs) -> tuple[list[str], bool] | None:
    """After the user's flags, what asks rg's walk which files it prints something of, and
    whether its answer is a listing (else JSON lines): a file it gives up as binary may
    print lines before the read that found the NUL (a crashed log rotated and compressed,
    searched with -z). The walk is asked in the user's
    mode: its lines as JSON (which prints what the lines would be, whatever the printer),
    or its listing under -l and --quiet (which stop at a file's first match, so may list
    a file whose lines print nothing, or under -v print lines of a file they do not list).
    rg's counts (-c, --count-matches) and --files-without-match print nothing of such a
    file (None: no question); under --stats, where its block counts the matches before
    the NUL, they and the listings take those whose lines would print. Its answers
    are candidates: rg's walk to each alone (``walk_alone_command``) prints it, or says
    it prints nothing."""
    mode = args.output_mode
    prints_none = args.lists_files_without_match or mode in ("--count", "--count-matches")
    if prints_none and not args.stats_block:
        return None
    listing = mode in ("--files-with-matches", "--quiet") and not args.stats_block
    shown = ["--files-with-matches", "--null"] if listing else ["--json"]
    return [*shown, "--path-separator=/", "--color=never", *_TO_EVERY_FILE], listing


def _printed_of(output: bytes, listing: bool) -> set[bytes]:
    """The paths a walk asked by ``_printed_question`` printed something of."""
    if listing:
        return set(output.split(b"\0"))
    return {
        json_bytes(json.loads(line)["data"]["path"])
        for line in output.splitlines()
        if line.startswith(b'{"type":"begin"')
    }


def _farm_walks(
    rg: str, args: RgArgs, files: list[bytes], tails: list[list[str]]
) -> tuple[dict[bytes, bytes], list[subprocess.CompletedProcess[bytes]]] | None:
    """rg's walks, each searching as the user asks and then one of ``tails``, of one folder
    of links to ``files`` (``_linked``): the links, and what each walk said. None where no
    such folder can be made."""
    try:
        with tempfile.TemporaryDirectory(prefix="rrg-binary-") as farm:
            links = _linked(os.fsencode(farm), files)
            searching = [rg, "--no-config", *_searching(args, quiet=False)]
            done = [
                subprocess.run(
                    [*searching, *tail, "--", "."],
                    capture_output=True,
                    stdin=subprocess.DEVNULL,
                    cwd=farm,
                )
                for tail in tails
            ]
    except OSError:
        return None
    return links, done


#: The names rg's ``-z`` decompresses (grep-cli's ``default_decompression_commands``, by
#: glob: ``*.gz``, ``*.Z``, ...; compared here without case, a wider net), and the magic
#: numbers by which a newer rg also tells a compressed file: any other file ``-z`` reads as
#: it is, as without ``-z``.
_COMPRESSED_SUFFIXES = (
    b".gz", b".tgz", b".bz2", b".tbz2", b".xz", b".txz", b".lz4", b".lzma", b".br", b".zst",
    b".zstd", b".z",
)  # fmt: skip
_COMPRESSED_MAGIC = (
    b"\x1f\x8b",
    b"BZh",
    b"\xfd7zXZ\x00",
    b"\x04\x22\x4d\x18",
    b"\x28\xb5\x2f\xfd",
    b"\x1f\x9d",
)


def may_be_decompressed(path: bytes) -> bool:
    """Whether rg's ``-z`` may decompress the file ``path``: its name or its first bytes
    say it is compressed (or it cannot be read, and rg's walk is left to say)."""
    if path.lower().endswith(_COMPRESSED_SUFFIXES):
        return True
    try:
        with open(path, "rb") as file:
            return file.read(16).startswith(_COMPRESSED_MAGIC)
    except OSError:
        return True


#: After the user's flags, for rg's walk to one file alone: the entries of the file's folder
#: (rg walks to it there, as the user's walk did), whatever rule would hide it (the user's
#: walk chose it already), the file itself picked by a glob of its name.
_TO_ONE_FILE = ["--max-depth=1", "--hidden", "--no-ignore", "--follow", "-j1"]
#: What a glob reads as more than a letter: each escaped in the glob that names a file.
#: rg reads a --glob as a line of a .gitignore, where a leading ``#`` makes a comment (no
#: glob at all: the walk took every file of the folder) and a leading ``!`` a negation.
_GLOB_SPECIAL = frozenset("\\*?[]{}!,#")
#: A byte of a name that is not UTF-8, as Python decodes it (``surrogateescape``).
_NOT_UTF8 = re.compile("[\udc80-\udcff]")


def walks_alone(path: bytes) -> bool:
    """Whether rg can walk to ``path`` alone: a glob names it and no other entry of its
    folder. rg takes only UTF-8 in a glob ("value is not valid UTF-8"), so a byte of the
    name that is not UTF-8 is a ``?`` there, which rg matches with that byte (and any
    other): such a glob names the file alone where no other name of the folder differs from
    it only at those bytes."""
    folder, slash, name = path.rpartition(b"/")
    text = name.decode(errors="surrogateescape")
    if not _NOT_UTF8.search(text):
        return True
    # Wider than rg's ``?`` (one byte, or one character): a doubt refuses, never names two.
    same_elsewhere = re.compile(
        b"".join(b"[^/]{1,4}" if _NOT_UTF8.match(c) else re.escape(c.encode()) for c in text)
    )
    try:
        names = os.listdir(folder or (b"/" if slash else b"."))
    except OSError:
        return False
    return not any(other != name and same_elsewhere.fullmatch(other) for other in names)


def walk_alone_command(
    rg: str, args: RgArgs, path: bytes, extra: list[str], counting: bool = False
) -> list[str | bytes]:
    """rg's walk to ``path`` alone, searching as the user asks (the config file's flags
    too, but none that choose files), then ``extra``: it prints what the user's walk printed
    of that file, byte for byte, its path spelled as that walk spelled it (the folder is
    rg's PATH, the implicit one where the path names none). ``counting``: less --quiet,
    for a run whose output is read (``extra`` a --json, say)."""
    folder, slash, name = path.rpartition(b"/")
    if slash and not folder:
        folder = b"/"  # a file at the root of the file system
    return [
        rg,
        "--no-config",
        *_searching(args, quiet=not counting),
        *extra,
        *_TO_ONE_FILE,
        b"--glob=" + _glob_naming(name),
        "--",
        *([folder] if folder else []),
    ]


def _glob_naming(name: bytes) -> bytes:
    """The glob that names the file ``name`` (``walks_alone`` tells where no other file of
    its folder answers it too): each character a glob reads as more than a letter escaped,
    a byte that is not UTF-8 a ``?``, and a last character that is white space put in a
    class, since a .gitignore line's trailing white space is trimmed (``a.log `` and
    ``a.log\\t`` would name ``a.log``) but for an escaped space."""
    text = name.decode(errors="surrogateescape")
    glob = ["?" if _NOT_UTF8.match(c) else "\\" + c if c in _GLOB_SPECIAL else c for c in text]
    if text[-1:].isspace():
        glob[-1] = f"[{text[-1]}]"
    return "".join(glob).encode()


def _searching(args: RgArgs, quiet: bool) -> list[str]:
    """The user's search for a run that reads no config file: its flags (the config file's
    first) less those that choose files (but those that decode them), then its patterns.
    ``quiet``: --quiet kept; a run whose output rrg reads drops it."""
    flags = args.typed_args(
        lambda name: (
            (name not in FILE_SELECTION_LONG or name in _DECODING) and (quiet or name != "--quiet")
        ),
        with_config=True,
    )
    return [*flags, *(args.pattern_args if args.has_pattern else ["--regexp="])]


def _linked(farm: bytes, files: list[bytes]) -> dict[bytes, bytes]:
    """Links under ``farm`` to ``files``, each at the path rrg names it by (a --pre-glob of
    ``logs/*.gz`` matches there as in the user's walk; a leading ``/`` or ``..`` made a
    folder's name): each link's path below ``farm``, and the file it links to."""
    links: dict[bytes, bytes] = {}
    for path in files:
        parts = [b"up" if p == b".." else p for p in path.split(b"/") if p not in (b"", b".")]
        link = b"/".join(parts)
        if link in links:  # two spellings of one path: the second in a folder apart
            link = b".rrg-%d/%s" % (len(links), link)
        where = os.path.join(farm, link)
        os.makedirs(os.path.dirname(where), exist_ok=True)
        os.symlink(os.path.abspath(path), where)
        links[link] = path
    return links
