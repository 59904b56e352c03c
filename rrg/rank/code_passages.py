"""Passages of source code cut at its definitions, with tree-sitter.

Each function, method or class is one passage, its leading comments and decorators with it;
a definition too long for one passage is split by its members (a class by its methods), each
read under its owner's first line, or else into pieces of lines under its signature. The
statements between definitions are grouped into blank-line passages as prose is.

Prose, languages with no grammar here, a file past ``MAX_PARSE_BYTES`` (which also bounds
the parse's time: about 0.15 s for 500 KB) and a file that fails to parse keep blank-line
passages (``rrg.rank.paragraphs``). tree-sitter and its grammars load on the first code file
a query reads, never on the pass-through path.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import xxhash

from rrg.rank.paragraphs import MAX_CHARS, Paragraph, split_paragraphs

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

#: Files past this many bytes keep blank-line passages: parsing is linear in them.
MAX_PARSE_BYTES = 256 * 1024
#: A definition longer than this many characters is split by its members or its lines.
MAX_DEFINITION_CHARS = 2 * MAX_CHARS

#: File extension -> (grammar module, its function giving the language).
GRAMMARS = {
    **dict.fromkeys((".py", ".pyi"), ("tree_sitter_python", "language")),
    **dict.fromkeys((".js", ".jsx", ".mjs", ".cjs"), ("tree_sitter_javascript", "language")),
    ".ts": ("tree_sitter_typescript", "language_typescript"),
    ".mts": ("tree_sitter_typescript", "language_typescript"),
    ".tsx": ("tree_sitter_typescript", "language_tsx"),
    ".go": ("tree_sitter_go", "language"),
    ".rs": ("tree_sitter_rust", "language"),
    ".java": ("tree_sitter_java", "language"),
    **dict.fromkeys((".kt", ".kts"), ("tree_sitter_kotlin", "language")),
    **dict.fromkeys((".scala", ".sc"), ("tree_sitter_scala", "language")),
    **dict.fromkeys((".c", ".h"), ("tree_sitter_c", "language")),
    **dict.fromkeys(
        (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".ipp", ".inl"),
        ("tree_sitter_cpp", "language"),
    ),
    ".cs": ("tree_sitter_c_sharp", "language"),
    ".rb": ("tree_sitter_ruby", "language"),
    **dict.fromkeys((".ex", ".exs"), ("tree_sitter_elixir", "language")),
    ".swift": ("tree_sitter_swift", "language"),
    ".php": ("tree_sitter_php", "language_php"),
    **dict.fromkeys((".sh", ".bash"), ("tree_sitter_bash", "language")),
    ".lua": ("tree_sitter_lua", "language"),
}

#: Node types of functions and methods, across the grammars above: a passage of one that
#: does not start it (a later piece, a helper nested in it) answers as the function
#: (``Paragraph.within``).
FUNCTIONS = frozenset(
    {
        "function_definition",
        "function_declaration",
        "function_item",
        "method_definition",
        "method_declaration",
        "method",
        "singleton_method",
        "constructor_declaration",
        "generator_function_declaration",
        "local_function",
        "secondary_constructor",
        "init_declaration",
    }
)
#: Node types that are definitions: the functions, a signature alone, types and their
#: containers.
DEFINITIONS = FUNCTIONS | frozenset(
    {
        "function_signature_item",
        "class_definition",
        "class_declaration",
        "class_specifier",
        "struct_specifier",
        "struct_item",
        "struct_declaration",
        "enum_item",
        "enum_declaration",
        "enum_specifier",
        "union_specifier",
        "interface_declaration",
        "trait_item",
        "trait_definition",
        "trait_declaration",
        "impl_item",
        "object_definition",
        "object_declaration",
        "record_declaration",
        "protocol_declaration",
        "type_declaration",
        "type_item",
        "type_alias_declaration",
        "type_definition",
        "annotation_type_declaration",
        "abstract_class_declaration",
        "class",
        "module",
        "mod_item",
        "namespace_definition",
        "namespace_declaration",
        "internal_module",
        "macro_definition",
        "decorated_definition",
        "template_declaration",
        "property_declaration",
    }
)
#: Elixir writes definitions as calls: ``defmodule A do ... end``, ``def f(x)``; these
#: define functions.
_ELIXIR_FUNCTIONS = frozenset({b"def", b"defp", b"defmacro", b"defmacrop"})
_ELIXIR_DEFINERS = _ELIXIR_FUNCTIONS | frozenset(
    {b"defmodule", b"defprotocol", b"defimpl", b"defstruct", b"defdelegate", b"defguard"}
)
#: What ends a definition and says nothing: ``}``, ``});``, ``end``.
_CLOSING_ONLY = re.compile(r"[\s})\];,]*(?:end)?[\s;]*")
#: Wrappers whose one child may be the definition: ``export class A``, ``pub(crate) fn``.
_WRAPPERS = frozenset({"export_statement", "ambient_declaration"})


@cache
def _parser(extension: str) -> Parser | None:
    """A parser for files with this extension; None where no grammar is installed."""
    grammar = GRAMMARS.get(extension)
    if grammar is None:
        return None
    try:
        from tree_sitter import Language, Parser

        module = importlib.import_module(grammar[0])
        return Parser(Language(getattr(module, grammar[1])()))
    except (ImportError, AttributeError, ValueError, TypeError):
        return None  # a grammar missing or of an ABI this tree-sitter cannot load


@cache
def cut_make(extension: str) -> str:
    """What the cut of a file with this extension depends on besides its text: the cutting
    code (this module and ``rrg.rank.paragraphs``) and the tree-sitter and grammar installed
    (their files' size and time): a cut kept by a build that cuts otherwise is never read
    (``rrg.rank.kept_cuts``)."""
    from rrg.rank import paragraphs

    made = xxhash.xxh3_64()
    for source in (__file__, paragraphs.__file__):
        made.update(Path(source).read_bytes())
    grammar = GRAMMARS.get(extension)
    modules = ["tree_sitter", grammar[0]] if grammar else []
    for name in modules:
        try:
            stat = os.stat(importlib.import_module(name).__file__ or "")
        except (ImportError, OSError):
            continue  # no grammar: the file is cut at blank lines, by the code hashed above
        made.update(f"{name} {stat.st_size} {stat.st_mtime_ns}".encode())
    return made.hexdigest()


def cut_passages(text: str, name: str) -> list[Paragraph]:
    """The passages of a file's text (``name``: its path, which tells its language)."""
    dot = name.rfind(".")
    parser = _parser(name[dot:].lower()) if dot > name.rfind("/") else None
    data = text.encode("utf-8", "surrogatepass")
    if parser is None or len(data) > MAX_PARSE_BYTES:
        return split_paragraphs(text)
    try:
        tree = parser.parse(data)
    except Exception:  # noqa: BLE001 - a grammar's failure costs the file its cut, no more
        return split_paragraphs(text)
    if tree.root_node.has_error and not _mostly_parsed(tree.root_node):
        return split_paragraphs(text)
    lines = text.split("\n")
    return list(_passages(tree.root_node, lines)) or split_paragraphs(text)


def blank_line_passages(text: str, name: str) -> list[Paragraph]:
    """Code cut at blank lines, as prose is (``Tuning.code_passages`` off: the benchmarks
    compare the two)."""
    return split_paragraphs(text)


def _mostly_parsed(root: Node) -> bool:
    """Whether a tree with errors still holds definitions worth cutting at (a file with one
    syntax slip, or a newer syntax than the grammar knows, is most of the time)."""
    return any(_is_definition(child) for child in root.children)


def _is_definition(node: Node) -> bool:
    if not node.is_named:  # the keyword ``class`` is a token of that type in some grammars
        return False
    if node.type in DEFINITIONS:
        return True
    if node.type == "call" and node.child_count:  # Elixir
        head = node.children[0]
        return head.type == "identifier" and head.text in _ELIXIR_DEFINERS
    if node.type in _WRAPPERS:
        return any(_is_definition(child) for child in node.named_children)
    return False


def _passages(root: Node, lines: list[str]) -> Iterator[Paragraph]:
    """Definitions one a passage (split when long), the rest grouped by blank lines."""
    pending: list[Node] = []  # comments and statements since the last definition
    for child in root.children:
        if _is_definition(child):
            lead = _leading_comments(pending, child)
            rest = pending[: len(pending) - len(lead)]
            if rest:
                yield from _blocks(rest[0].start_point[0], rest[-1].end_point[0], lines)
            start = lead[0].start_point[0] if lead else child.start_point[0]
            yield from _definition(child, start, lines, "")
            pending = []
        elif child.type != "ERROR" or child.child_count:
            pending.append(child)
    if pending:
        yield from _blocks(pending[0].start_point[0], pending[-1].end_point[0], lines)


def _leading_comments(pending: list[Node], definition: Node) -> list[Node]:
    """The comments right above a definition, touching it and each other."""
    lead: list[Node] = []
    row = definition.start_point[0]
    for node in reversed(pending):
        if "comment" not in node.type or node.end_point[0] < row - 1:
            break
        lead.insert(0, node)
        row = node.start_point[0]
    return lead


def _text(start: int, end: int, lines: list[str]) -> str:
    return "\n".join(lines[start : end + 1]).strip("\n")


def _blocks(start: int, end: int, lines: list[str]) -> Iterator[Paragraph]:
    """Rows start..end (0-based) as blank-line passages, numbered as in the file."""
    for p in split_paragraphs(_text(start, end, lines)):
        yield replace(p, start=p.start + start, end=p.end + start)


def _definition(
    node: Node, start: int, lines: list[str], context: str, within: str = ""
) -> Iterator[Paragraph]:
    """One definition from row ``start``: whole, or split by its members, or by lines;
    ``within``: the function it is nested in (its name), if any."""
    end = node.end_point[0]
    text = _text(start, end, lines)
    if not text.strip():
        return
    name = defined_name(node)
    if len(text) <= MAX_DEFINITION_CHARS:
        yield Paragraph(start + 1, end + 1, text, context, name, within)
        return
    # A function's parts after its first passage answer as the function (the outermost,
    # where functions nest: what is nested in one is its own); a class's members are
    # definitions of their own.
    later = within or (name if name and _is_function(node) else "")
    members = _members(node)
    own = lines[node.start_point[0]].strip()
    if members:
        at = start
        for member in members:
            # What lies above a member belongs to it (its doc comment, @doc, attributes),
            # but for the owner's head: its line, docstring and fields, before the first.
            begin = _first_line(at, member.start_point[0], lines)
            if member is members[0] and begin < member.start_point[0]:
                head_end = _doc_start(begin, member.start_point[0], lines)
                if head_end > begin:
                    yield from _pieces(begin, head_end - 1, lines, context, name, within, later)
                begin = head_end
            yield from _definition(member, begin, lines, own, later)
            at = member.end_point[0] + 1
        # The body after the last member (a function's code that calls its nested helper,
        # a class's trailing fields) is read too; a closing brace or ``end`` alone is not.
        tail = _first_line(at, end, lines)
        if not _CLOSING_ONLY.fullmatch(_text(tail, end, lines)):
            yield from _pieces(tail, end, lines, own, "", later, later)
        return
    # Each piece is read under its owner's line and its own signature.
    context = f"{context}\n{own}" if context else own
    yield from _pieces(start, end, lines, context, name, within, later)


def _is_function(node: Node) -> bool:
    """Whether a definition node is a function or method (through decorators, ``export``,
    and Elixir's ``def``)."""
    if node.type == "decorated_definition":
        inner = node.child_by_field_name("definition")
        return inner is not None and _is_function(inner)
    if node.type in _WRAPPERS:
        return any(_is_function(child) for child in node.named_children)
    if node.type == "call" and node.child_count:  # Elixir
        return node.children[0].text in _ELIXIR_FUNCTIONS
    return node.type in FUNCTIONS


def defined_name(node: Node) -> str:
    """The name a definition node gives (``factorint``, ``Router.Handle``'s ``Handle``,
    C++'s ``Foo::bar``'s ``bar``), through decorators, ``export`` and declarators; empty
    where its grammar names none (a Rust ``impl``, an Elixir call)."""
    for _ in range(8):
        named = node.child_by_field_name("name")
        if named is not None:
            node = named  # an identifier, or a qualified one with a name of its own
            continue
        if node.type.endswith("identifier") or node.type == "constant":
            return (node.text or b"").decode("utf-8", "replace")
        inner = node.child_by_field_name("definition") or node.child_by_field_name("declarator")
        if inner is None:
            inner = next(
                (c for c in node.named_children if c.type == "type_spec" or _is_definition(c)),
                None,
            )
        if inner is None:
            return ""
        node = inner
    return ""


def _first_line(start: int, end: int, lines: list[str]) -> int:
    """The first row in start..end that is not blank (``end`` where all are)."""
    while start < end and not lines[start].strip():
        start += 1
    return start


def _doc_start(start: int, end: int, lines: list[str]) -> int:
    """Where the lines right above row ``end`` that document it begin: the block of
    non-blank lines touching it (a doc comment, attributes), within start..end."""
    at = end
    while at > start and lines[at - 1].strip():
        at -= 1
    return at


def _members(node: Node) -> list[Node]:
    """The definitions nearest below a definition (a class's methods, an impl's functions),
    looked for through its body's nodes but not inside other definitions."""
    found: list[Node] = []
    todo = list(node.children)
    while todo:
        child = todo.pop(0)
        if _is_definition(child):
            found.append(child)
        elif child.child_count and child.end_point[0] > child.start_point[0]:
            todo[:0] = child.children
    return sorted(found, key=lambda n: n.start_point[0])


def _pieces(
    start: int,
    end: int,
    lines: list[str],
    context: str,
    name: str = "",
    within: str = "",
    later: str = "",
) -> Iterator[Paragraph]:
    """Rows start..end as consecutive pieces of at most MAX_CHARS characters each; the
    first carries the ``name`` of the definition it starts and ``within``, the rest
    ``later`` (``Paragraph.within``)."""
    at = start
    while at <= end:
        at = _first_line(at, end, lines)  # a piece starts on its first text
        size, stop = 0, at
        while stop <= end and (stop == at or size + len(lines[stop]) + 1 <= MAX_CHARS):
            size += len(lines[stop]) + 1
            stop += 1
        last = stop - 1
        while last > at and not lines[last].strip():  # a piece ends on its last text
            last -= 1
        text = _text(at, last, lines)
        if text.strip():
            if len(text) > MAX_CHARS:  # one line longer than a passage: cut as prose is
                for p in split_paragraphs(text):
                    yield replace(
                        p,
                        start=p.start + at,
                        end=p.end + at,
                        context=context,
                        name=name,
                        within=within,
                    )
                    name, within = "", later
            else:
                yield Paragraph(at + 1, last + 1, text, context, name, within)
            name, within = "", later
        at = stop
