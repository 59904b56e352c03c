"""Files a query names by their path: a compiler's diagnostic (``src/io/mod.rs:12:5:
error[E0308]: ...``), a traceback's frame (``File "/ci/app/sympy/core/expr.py", line 88``,
``at com.x.Foo.bar(Foo.java:42)``), a link (``.../blob/main/src/lib.rs#L10``) or a question
("why does openapi/utils.py fail"); a module by its dotted name (``sympy.core.expr``,
``Ecto.Changeset``, ``tokio::sync::mpsc``), a folder (``tokio/src/io/``, a package). The
named file is what such a query asks about, whatever its words weigh: BM25 weighs
``openapi`` and ``utils`` as words, and on whole trees listed the file a diagnostic names
first for about half of such queries (docs/benchmarks.md, "A file the question names";
"A module named by its dotted name, and a folder").

``named_files`` reads a query's names and ``pasted_names`` those inside the text it pastes
(pure); ``named_holders`` finds the candidates whose paths end as a name does, reading the
paths of those whose path words, as the index counts them, hold the name's words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from rrg.index.definitions import is_code
from rrg.rank.code_priors import is_report

#: The most files a name lifts, the best of those its path ends as: a bare name many files
#: share (``mod.rs``, ``index.ts``, ``__init__.py``) lifts its best ten, as ``--files``
#: shows a first screen, not every one of them over the files the words ask for.
MAX_NAMED_FILES = 10
#: The most candidate paths looked at for a name, in the order's order: a name whose words
#: a million paths hold (``src/index.ts`` in a large monorepo) keeps the cost bounded.
MAX_CHECKED = 20_000

#: A stretch of a query that may be a path: no white space, quotes, brackets or commas
#: (a traceback quotes its path; Java's frame puts it in parentheses).
_TOKEN = re.compile(r"""[^\s"'`()\[\]<>{},;|]+""")
#: A path's last part that names a file: a name and an extension that starts with a letter
#: (``utils.py``, ``Foo.java``, ``.eslintrc``; not ``3.14``, ``v1.2``), or any last part
#: after a folder (``cmd/Makefile``).
_FILE_NAME = re.compile(r"(?:[\w@+~-][\w.@+~-]*)?\.[A-Za-z][\w+-]{0,15}")
_PART = re.compile(r"[\w.@+~-]+")
#: A dotted name of a module (``sympy.core.expr``, ``Ecto.Changeset``): identifiers joined by
#: dots, which Python, the JVM's languages and Elixir map to folders and a file.
_MODULE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
#: A value a message gives in quotes, backticks or parentheses, in one piece.
_ENCLOSED = re.compile(r"""'([^'\s]+)'|"([^"\s]+)"|`([^`\s]+)`|\(([^()\s]+)\)""")
#: The most parts of a dotted name read: its module, then its class and member.
_MODULE_PARTS = 12
#: A line named after the path: ``:12``, ``:12:5``, ``#L12``, ``#L12-L20``, and what a
#: backtrace puts after it (Ruby's ``user.rb:12:in``).
_LINE_AFTER = re.compile(r"(?::(\d+)(?::\d+)?(?::[^\s/\\:]*)?|#L(\d+)(?:-L?\d+)?):?$")
#: A JVM stack frame's file and line: ``at com.x.app.Foo$Inner.run(Foo.java:42)``. The
#: qualified name before it gives the package, which names the file's
#: folders (``com/x/app/Foo.java``) where the file name alone does not. Looked for from
#: the parenthesis back: a pattern that began at each word of a long dotted name and ran
#: to its end was quadratic (``_._._...``, 40,000 characters: 10 s).
_JVM_FILE = re.compile(r"\(([\w$-]+\.[A-Za-z]\w{0,15}):(\d+)\)")
#: The most characters of a qualified name read back from a frame's parenthesis.
_JVM_NAME_CHARS = 400
#: A line after the path, where the query goes on past it: a traceback's ``File "x.py",
#: line 12``, TypeScript's and MSVC's ``src/a.ts(12,5):``.
_LINE_WORD = re.compile(r"""["']?,?\s+line\s+(\d+)|\((\d+)(?:,\d+)?\)""")
#: What a sentence puts after a name ("fails in utils.py." "utils.py:").
_TRAILING = ".:!?"


