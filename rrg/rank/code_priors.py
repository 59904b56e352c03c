"""What a file's path and a query's form say about a code file before its words are weighed.

Three named parts, each an offset in the fused score's units (standard deviations), so that
they add to the cheap tier's order and to the stage's:

- ``definition``: a query that is an identifier (``ZodType``, ``parse_args``, ``a.b``,
  ``A::B``) asks for the file that defines it (the index keeps what each file defines:
  ``rrg.index.definitions``); identifiers inside a natural-language query ask the same,
  weaker. (A further offset where the file's stem is the name changed nothing
  on the dev half, 0 to 2 alike, and is not kept; the stem still brings such files in.)
- ``stem``: query words that name a file's stem or its folder.
- ``path``: tests, examples, docs, benchmarks, compat or legacy shims (and an older
  version kept beside a newer one), vendored or amalgamated copies, generated files and
  type stubs rank lower, unless the query asks for that kind of file ("test", "example",
  ...).

Pure: queries and paths in, offsets out.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

from rrg.index.definitions import CODE_SUFFIXES, is_code

# The priors' weights are chosen points of ``rrg.rank.tuning.Tuning`` (their sweeps there).

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_SYMBOL_QUERY = re.compile(
    rf"^(?:{_IDENT}(?:(?:::|\.|->|#|\\){_IDENT})+"  # qualified: a.b, A::B, a->b, A#b
    r"|_[A-Za-z0-9_]*"  # _private, __init__
    r"|[A-Za-z][A-Za-z0-9]*[A-Z_][A-Za-z0-9_]*"  # camelCase, snake_case, HTTPAdapter
    r"|[A-Z][A-Za-z0-9]*)$"  # Base, URL
)
#: Identifiers a person writes inside a sentence: camelCase, PascalCase with a second hump,
#: snake_case with an underscore inside; never a plain word.
_IN_SENTENCE = re.compile(
    r"\b(?:[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*"
    r"|[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*"
    r"|[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+)\b"
)
_SEPARATORS = ("::", "->", ".", "#", "\\")
STOP_WORDS = frozenset(
    "a an and are as at be by can do does for from has have how i if in into is it its not"
    " of on or the this that to use used uses using was what when where which who why with"
    " code file files function functions method methods class classes".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
#: A query of more words than this is a report (an issue, a pasted traceback), not a
#: question: its "the test below", "a minimal example" or "release notes" are said in
#: passing and ask for no kind of file (``QueryForm.asks_for``). The questions here run to
#: 14 words (semble-code), 29-31 (scifact, hotpotqa); the shortest issue text 36 (sympy):
#: every bound from 15 to 35 gives the same figures on every labelled set
#: (docs/benchmarks.md, "A report asks for no kind of file").
ASKING_WORDS = 30


def is_report(query: str) -> bool:
    """Whether a query is a report (more than ``ASKING_WORDS`` words), not a question."""
    return len(_WORD.findall(query)) > ASKING_WORDS


@dataclass(frozen=True)
class QueryForm:
    """The identifiers a query names, and whether it is one (a symbol query)."""

    names: tuple[str, ...]  # identifiers asked for, the last part of a qualified one first
    symbol: bool  # the whole query is one identifier or qualified name
    words: frozenset[str]  # its words, lower-cased, stop words out
    asks_for: frozenset[str]  # kinds of secondary file a question names ("test", "doc", ...)


def query_form(query: str) -> QueryForm:
    text = query.strip()
    said = _WORD.findall(text)
    words = frozenset(w.lower() for w in said if w.lower() not in STOP_WORDS)
    asks = frozenset(
        kind for kind, asking in _ASKING.items() if words & asking and len(said) <= ASKING_WORDS
    )
    if _SYMBOL_QUERY.match(text):
        last = text
        for sep in _SEPARATORS:
            last = last.rsplit(sep, 1)[-1]
        names = (last,) if last == text else (last, text)
        return QueryForm(names, True, words, asks)
    return QueryForm(tuple(dict.fromkeys(_IN_SENTENCE.findall(text))), False, words, asks)


def file_stem(path: str) -> str:
    """A path's file name up to its first dot (a dot file's whole name)."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.split(".", 1)[0] if not name.startswith(".") else name


