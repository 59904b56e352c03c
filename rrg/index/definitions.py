"""The names a source file defines, and their kinds, found once when the file is indexed.

A symbol query (``ZodType``, ``parse_args``) asks for the file that defines the name. Finding
it at query time meant reading the best 200 files and trying a pattern on each; the index
keeps each code file's defined names instead, as terms of a field of their own beside its
words (see ``DEFINITION_FIELD``), so a query looks them up in the postings it already reads.

A definition is a definer keyword (after any modifiers), maybe a Go receiver or qualifiers,
then the name; in C and C++, which name no keyword, a line at column 0 that declares a
function (its return type before the name, on this line or the one above) and is no
statement; in Java, C#, TypeScript and JavaScript, Dart and Groovy, whose methods name no
keyword either, an indented line that declares one (``_DECLARED_METHOD``: its modifiers and
type, the name, its parameters; no statement, no ``;`` at its end). A regular expression,
not a parse: tree-sitter costs about 7 ms a 20 KB file, this about 0.7 ms, and the cold
build must keep its rate (docs/benchmarks.md).

Pure: text in, names out.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator

from rrg.code_prose import comment_openings, triple_quoted

#: Terms of the definitions field start with this: no word holds it (words are letters and
#: digits), nor does the path field ("/").
DEFINITION_FIELD = "="
#: Kinds of definition, and the keywords that open each (case-sensitive: a capitalised
#: "Class" in prose is no definition).
KINDS = {
    "type": (
        "class|struct|interface|trait|enum|union|type|typedef|protocol|record|object|impl"
        "|data class|case class|abstract class|sealed class|sealed interface|enum class"
        "|annotation class"
    ),
    "module": "module|defmodule|defprotocol|namespace|package",
    "function": "def|defp|defmacro|fn|fun|func|function|sub|proc|macro",
    "value": "val|var|let|const|static|alias",
}
#: The kind of a C-style function definition (no keyword).
C_FUNCTION = "function"
#: Not a kind but a mark beside them: the name is defined at the top of the file, its line
#: unindented (``pub trait Serialize``), not nested in a class, a function, a test module or
#: a macro's body (serde's ``private/doc.rs`` defines ``trait Serialize`` inside a macro).
TOP_LEVEL = "top"
#: File extensions whose text is searched for definitions at all; any other file (prose,
#: data, configuration) defines nothing, and costs nothing.
CODE_SUFFIXES = frozenset(
    ".py .pyi .js .jsx .mjs .cjs .ts .mts .cts .tsx .go .rs .java .kt .kts .scala .sc .c .h"
    " .cc .cpp .cxx .hpp .hh .hxx .ipp .inl .m .mm .cs .rb .ex .exs .swift .php .sh .bash"
    " .lua .pl .pm .r .jl .dart .zig .nim .ml .mli .fs .hs .clj .erl .groovy .vue .svelte".split()
)
#: Of those, the ones whose functions are C-style declarations.
C_SUFFIXES = frozenset(".c .h .cc .cpp .cxx .hpp .hh .hxx .ipp .inl .m .mm".split())
#: Names kept a file at most: a generated table of ten thousand constants would otherwise
#: outweigh its neighbours in the index.
MAX_NAMES = 512

#: Of those, the ones whose methods are declared without a keyword (Kotlin's ``fun``,
#: Scala's ``def`` and Swift's ``func`` have one): ``gson.fromJson`` is Gson.java's
#: ``public <T> T fromJson(String json, ...)``.
DECLARED_SUFFIXES = frozenset(
    ".java .cs .ts .tsx .mts .cts .js .jsx .mjs .cjs .dart .groovy".split()
)

_IDENT = r"[A-Za-z_]\w*"
#: Type parameters, one level of them nested: ``<Key : Any, T : IdTable<Key>>``.
TYPE_PARAMETERS = r"<(?:[^<>\n]|<[^<>\n]*>)*>"
_KIND_OF = {word: kind for kind, words in KINDS.items() for word in words.split("|")}


def _alternation(words: list[str]) -> str:
    """The words as one regular expression sharing their prefixes (``def(?:m(?:acro|odule)
    |p)?``): Python's engine tries a flat alternation word by word at every position, and
    this one halved the scan of a code tree (abseil-cpp: 0.29 s -> 0.16 s)."""
    tree: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def emit(node: dict) -> str:  # type: ignore[type-arg]
        ends = "" in node
        branches = [re.escape(c) + emit(sub) for c, sub in sorted(node.items()) if c]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if ends:
            return f"(?:{body})?" if len(branches) == 1 and len(body) > 1 else body + "?"
        return body

    return emit(tree)


_DEFINER = _alternation(list(_KIND_OF))
# After the one character that bounds the keyword, a lookahead, so that matches overlap:
# in ``static class Builder`` the match at "static" names "class" (a keyword, dropped), and
# the one at "class" names Builder. (``defined_names`` puts a newline before the text.)
_KEYWORD = re.compile(
    rf"[\s;{{}}(](?=({_DEFINER})[ \t]+"  # on one line: "a type\n\nAdapter x" is no definition
    r"(?:\([^)\n]*\)[ \t]*)?"  # Go's receiver: func (r *Router) Use
    rf"(?:{TYPE_PARAMETERS}[ \t]*)?"  # type parameters: fun <T> withContext
    # qualifiers: defmodule Ecto.Changeset, fun <T> Flow<T>.collect
    rf"((?:{_IDENT}(?:{TYPE_PARAMETERS})?(?:\.|::))*{_IDENT}))",
)
# A method declared in a class body: indented, its annotations, then words (modifiers, a
# return type and its generics: each word starts as a name does or is ``<T>``, so the
# continued lines of a call, ``options.root, resolve(x)`` or ``? make(x)``, hold none), the
# name, maybe type parameters, the parameters' opening; ``=`` is in no word
# (``Foo x = make(`` declares nothing).
# Balanced, one level nested, no ``>`` inside but a nested one's: a word may not end at
# either of two ``>`` (``a<b> a<b> ... (`` took a second at twenty words, split every way).
_GENERICS = r"<[^<>()=;\n]*(?:<[^<>()=;\n]*>[^<>()=;\n]*)*>"
#: An indented line with a parenthesis, no ``=`` or ``;`` before it: where a method may be.
_METHOD_LINE = re.compile(r"^[ \t]+[A-Za-z_$@<][^\n(;=]*\(", re.MULTILINE)
_DECLARED_METHOD = re.compile(
    r"^[ \t]+(?:@[\w.]+(?:\([^)\n]*\))?[ \t]+)*"
    rf"((?:(?:[A-Za-z_$][\w$.]*(?:{_GENERICS})?|{_GENERICS})(?:\[\])*\??[ \t]+)*)"
    rf"([A-Za-z_$][\w$]*)[ \t]*(?:{_GENERICS}[ \t]*)?\(([^\n]*)$",
    re.MULTILINE,
)
#: Words that open a statement, not a declaration, before a call.
STATEMENT_WORDS = frozenset(
    "return new throw else case await yield if while for switch catch do delete typeof"
    " assert".split()
)
#: Names a block's opening takes that are no method: ``if (x) {``, C#'s ``lock (x) {``.
_CONTROL_WORDS = frozenset(
    "if for while switch catch try using lock foreach fixed checked unchecked synchronized"
    " function constructor return typeof sizeof nameof when with super this".split()
)
#: The methods every object has from its root class (Java's ``Object``, C#'s ``object``,
#: JavaScript's ``Object.prototype``): a class declaring one overrides or overloads a name
#: all share, as ``@Override`` says (``_overrides``). commons-lang's ``ObjectUtils``,
#: ``TypeUtils`` and ``DiffResult`` each declare a ``toString``, and as definitions they
#: put ``ToStringBuilder.java`` out of the first four files for "toString builder for
#: human-readable object descriptions".
_EVERY_OBJECTS = frozenset(
    "toString hashCode equals clone finalize getClass ToString GetHashCode Equals GetType"
    " valueOf toJSON toLocaleString".split()
)
#: With no word before the name, the rest of a method's line: parameters with no string,
#: callback or call in them, closed, then maybe a return type or ``throws``, then the body's
#: brace; a call's (``describe('x', () => {``, ``expect(v).toEqual({``) is not so.
_PARAMETERS_THEN_BODY = re.compile(r"[^()'\"`]*\)[ \t]*(?:(?::|throws\b)[^(){}'\"`;]*)?\{")
#: Blocks opened at column 0 whose items are a file's top level, one level in, by the file's
#: extension: the opening line and the word that closes the block at column 0. A Rust macro
#: called on a block of items (tokio declares most of its types inside ``cfg_rt! {``), a
#: Ruby ``module`` (``module Sinatra`` holds ``class Base``), a C# or C++ ``namespace``
#: whose body is indented (its brace maybe on the next line).
_NAMESPACE_BLOCKS = {
    ".rs": (re.compile(r"[A-Za-z_]\w*![ \t]*\{[ \t]*"), "}"),
    ".rb": (re.compile(r"module[ \t]+[\w:]+[ \t]*"), "end"),
    ".cs": (re.compile(r"namespace[ \t]+[\w.]+[ \t]*\{?[ \t]*"), "}"),
} | dict.fromkeys(
    (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".h"),
    (re.compile(r"namespace(?:[ \t]+[\w:]+)?[ \t]*\{?[ \t]*"), "}"),
)
#: TypeScript's and JavaScript's files, where ``type`` also marks a name imported or
#: exported as a type, and only ``type Name<T> =`` defines one (as Python's ``type``).
_SCRIPT_SUFFIXES = frozenset(".ts .tsx .mts .cts .js .jsx .mjs .cjs".split())
#: The definer keywords of languages whose prose no comment marker opens: a Python
#: docstring's "load it from a static model" defined ``model``, "the type of" ``of``
#: (pydantic: about a thousand such names); Elixir's ``@doc`` heredocs likewise, and its
#: ``alias Ecto.Changeset`` names a module it uses, not one it defines.
_OWN_KEYWORDS = dict.fromkeys((".py", ".pyi"), frozenset({"def", "class", "type"})) | dict.fromkeys(
    (".ex", ".exs"), frozenset({"def", "defp", "defmacro", "defmodule", "defprotocol"})
)
_TYPE_ALIAS_ONLY = _SCRIPT_SUFFIXES | {".py", ".pyi"}
_TYPE_ALIAS = re.compile(rf"[ \t]*(?:{TYPE_PARAMETERS})?[ \t]*=")
#: What follows the trait's name in Rust's ``impl Trait for Type``.
_TRAIT_FOR = re.compile(r"(?:<[^>\n]*>)?[ \t]+for\b")
#: Words after a definer keyword that are no name: other keywords and modifiers.
_NOT_NAMES = frozenset(_KIND_OF) | frozenset(
    "final abstract public private protected internal inline mut async override open"
    " readonly export default extern unsafe volatile synchronized native transient virtual"
    " sealed data case enum annotation suspend lateinit operator infix tailrec constexpr"
    " inner companion void int long char bool boolean double float short byte unsigned signed"
    " auto".split()
)
#: Names no declared method of ours takes (``declared_method``).
_NO_METHOD_NAMES = _CONTROL_WORDS | _NOT_NAMES | _EVERY_OBJECTS
# Never across two lines but the one holding the return type above the name.
_C_FUNCTION = re.compile(
    rf"^(?:{_IDENT}[\w \t*&<>,:]*(?:[ \t*&]|\n))?(?:\w+::)*({_IDENT})[ \t]*\([^;\n]*$",
    re.MULTILINE,
)
_C_NOT_NAMES = frozenset("if for while switch return sizeof else do case".split())
# C's aliases, at column 0: ``typedef struct uv_tcp_s uv_tcp_t;`` (the keyword reading names
# the struct, not the alias), a function pointer's ``typedef void (*uv_close_cb)(...);``, and
# a body's closing ``} uv_buf_t;``.
_C_ALIAS = re.compile(
    r"^typedef\b[^;{}()\n]*?\b([A-Za-z_]\w*)(?:\[[^\]\n]*\])*[ \t]*;"
    r"|^typedef\b[^;{}\n]*?\([ \t]*\*[ \t]*([A-Za-z_]\w*)[ \t]*\)"
    r"|^\}[ \t]*([A-Za-z_]\w*)[ \t]*;",
    re.MULTILINE,
)
#: The languages that declare a type before the name (Go's ``const maxSize int`` and Rust's
#: ``static COUNT: usize`` put it after).
_TYPE_FIRST_SUFFIXES = C_SUFFIXES | DECLARED_SUFFIXES
#: After ``static`` or ``const``, what shows the word read as the name to be a type: another
#: word after it (``static uv_loop_t default_loop;``, Java's ``static String join(``), maybe
#: past its type arguments, brackets or a pointer's star.
_TYPE_THEN_NAME = re.compile(rf"(?:{TYPE_PARAMETERS})?(?:\[\])*[ \t*&]+[A-Za-z_]")


def is_code(path: str) -> bool:
    dot = path.rfind(".")
    return dot > path.rfind("/") and path[dot:].lower() in CODE_SUFFIXES


def defined_names(text: str, path: str) -> dict[str, set[str]]:
    """Each name the text defines, with the kinds it is defined as (and ``TOP_LEVEL``
    beside them where a definition of it is unindented); ``path`` (relative, with "/")
    tells code from prose and C from the rest. A qualified name (``Ecto.Changeset``)
    is kept whole and by its last part."""
    if not is_code(path):
        return {}
    found: dict[str, set[str]] = {}

    def add(name: str, kind: str) -> None:
        if len(found) < MAX_NAMES or name in found:
            found.setdefault(name, set()).add(kind)

    suffix = path[path.rfind(".") :].lower()
    padded = "\n" + text
    one_level_in = _one_level_in_namespaces(padded, suffix)
    comments = comment_openings(suffix)
    own_keywords = _OWN_KEYWORDS.get(suffix)
    strings = triple_quoted(padded, suffix)
    string_starts = [start for start, _, _ in strings]
    for match in _KEYWORD.finditer(padded):
        keyword, name = match.groups()
        if name in _NOT_NAMES or (own_keywords is not None and keyword not in own_keywords):
            continue
        held = bisect_right(string_starts, match.start(1)) - 1
        if held >= 0 and match.start(1) < strings[held][1]:
            continue  # a docstring's example (``def read_item(``) defines nothing
        line = padded.rfind("\n", 0, match.start(1)) + 1
        if padded[line : match.start(1)].lstrip().startswith(comments):
            continue
        if keyword == "impl" and _TRAIT_FOR.match(padded, match.end(2)):
            continue  # Rust's ``impl Serialize for Point`` implements the trait, defines no name
        if (
            keyword in ("static", "const")
            and suffix in _TYPE_FIRST_SUFFIXES
            and _TYPE_THEN_NAME.match(padded, match.end(2))
        ):
            continue  # ``static uv_loop_t default_loop;``: the word after the keyword is a type
        if (
            keyword == "type"
            and suffix in _TYPE_ALIAS_ONLY
            and not _TYPE_ALIAS.match(padded, match.end(2))
        ):
            continue  # ``import { type ZodError } from``: TypeScript's alias has its ``=``
        kinds = [_KIND_OF.get(keyword, "type")]
        if padded[line] not in " \t" or line in one_level_in:
            kinds.append(TOP_LEVEL)
        last = re.split(r"\.|::", name)[-1]
        for kind in kinds:
            if "<" not in name:
                add(name, kind)
            if last != name:
                add(last, kind)
    if suffix in DECLARED_SUFFIXES:
        for name in _declared_methods(text):
            add(name, C_FUNCTION)
    if suffix in C_SUFFIXES:
        for name in _c_functions(text):
            add(name, C_FUNCTION)
            add(name, TOP_LEVEL)  # the pattern reads column 0 alone
        for name in _c_aliases(text):
            add(name, "type")
            add(name, TOP_LEVEL)
    return found


def keywordless_names(text: str, path: str) -> Iterator[str]:
    """The names the text defines where no definer keyword opens them: a declared method
    (``DECLARED_SUFFIXES``), a C function or alias (``C_SUFFIXES``)."""
    suffix = path[path.rfind(".") :].lower()
    if suffix in DECLARED_SUFFIXES:
        yield from _declared_methods(text)
    if suffix in C_SUFFIXES:
        yield from _c_functions(text)
        yield from _c_aliases(text)


def _c_functions(text: str) -> Iterator[str]:
    """The functions a C or C++ text declares at column 0 (``_C_FUNCTION``)."""
    return (name for name in _C_FUNCTION.findall(text) if name not in _C_NOT_NAMES)


def _c_aliases(text: str) -> Iterator[str]:
    """The aliases a C or C++ text's ``typedef``s make (``_C_ALIAS``)."""
    for alias in _C_ALIAS.finditer(text):
        name = next(group for group in alias.groups() if group)
        if name not in _NOT_NAMES:
            yield name