@dataclass(frozen=True)
class NamedFile:
    """A path as a query names it: its parts (``("openapi", "utils.py")``), and the line
    it names in it, if it does. A ``module`` is a dotted name's parts
    (``("sympy", "core", "expr", "Expr")``, Rust's ``tokio::sync::mpsc``): a path names it
    whose folders and file name, less its extension, spell its first parts (two at least),
    as the languages that name modules so map them (``sympy/core/expr.py``,
    ``lib/ecto/changeset.ex``, ``tokio/src/sync/mpsc.rs``); ``separator`` joins them as
    the query did."""

    parts: tuple[str, ...]
    line: int | None = None
    module: bool = False
    separator: str = "."
    #: Whether a path names it only where it spells every part of a module, or the
    #: last two of a path, its file and folder (``pasted_names``).
    whole: bool = False

    def __str__(self) -> str:
        return self.separator.join(self.parts) if self.module else "/".join(self.parts)

    def matched_parts(self, path: str) -> int:
        """How many of the path's last parts are this name's last parts (0: another file);
        for a module, how many of its first parts the path spells (0, or two at least);
        else, where the name may be a folder's, how many of its parts the folder that
        holds the path ends as (``matched``)."""
        return self.matched(path)[0]

    def matched(self, path: str) -> tuple[int, bool]:
        """``matched_parts``, and whether the path is the file the name names (not one
        in the folder it names: a file named beats a folder named as many parts)."""
        theirs = [p for p in path.replace("\\", "/").split("/") if p]
        folders = theirs[:-1]
        if self.module:
            # A Rust crate's modules lie in its ``src/``: ``tokio/src/sync/mpsc.rs``.
            folders = [_folded(p) for p in folders if p != "src"]
            spelled = _module_parts(self.folded, folders, theirs[-1] if theirs else "")
            if spelled == len(self.parts) or (spelled and not self.whole):
                return spelled, True
        else:
            matched = _same_last_parts(self.parts, theirs)
            # A pasted path from an installed copy (``site-packages/app/web.py``) is the
            # source's ``src/app/web.py``: its folder and file, not every part.
            if matched >= (2 if self.whole else 1):
                return matched, True
        if self.whole or not self.folder_too:
            return 0, False
        return _folder_parts(self, folders), False

    @cached_property
    def folded(self) -> tuple[str, ...]:
        """A module's parts as a path spells them, but for case, ``_`` and ``-``
        (``_folded``): read once, against every candidate's path."""
        return tuple(_folded(p) for p in self.parts)

    def rooted(self, path: str) -> bool:
        """Whether the path begins with every part of the name, a path's (not a module's):
        the file or folder it spells from the root, which a name given from there means
        (``lib/sinatra/``, not ``sinatra-contrib/lib/sinatra/``)."""
        theirs = [p for p in path.replace("\\", "/").split("/") if p and p != "."]
        return not self.module and tuple(theirs[: len(self.parts)]) == self.parts

    @property
    def folder_too(self) -> bool:
        """Whether the name may be a folder's (two parts at least, and no line: a line is
        a file's): a path's whose last part has no extension (``tokio/src/io/``), a
        module's (a package: ``sympy.solvers``)."""
        if self.line is not None or len(self.parts) < 2:
            return False
        return self.module or _FILE_NAME.fullmatch(self.parts[-1]) is None


def _folder_parts(name: NamedFile, folders: list[str]) -> int:
    """How many parts of the name (two at least) the folders above a file end as, at the
    folder that matches most: a path's last parts (``src/io`` of ``tokio/src/io`` for
    ``tokio/src/io/util/take.rs``), a module's first parts (``folders`` spelled as a
    module's are)."""
    best = 0
    if name.module:
        folded = list(name.folded)
        for k in range(2, len(folders) + 1):
            for n in range(min(len(folded), k), best, -1):
                if folded[:n] == folders[k - n : k]:
                    best = n
                    break
    else:
        for k in range(1, len(folders) + 1):
            best = max(best, _same_last_parts(name.parts, folders[:k]))
    return best if best >= 2 else 0


def _same_last_parts(mine: Sequence[str], theirs: Sequence[str]) -> int:
    """How many last parts the two have alike, counted from the end."""
    same = 0
    for a, b in zip(reversed(mine), reversed(theirs), strict=False):
        if a != b:
            break
        same += 1
    return same