def stem_words(path: str) -> set[str]:
    """The words of a path's file stem and of its folder's name, lower-cased."""
    parts = path.replace("\\", "/").split("/")
    words = set(_split_words(file_stem(path)))
    if len(parts) > 1:
        words.update(_split_words(parts[-2]))
    return words


def _split_words(name: str) -> list[str]:
    out: list[str] = []
    for piece in re.split(r"[^A-Za-z0-9]+", name):
        out.extend(w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", piece))
    return [w for w in out if w]


def stem_is(stem: str, name: str) -> bool:
    """A file's stem names the identifier: equal, snake_case or a plural aside."""
    name, flat = name.lower(), stem.replace("_", "").replace("-", "")
    return name in (stem, flat, stem.rstrip("s"), flat.rstrip("s"))


def _singular_of_ies(word: str) -> str:
    """``dependencies`` as ``dependency``: no prefix joins a word in ``y`` to its plural in
    ``ies`` (fastapi's ``dependencies/`` did not hold "dependency", its tests'
    ``test_dependency_*.py`` did, and filled the first places of "dependency injection")."""
    return word[:-3] + "y" if word.endswith("ies") and len(word) > 5 else word


def stem_share(words: frozenset[str], parts: set[str]) -> float:
    """The share of query words a path's stem and folder hold (a word and a part agree when
    one starts the other, a plural's ``s`` aside or its ``ies`` read as ``y``, and the
    shorter has at least four letters: ``impls`` holds "implementations")."""
    if not words:
        return 0.0
    words = frozenset(_singular_of_ies(word) for word in words)
    parts = {_singular_of_ies(part) for part in parts}
    hit = 0
    for word in words:
        for part in parts:
            short, long_ = sorted((word, part), key=len)
            if short.endswith("s") and len(short) >= 5:
                short = short[:-1]
            if word == part or (len(short) >= 4 and long_.startswith(short)):
                hit += 1
                break
    return hit / len(words)


#: A language as a file or folder of translations is named: two letters, or three with a
#: region, then a region or a script as BCP 47 and gettext spell them (``pt-BR``,
#: ``es-419``, ``zh-Hans``, ``sr@latin``); three letters alone, or a word after two
#: (``api``, glibc's ``lc-time.c``), name code.
_LANGUAGE = (
    r"(?:[a-z]{2}|[a-z]{3}(?=[-_]))(?:[-_](?:[A-Za-z]{2}|[0-9]{3}|[A-Z][a-z]{3}))*(?:@[a-z]+)?"
)

#: The kinds of secondary file, the path pattern of each, and the query words that ask for it.
_KINDS = {
    "test": re.compile(
        r"(?:^|/)(?:tests?|__tests__|spec|specs|testing|testdata|test_?utils?|fixtures?)(?:/|$)"
        r"|(?:^|/)test_[^/]*$|_test\.[A-Za-z]+$|_spec\.[A-Za-z]+$|\.(?:test|spec)\.[A-Za-z]+$"
        r"|[a-z0-9](?:Tests?|Spec|Suite)\.[A-Za-z]+$"
    ),
    "example": re.compile(r"(?:^|/)(?:_?examples?|samples?|demos?|tutorials?)(?:/|$)"),
    # A documentation folder, by name (docs, docs_src, docs-v3, documentation-website), or
    # a Java package's page of javadoc (package-info.java: a comment and a package line);
    # prose by extension is the "prose" kind below, weighed only in a repository of code.
    "doc": re.compile(
        r"(?:^|/)(?:docs?|documentation)(?:[-_][A-Za-z0-9]+)*(?:/|$)|(?:^|/)package-info\.java$"
    ),
    "changelog": re.compile(
        r"(?:^|/)(?:change[-_]?log|changes|history|news|releases?|release[-_]notes)"
        r"(?:\.(?:md|markdown|rst|txt|adoc))?$"
        r"|(?:^|/)(?:changelogs?|changelog\.d|changes|newsfragments|release[-_]notes)/",
        re.IGNORECASE,
    ),
    "lock": re.compile(
        r"(?:^|/)(?:package-lock\.json|npm-shrinkwrap\.json|go\.sum|[^/]*\.lock"
        r"|pnpm-lock\.yaml)$"
    ),
    "benchmark": re.compile(r"(?:^|/)(?:benches|benchmarks?|bench|perf)(?:/|$)"),
    "compat": re.compile(r"(?:^|/)(?:_?compat|legacy|deprecated)(?:/|$)"),
    "vendored": re.compile(
        r"(?:^|/)(?:vendor|third_party|thirdparty|external|single_include)(?:/|$)"
    ),
    "generated": re.compile(r"(?:\.pb\.go|_pb2\.py|\.min\.js|\.generated\.[A-Za-z]+|\.g\.dart)$"),
    # A program's messages in other languages: gettext's, XLIFF's and Flutter's catalogs,
    # what gettext keeps beside them (a language's LC_MESSAGES/), a locale folder's file or
    # folder a language (zod's locales/fr.ts, a Rails app's locales/pt-BR.yml, Django's
    # conf/locale/de/formats.py), Apple's fr.lproj/, Android's values-fr/. Each repeats
    # every message, so an issue that quotes one found sphinx's catalogs before its code; a
    # locale folder's other files (sphinx/locale/__init__.py) are the source of its
    # translating.
    "translation": re.compile(
        r"\.(?:po|pot|xliff|xlf|arb)$|(?:^|/)LC_MESSAGES/"
        r"|(?:^|/)(?:locales?|i18n|l10n|translations?)/(?:[^/]+/)*"
        rf"{_LANGUAGE}(?:\.[A-Za-z0-9]+$|/)|(?:^|/){_LANGUAGE}\.lproj/"
        r"|(?:^|/)values-[a-z]{2}(?:-r[A-Z]{2})?/"
    ),
    "stub": re.compile(r"\.d\.ts$|\.pyi$"),
    # A licence and the other files about the project rather than its code.
    "legal": re.compile(
        r"(?:^|/)(?:licen[cs]e|copying|notice|patents|authors|contributors|code_of_conduct)"
        r"(?:[-_][A-Za-z0-9.-]*)?(?:\.(?:md|markdown|txt|rst|adoc|html?))?$",
        re.IGNORECASE,
    ),
    # A package's or a build's manifest: it names the modules and their dependencies.
    "build": re.compile(
        r"(?:^|/)(?:Cargo\.toml|package\.json|go\.mod|pom\.xml|(?:build|settings)\.gradle(?:\.kts)?"
        r"|build\.sbt|pyproject\.toml|setup\.py|setup\.cfg|Gemfile|[^/]+\.gemspec|mix\.exs"
        r"|CMakeLists\.txt|Makefile|BUILD(?:\.bazel)?|WORKSPACE(?:\.bazel)?|MODULE\.bazel"
        r"|tsconfig[^/]*\.json|Package\.swift|[^/]+\.csproj|composer\.json)$"
    ),
}
#: Kinds that are secondary only in a tree of code.
_CODE_TREE_KINDS = frozenset({"changelog", "legal", "build"})
#: A folder is a test folder where one of these words stands anywhere in its name, split at
#: separators and humps as a path's words are (``_split_words``): a module of tests beside
#: the source (``tests-integration``, ``integration_test``, ``exposed-tests``,
#: ``test-shrinker``), Swift's and .NET's ``Tests`` and ``UnitTests``, fuzzing harnesses.
#: The patterns above spell only the lower-case names a folder has whole.
_TEST_FOLDER_WORDS = frozenset({"test", "tests", "testing", "fuzz", "fuzzing", "fuzzers", "e2e"})
#: A file is a test file where one of these words follows the unit its stem names first:
#: a test's helpers beside the source (``cord_test_helpers.h``,
#: ``distribution_test_util.cc``); or where its stem is one of ``_TEST_FILES`` alone
#: (``names_an_instance``).
_TEST_FILE_WORDS = frozenset({"test", "tests"})
#: A Rust module's or a Django app's ``tests``, pytest's ``conftest.py``.
_TEST_FILES = frozenset({"tests", "conftest"})
#: A file is a benchmark where one of these words follows the unit it measures (abseil's
#: ``str_split_benchmark.cc``, gson's ``ParseBenchmark.java``), or where its stem is the
#: plural alone (abseil's ``random/benchmarks.cc``).
_BENCHMARK_FILE_WORDS = frozenset({"bench", "benchmark", "benchmarks"})
_BENCHMARK_FILES = frozenset({"benchmarks"})
#: Folder names of the other kinds whatever their case and separators (``Examples``,
#: ``Documentation``, ``Benchmarks``, ``ThirdParty``, ``third-party``), as their words
#: joined; unlike a test word, an example's or a doc's word inside a longer name is often
#: the folder's topic (``schema_extra_example``).
_FOLDER_NAMES = {
    "example": frozenset({"example", "examples", "sample", "samples", "demo", "demos"}),
    "doc": frozenset({"doc", "docs", "documentation"}),
    "benchmark": frozenset({"bench", "benches", "benchmark", "benchmarks"}),
    "vendored": frozenset({"vendor", "thirdparty", "3rdparty", "external"}),
}
_ASKING = {
    "test": frozenset(
        {"test", "tests", "tested", "testing", "spec", "specs", "fixture", "fixtures"}
    ),
    "example": frozenset({"example", "examples", "sample", "samples", "demo", "tutorial"}),
    "doc": frozenset({"doc", "docs", "documentation", "readme", "guide"}),
    "changelog": frozenset(
        {"changelog", "changes", "history", "news", "release", "releases", "notes"}
    ),
    "lock": frozenset({"lock", "lockfile", "locked", "pinned"}),
    "benchmark": frozenset({"benchmark", "benchmarks", "bench", "perf", "performance"}),
    "compat": frozenset({"compat", "compatibility", "legacy", "deprecated"}),
    "vendored": frozenset({"vendor", "vendored", "third", "amalgamated"}),
    "generated": frozenset({"generated", "protobuf", "minified"}),
    "translation": frozenset(
        "translation translations translate translated translating translator translators "
        "locale locales localization localisation localize localise localized localised "
        "i18n l10n internationalization internationalisation gettext".split()
    ),
    "stub": frozenset({"stub", "stubs", "declaration", "declarations"}),
    "legal": frozenset(
        "license licence licensing licensed copyright authors contributors conduct patent "
        "patents".split()
    ),
    "build": frozenset(
        "build builds building dependency dependencies manifest packaging install "
        "installation compile compilation cmake bazel gradle maven cargo npm makefile setup "
        "version versions".split()
    ),
}


def secondary_kinds(
    path: str,
    asks_for: frozenset[str],
    among_code: bool = True,
    superseded: frozenset[str] = frozenset(),
) -> int:
    """How many kinds of secondary file the path shows that the query does not ask for; in
    a tree of prose (``among_code`` false) a page named ``History`` or ``News`` is content,
    not a changelog. A file under one of the ``superseded`` folders (``superseded_versions``)
    is of the "compat" kind."""
    normal = path.replace("\\", "/")
    folder, _, name = normal.rpartition("/")
    found = _folder_kinds(folder).union(
        kind for kind, pattern in _KINDS.items() if pattern.search(normal)
    )
    if "legal" in found and is_code(normal):
        found -= {"legal"}  # a script named for what it maintains: sympy's authors_update.py
    stem = _split_words(file_stem(name))
    if names_an_instance(stem, _TEST_FILE_WORDS, _TEST_FILES):
        found |= {"test"}
    if names_an_instance(stem, _BENCHMARK_FILE_WORDS, _BENCHMARK_FILES):
        found |= {"benchmark"}
    kinds = sum(
        1 for kind in found if kind not in asks_for and (among_code or kind not in _CODE_TREE_KINDS)
    )
    if superseded and "compat" not in asks_for and normal.startswith(tuple(superseded)):
        kinds += 1
    return kinds


_CODE_SUFFIX_BYTES = frozenset(suffix.encode() for suffix in CODE_SUFFIXES)


def primary_sources(paths: list[bytes]) -> list[bool]:
    """Whether each path (relative, as the index keeps it) names code outside the folders
    of tests, docs, examples, benchmarks, vendored code and the other secondary kinds:
    the files an index reads first, so that a search that indexes for its 3 s ranks the
    source. By its folder alone, each folder weighed once (about 1 us a path;
    ``secondary_kinds`` costs 20 us, 4 s before a first search of 200,000 files could
    begin)."""
    source_folder: dict[bytes, bool] = {}
    verdicts = []
    for path in paths:
        folder, _, name = path.rpartition(b"/")
        dot = name.rfind(b".")
        if dot < 0 or name[dot:].lower() not in _CODE_SUFFIX_BYTES:  # is_code, in bytes
            verdicts.append(False)
            continue
        if folder not in source_folder:
            source_folder[folder] = not _secondary_folder(os.fsdecode(folder))
        verdicts.append(source_folder[folder])
    return verdicts


def _secondary_folder(folder: str) -> bool:
    """Whether a folder is one of a secondary kind's, by its words or as the kinds'
    patterns spell it (``docs_src/``, ``documentation-website/``, ``changelog.d/``)."""
    if not folder:
        return False
    spelled = folder.replace("\\", "/") + "/"
    return bool(_folder_kinds(folder)) or any(kind.search(spelled) for kind in _KINDS.values())


def names_an_instance(stem: list[str], kind_words: frozenset[str], alone: frozenset[str]) -> bool:
    """Whether a file's stem (its words) names one of a kind's files, a test or a benchmark:
    the kind's word after the unit it is about (``cord_test_helpers``, ``ParseBenchmark``),
    or one of ``alone`` as the whole stem (``tests.rs``, ``benchmarks.cc``). A stem that
    starts with the word, or is the singular alone, names the concept: a test runner's or
    a benchmarking tool's own source (vitest's ``test-run.ts``, ``testModuleRunner.ts``,
    ``runners/test.ts``, ``benchmark.ts``), where a test of a unit puts the unit first."""
    if len(stem) == 1 and stem[0] in alone:
        return True
    return any(word in kind_words for word in stem[1:])


@functools.lru_cache(maxsize=4096)
def _folder_kinds(folder: str) -> frozenset[str]:
    """The kinds a path's folders show by their words (``_TEST_FOLDER_WORDS``,
    ``_FOLDER_NAMES``); cached, since a folder's files are weighed together."""
    kinds: set[str] = set()
    for name in folder.split("/") if folder else ():
        words = _split_words(name)
        if _TEST_FOLDER_WORDS.intersection(words):
            kinds.add("test")
        joined = "".join(words)
        kinds.update(kind for kind, names in _FOLDER_NAMES.items() if joined in names)
    return frozenset(kinds)


#: A folder named for a major version (``v3/``); the number is its second group.
_VERSION_FOLDER = re.compile(r"(?:^|/)(v([0-9]+))/")


def superseded_versions(paths: Iterable[str], words: frozenset[str]) -> frozenset[str]:
    """The folders (``.../v3/``) of an older version kept beside a newer one in the same
    folder (``v3/`` beside ``v4/``: zod keeps its v3 API as a legacy copy), as the prefix
    of their paths, unless the query names that version ("v3 compatibility error types").
    The newest is the code a question is about; the older one repeats its words."""
    versions: dict[str, dict[int, str]] = {}
    for path in paths:
        normal = path.replace("\\", "/")
        for match in _VERSION_FOLDER.finditer(normal):
            parent = normal[: match.start(1)]
            versions.setdefault(parent, {})[int(match.group(2))] = normal[: match.end(1)] + "/"
    return frozenset(
        prefix
        for found in versions.values()
        for number, prefix in found.items()
        if number < max(found) and f"v{number}" not in words
    )


#: A folder named for a language, the whole of its name (``docs/es/``, ``docs/pt-BR/``,
#: fastapi's ``docs/zh-hant/``: a script in lower case too).
_LANGUAGE_FOLDER = re.compile(
    r"(?:^|/)((?:[a-z]{2}|[a-z]{3}(?=[-_]))(?:[-_](?:[A-Za-z]{2}|[0-9]{3}|[A-Za-z]{4}))*)(?=/)"
)


def translated_copies(scored: Iterable[tuple[str, float]], english: bool) -> frozenset[str]:
    """The pages of prose that repeat another page in another language: among ``scored``
    (paths and their scores), those whose path is another's but for a folder named for a
    language, in a group where one such folder names English (``en``, ``en-US``); all of
    a group but one: the English page where the question is in English (``english``:
    written in ASCII), else the one that scores best. fastapi keeps its docs in 12
    languages (``docs/en/docs/advanced/websockets.md``, ``docs/es/...``): "websocket
    endpoints" listed the English page, then the Spanish and French ones among the source,
    and for "cors middleware" the French page scored above the English one. A question
    reads the page in its own language; the others repeat its words and its code. Told by
    the group, not by a list of languages: a folder of two letters is many other things
    (``docs/js/``; a monorepo's ``packages/ui/README.md`` beside ``packages/db/README.md``,
    which no English folder joins), and a page alone in its language is no copy."""
    groups: dict[str, list[tuple[bool, float, str]]] = {}
    for path, score in scored:
        normal = path.replace("\\", "/")
        if not is_prose(normal):
            continue
        for match in _LANGUAGE_FOLDER.finditer(normal):
            rest = normal[: match.start(1)] + "\0" + normal[match.end(1) :]
            named_english = re.match(r"en(?:[-_]|$)", match.group(1), re.IGNORECASE) is not None
            groups.setdefault(rest, []).append((named_english, score, normal))
    copies: set[str] = set()
    for found in groups.values():
        if len(found) > 1 and any(named_english for named_english, _, _ in found):
            ranked = found if english else [(False, score, path) for _, score, path in found]
            kept = max(ranked)[2]
            copies.update(path for _, _, path in found if path != kept)
    return frozenset(copies)


def prose_offset(path: str, asks_for: frozenset[str], among_code: bool, penalty: float) -> float:
    """The offset of a page of prose (a README, a guide, an API page) in a repository of
    code (``among_code``: ``holds_code``), unless the query asks for docs: ``-penalty``."""
    if among_code and "doc" not in asks_for and is_prose(path):
        return -penalty
    return 0.0


#: Files a person reads rather than runs: documentation pages and their markup.
PROSE_EXTENSIONS = frozenset(
    ".md .mdx .markdown .rst .txt .adoc .asciidoc .org .rdoc .pod .tex .topic .html .htm".split()
)


def _extension(path: str) -> str:
    name = path.rsplit("/", 1)[-1].lower()
    dot = name.rfind(".")
    return name[dot:] if dot > 0 else ""


def is_prose(path: str) -> bool:
    return _extension(path) in PROSE_EXTENSIONS


def holds_code(paths: list[str], share: float) -> bool:
    """Whether a tree (a sample of its paths) is a repository of code: at least ``share``
    of its files are. Below it (a documentation site, a corpus of notes) prose is what is
    searched for and nothing sinks; a Kotlin library whose API pages are 4 of its 5 files
    is code at a share of .1, not at .2."""
    code = sum(map(is_code, paths))
    return bool(paths) and code >= share * len(paths)