def _declared_methods(text: str) -> Iterator[str]:
    """The names of the methods the text declares (``_DECLARED_METHOD``), overrides left
    out (``_overrides``). The lines are found first by a cheaper pattern, and those ended by
    ``;`` left out, before the full one is tried: a third of the time of it alone on
    commons-lang's sources."""
    for candidate in _METHOD_LINE.finditer(text):
        end = text.find("\n", candidate.end())
        line = text[candidate.start() : end if end >= 0 else len(text)].rstrip()
        match = None if line.endswith(";") else _DECLARED_METHOD.match(line)
        if match is None:
            continue
        name = declared_method(*match.groups())
        if name is not None and not _overrides(text, candidate.start(), line, match[1]):
            yield name


def _overrides(text: str, start: int, line: str, before: str) -> bool:
    """Whether the method declared on the line at ``start`` overrides one: ``@Override``
    on it or in the annotations right above it (Java), ``override`` among its modifiers
    (C#, TypeScript). An override implements a name its base defines, as Rust's ``impl
    Trait for Type`` does: forty of commons-lang's classes override ``hashCode``, and as
    definitions they lifted ``ObjectUtils.java`` over ``HashCodeBuilder.java`` for "hash
    code builder for consistent hashCode implementation"."""
    if "@Override" in line or "override" in before.split():
        return True
    while start > 0:
        above = text.rfind("\n", 0, start - 1) + 1
        annotation = text[above : start - 1].strip()
        if not annotation.startswith("@"):
            return False
        if annotation.startswith("@Override"):
            return True
        start = above
    return False