def _module_parts(folded: tuple[str, ...], folders: list[str], file_name: str) -> int:
    """The most first parts of a dotted name (``folded``, two at least) that a path's
    last parts spell: its ``folders`` (folded), then ``file_name`` less the extension,
    whose dots part it too (Mix's task ``Mix.Tasks.Ecto.Create`` is
    ``mix/tasks/ecto.create.ex``); alike but for case and underscores (Elixir's
    ``Ecto.Changeset`` is ``ecto/changeset.ex``, ``LiveView`` ``live_view.ex``)."""
    if "." not in file_name.strip("."):
        return 0
    stem = file_name.rsplit(".", 1)[0]
    spelled = (*folders, *(_folded(p) for p in stem.split(".")))
    for n in range(min(len(folded), len(spelled)), 1, -1):
        if folded[:n] == spelled[-n:]:
            return n
    return 0


def _folded(part: str) -> str:
    # ``tokio_util`` is the crate in ``tokio-util/``.
    return part.lower().replace("_", "").replace("-", "")


def wholly_named(names: Sequence[NamedFile], paths: Sequence[str]) -> list[int]:
    """The places of the paths that end as one of the names does, every part of the name
    (or of the path, where the name is longer: a path from another machine), at most
    ``MAX_NAMED_FILES``: the files no index has read yet that a question names beyond
    doubt (the failing test an agent pastes on its first search of a large tree, whose
    tests are read last)."""
    found = []
    for k, path in enumerate(paths):
        parts = len([p for p in path.replace("\\", "/").split("/") if p and p != "."])
        if any(_wholly(n, path, parts) for n in names):
            found.append(k)
            if len(found) == MAX_NAMED_FILES:
                break
    return found


def _wholly(name: NamedFile, path: str, parts: int) -> bool:
    matched, as_file = name.matched(path)  # a folder's files are left to the index
    if not as_file:
        return False
    return bool(matched) if name.module else matched == min(len(name.parts), parts)


def named_files(query: str) -> tuple[NamedFile, ...]:
    """The paths a query names, each once, in the order it names them; none for a report
    (``is_report``: an issue's text, a whole traceback), whose frames
    name the caller's files and the library's as well as the one at fault."""
    if is_report(query):
        return ()
    frames = _jvm_frames(query)
    out: dict[tuple[str, ...], NamedFile] = {}
    for name, _ in frames:
        out.setdefault(name.parts, name)
    for token in _TOKEN.finditer(query):
        if any(start <= token.start() < end for _, (start, end) in frames):
            continue  # the frame's file, named with its package
        text, _, rust = token.group().partition("::")  # pytest's test_x.py::TestY::test_z
        if rust and not _FILE_NAME.fullmatch(re.split(r"[/\\]", text)[-1]):
            if (path := _rust_path(token.group())) is not None:
                out.setdefault(path.parts, path)
            continue
        line = None
        after = _LINE_AFTER.search(text)
        if after is not None:
            line = _line(after.group(1) or after.group(2))
            text = text[: after.start()]
        text = text.rstrip(_TRAILING)
        parts = tuple(p for p in re.split(r"[/\\]", text) if p and p not in (".", ".."))
        as_file = bool(parts) and _names_a_file(parts, text)
        # ``utils.py`` is a file's name, not a module ``py`` of a package ``utils``.
        as_module = _MODULE.fullmatch(text) is not None and not is_code(text)
        if not as_file and not as_module:
            continue
        if line is None:
            said = _LINE_WORD.match(query, token.end())
            line = _line(said.group(1) or said.group(2)) if said is not None else None
        if as_file:
            out.setdefault(parts, NamedFile(parts, line))
        if as_module:
            dotted = tuple(text.split(".")[:_MODULE_PARTS])
            out.setdefault(dotted, NamedFile(dotted, line, module=True))
    return tuple(out.values())


def pasted_names(pasted: str, own: Sequence[NamedFile]) -> tuple[NamedFile, ...]:
    """The names the text a query pastes (``pasted``: its message or quoted phrases;
    ``own``: the names of the query with it blanked) gives as its subject: in quotes, backticks
    or parentheses, a module's whole dotted name or a path with a folder (Python's
    ``ImportError: cannot import name 'X' from 'app.web' (/usr/lib/.../app/web.py)``,
    ``AttributeError: module 'app.web' has no attribute 'x'``), each matched only by a
    path that spells all of the module, or the path's folder and file. Such a message is
    the runtime's, and what holds its words is an import line or another module's
    ``__getattr__``. A name the message says in passing (``missing :adapter option on use
    Ecto.Repo``) is the message's: the file that raises it answers; so is a bare name
    (``Version field is missing in package.json``)."""
    enclosed = "\n".join(
        next(group for group in match.groups() if group) for match in _ENCLOSED.finditer(pasted)
    )
    if not enclosed:
        return ()
    return tuple(
        replace(name, line=None, whole=True)
        for name in named_files(enclosed)
        if name not in own and (name.module or len(name.parts) > 1)
    )


def _rust_path(text: str) -> NamedFile | None:
    """A Rust path (``tokio::sync::mpsc::Sender``, ``crate::io::util``) as a module's
    name: its parts from the crate's name, or past ``crate``, ``self`` and ``super``."""
    parts = [p for p in text.rstrip(_TRAILING).split("::") if p]
    while parts and parts[0] in ("crate", "self", "super"):
        parts.pop(0)
    if len(parts) < 2 or not all(_IDENTIFIER.fullmatch(p) for p in parts):
        return None
    return NamedFile(tuple(parts[:_MODULE_PARTS]), module=True, separator="::")


def _jvm_frames(query: str) -> list[tuple[NamedFile, tuple[int, int]]]:
    """The files a query's JVM stack frames name, each with the frame's span."""
    frames = []
    for frame in _JVM_FILE.finditer(query):
        start = end = frame.start()
        while start > max(0, end - _JVM_NAME_CHARS) and _in_jvm_name(query[start - 1]):
            start -= 1
        if "." not in query[start:end]:
            continue
        package = []
        for part in query[start:end].split(".")[:-2]:  # less the class and the method
            if not part[:1].islower():
                break
            package.append(part)
        name = NamedFile((*package, frame.group(1)), _line(frame.group(2)))
        frames.append((name, (start, frame.end())))
    return frames


def _in_jvm_name(char: str) -> bool:
    return char.isalnum() or char in "_$.<>-"


def _line(digits: str) -> int | None:
    # A pasted run of 5,000 digits made ``int`` raise; no file has a billion lines.
    return int(digits) if len(digits) <= 9 else None


def _names_a_file(parts: tuple[str, ...], text: str) -> bool:
    last = parts[-1]
    if not _PART.fullmatch(last) or not any(c.isalpha() for c in last):
        return False
    if "://" in text and len(parts) < 3:
        return False  # a site's address, not a file of it
    # A last part without an extension names a file only after a folder (``cmd/Makefile``):
    # alone it is a word between slashes ("papers on /slip flow/", "TCR/CD3" names two).
    return _FILE_NAME.fullmatch(last) is not None or len(parts) > 1


def named_holders(
    names: Sequence[NamedFile],
    order: np.ndarray,
    holding_name: Callable[[NamedFile], np.ndarray],
    path_of: Callable[[int], str],
) -> dict[int, int | None]:
    """The candidates of ``order`` (indices, best first) whose paths end as a name does,
    in that order, each with the line its name names. For each name, those matching most
    of its parts (``sympy/core/expr.py`` before another ``expr.py``; a file it names
    before the files of a folder it names as many parts; of those, the ones it spells
    from the root, where any is), the best ``MAX_NAMED_FILES`` of them.
    ``holding_name(name)``: whether each candidate's path words hold the words of the
    name's file name, a mask; ``path_of(k)``: a candidate's path."""
    found: dict[int, int | None] = {}
    for name in names:
        held = holding_name(name)
        looked = [(k, path_of(k)) for k in order[held[order]][:MAX_CHECKED].tolist()]
        matched = [(name.matched(path), k, path) for k, path in looked]
        most = max((m for m, _, _ in matched), default=(0, False))
        if not most[0]:
            continue
        best = [(k, path) for m, k, path in matched if m == most]
        rooted = [k for k, path in best if name.rooted(path)]
        for k in (rooted or [k for k, _ in best])[:MAX_NAMED_FILES]:
            found.setdefault(k, name.line)
    place = np.empty(len(order), np.int64)
    place[order] = np.arange(len(order))
    return dict(sorted(found.items(), key=lambda item: int(place[item[0]])))