def declared_method(before: str, name: str, rest: str) -> str | None:
    """The name a ``_DECLARED_METHOD`` match declares, or None where the line is a
    statement: words before the name that open one (``return foo(x) {``), a control
    block's opening, a line ended by ``;`` (a call, an interface's or an abstract
    declaration: what is defined is its implementation), a name every object has
    (``_EVERY_OBJECTS``). With no word before the name
    (TypeScript's ``render() {``), only a body's opening and parameters with no string or
    callback in them tell a method from a call."""
    rest = rest.rstrip()
    if rest.endswith(";") or name in _NO_METHOD_NAMES:
        return None
    words = before.split()
    if words and words[0] in STATEMENT_WORDS:
        return None
    if not words and (_PARAMETERS_THEN_BODY.fullmatch(rest) is None or "=>" in rest):
        return None
    return name


def _one_level_in_namespaces(padded: str, suffix: str) -> set[int]:
    """Where the lines one level inside a top-level namespace block (``_NAMESPACE_BLOCKS``)
    start. The level is the indentation of the block's first line of content; a block whose
    content starts at column 0 (abseil's ``namespace absl {``) marks nothing, its items
    being at column 0 already."""
    if suffix not in _NAMESPACE_BLOCKS:
        return set()
    opener, closer = _NAMESPACE_BLOCKS[suffix]
    starts: set[int] = set()
    inside, unit, at = False, None, 0
    for line in padded.split("\n"):
        text = line.rstrip("\r")
        if inside and text.startswith(closer):
            inside = False
        elif inside and text.strip() and text.strip() != "{":
            if unit is None:
                unit = text[: len(text) - len(text.lstrip(" \t"))]
            if unit and text.startswith(unit) and text[len(unit)] not in " \t":
                starts.add(at)
        elif not inside and opener.fullmatch(text):
            inside, unit = True, None
        at += len(line) + 1
    return starts


def definition_terms(names: dict[str, set[str]]) -> list[str]:
    """The definitions field's terms for a file's names: one a name and kind."""
    return [f"{DEFINITION_FIELD}{kind}={name}" for name, kinds in names.items() for kind in kinds]


def query_definition_terms(name: str) -> list[str]:
    """The terms a file that defines ``name`` (as any kind) holds one of."""
    return [f"{DEFINITION_FIELD}{kind}={name}" for kind in KINDS]


def top_level_term(name: str) -> str:
    """The term a file that defines ``name`` at its top level (``TOP_LEVEL``) holds."""
    return f"{DEFINITION_FIELD}{TOP_LEVEL}={name}"
