"""A member asked for by its owner's name: does ``rrg -q "Owner.method"`` show that
owner's method, where the same file defines the method for other owners too? This checkout
against an earlier one, on real trees.

tokio's ``bounded.rs`` defines ``send`` for ``Sender``, ``Permit`` and ``OwnedPermit``;
``rrg -q "tokio::sync::mpsc::Sender::send" -n 'fn \\w+'`` printed ``OwnedPermit``'s line
first. The queries are made from the trees: the methods that one file defines under two
owners or more, read by a parser, not by rrg (Python's ``ast``; Rust's ``impl`` blocks and
Java's classes by tree-sitter; Go's receivers), 12 a tree drawn with a fixed seed, each
asked in three forms:
``Owner.method`` (``Owner::method`` in Rust), the module's dotted name before it where
the file has one (``benchmarks.named_files.dotted_name``), and a question,
``where is Owner.method defined``. For each query:

- line: with the language's definition pattern (``-n 'def \\w+'``), the first line printed
  of the file is the method's defining line (of the queries whose output holds the file);
- passage: the first passage ``-q Q`` prints of the file lies in the method (its comments
  and decorators to its end).

With ``--names`` a question names a method by its name alone, an identifier as a question
names one (``as_coeff_Mul``, ``ServeHTTP``, ``parse_args``; one a file, any such method
the parsers read): ``where is {name} defined``, ``how does {name} work``; a hit is a
defining line, a passage, of that name in the file (sympy's ``mul.py`` defines
``as_coeff_mul`` and ``as_coeff_Mul``, and BM25 reads them alike).

With ``--owners`` the files are asked for: the methods whose name other files define for
other owners (pydantic's ``model_dump``: ``BaseModel``'s in ``main.py``, ``RootModel``'s
in ``root_model.py``), one file defining the owner's, asked as ``Owner.method`` and
"where is Owner.method defined"; the "line" column is then whether ``--files`` lists
that file first.

With ``--methods`` a method is asked for by its name alone, as a symbol query and as a
question (``fromJson``, "where is fromJson defined"), in Java and TypeScript, whose methods
no definer keyword opens: the methods whose name at most three files define (an
identifier as a query names one: ``fromJson``, not ``read``), one a name; the "line"
column is whether ``--files`` lists a file that defines it first.

Usage: python -m benchmarks.member_lines OLD_CHECKOUT TREE... [--names | --owners | --methods]
"""

from __future__ import annotations

import ast
import random
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.common import index_sides, listed_files, machine, needs_arguments, rg, rrg, side_env
from benchmarks.named_files import dotted_name
from rrg.rank.code_priors import query_form, secondary_kinds

if TYPE_CHECKING:
    from tree_sitter import Node

PER_TREE = 12
#: How a question names a method by its name alone (``--names``).
NAME_FORMS = {"where": "where is {name} defined", "how": "how does {name} work"}
PATTERNS = {
    ".py": r"def \w+",
    ".rs": r"fn \w+",
    ".go": r"func .*\w+\(",
    ".java": r"(public|protected|private|static) .*\w+\(",
}
SEPARATOR = {".py": ".", ".rs": "::", ".go": ".", ".java": "."}


@dataclass(frozen=True)
class Member:
    path: str
    owner: str
    name: str
    first: int  # its comments' or decorators' first line
    line: int  # its defining line
    last: int


def python_members(text: str, path: str) -> list[Member]:
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    first = min([item.lineno, *(d.lineno for d in item.decorator_list)])
                    last = item.end_lineno or item.lineno
                    out.append(Member(path, node.name, item.name, first, item.lineno, last))
    return out


def _nodes(text: str, language: object) -> Iterator[Node]:
    """Every node of the text's tree-sitter parse, parents before their children."""
    from tree_sitter import Language, Parser

    stack = [Parser(Language(language)).parse(text.encode()).root_node]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        yield node


def rust_members(text: str, path: str) -> list[Member]:
    import tree_sitter_rust

    out = []
    for node in _nodes(text, tree_sitter_rust.language()):
        if node.type != "impl_item":
            continue
        kind = node.child_by_field_name("type")
        body = node.child_by_field_name("body")
        if kind is None or body is None:
            continue
        owner = re.sub(r"<.*", "", (kind.text or b"").decode()).split("::")[-1]
        items = body.named_children
        for k, item in enumerate(items):
            if item.type != "function_item":
                continue
            name = item.child_by_field_name("name")
            if name is None:
                continue
            first = item.start_point[0]
            j = k - 1
            while j >= 0 and items[j].type in ("line_comment", "attribute_item", "block_comment"):
                first = items[j].start_point[0]
                j -= 1
            out.append(
                Member(
                    path,
                    owner,
                    (name.text or b"").decode(),
                    first + 1,
                    item.start_point[0] + 1,
                    item.end_point[0] + 1,
                )
            )
    return out


def java_members(text: str, path: str) -> list[Member]:
    import tree_sitter_java

    out = []
    for node in _nodes(text, tree_sitter_java.language()):
        if node.type not in ("class_declaration", "enum_declaration", "interface_declaration"):
            continue
        owner = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if owner is None or body is None:
            continue
        items = body.named_children
        for k, item in enumerate(items):
            name = item.child_by_field_name("name")
            if item.type != "method_declaration" or name is None:
                continue
            if item.child_by_field_name("body") is None:
                continue  # an interface's or an abstract declaration
            first = item.start_point[0]
            if k and items[k - 1].type == "block_comment":
                first = items[k - 1].start_point[0]
            out.append(
                Member(
                    path,
                    (owner.text or b"").decode(),
                    (name.text or b"").decode(),
                    first + 1,
                    (name.start_point[0]) + 1,
                    item.end_point[0] + 1,
                )
            )
    return out


def typescript_members(text: str, path: str) -> list[Member]:
    import tree_sitter_typescript

    language = (
        tree_sitter_typescript.language_tsx()
        if path.endswith(".tsx")
        else tree_sitter_typescript.language_typescript()
    )
    out = []
    for node in _nodes(text, language):
        if node.type not in ("class_declaration", "abstract_class_declaration"):
            continue
        owner = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if owner is None or body is None:
            continue
        for item in body.named_children:
            name = item.child_by_field_name("name")
            if item.type != "method_definition" or name is None:
                continue
            line = name.start_point[0] + 1
            out.append(
                Member(
                    path,
                    (owner.text or b"").decode(),
                    (name.text or b"").decode(),
                    item.start_point[0] + 1,
                    line,
                    item.end_point[0] + 1,
                )
            )
    return out


_GO_METHOD = re.compile(r"^func \(\w+ \*?(\w+)(?:\[[^\]]*\])?\) (\w+)\(", re.M)


def go_members(text: str, path: str) -> list[Member]:
    lines = text.split("\n")
    out = []
    for match in _GO_METHOD.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        first = line
        while first > 1 and lines[first - 2].startswith("//"):
            first -= 1
        last = next((n for n in range(line, len(lines) + 1) if lines[n - 1] == "}"), line)
        out.append(Member(path, match[1], match[2], first, line, last))
    return out


Reader = Callable[[str, str], list[Member]]
READERS: dict[str, Reader] = {
    ".py": python_members,
    ".rs": rust_members,
    ".go": go_members,
    ".java": java_members,
}
#: ``--methods`` reads TypeScript's classes too (the other forms' samples stay as they were).
METHOD_READERS = READERS | {".ts": typescript_members, ".tsx": typescript_members}


def read_members(tree: Path, paths: list[str], readers: dict[str, Reader]) -> list[Member]:
    """The methods the files define, as the parsers read them."""
    out = []
    for path in paths:
        try:
            text = (tree / path).read_text()
            out += readers[Path(path).suffix](text, path)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
    return out


def shared_members(members: list[Member]) -> list[Member]:
    """The methods a file defines under two owners or more, each owner's one."""
    owners: dict[tuple[str, str], set[str]] = defaultdict(set)
    for m in members:
        owners[(m.path, m.name)].add(m.owner)
    out = [m for m in members if len(owners[(m.path, m.name)]) > 1 and not m.name.startswith("__")]
    # One a (file, owner, name): an owner with two impl blocks of one name is no answer.
    seen: dict[tuple[str, str, str], int] = defaultdict(int)
    for m in out:
        seen[(m.path, m.owner, m.name)] += 1
    return [m for m in out if seen[(m.path, m.owner, m.name)] == 1]


def owners_elsewhere(members: list[Member]) -> list[Member]:
    """The methods whose name other files define too, for other owners, and whose owner's
    method of that name one file defines: ``BaseModel.model_dump`` is pydantic's
    ``main.py``'s, not ``root_model.py``'s (``RootModel``'s)."""
    files_of: dict[str, set[str]] = defaultdict(set)
    pairs: dict[tuple[str, str], set[str]] = defaultdict(set)
    for m in members:
        files_of[m.name].add(m.path)
        pairs[(m.owner, m.name)].add(m.path)
    out: dict[tuple[str, str], Member] = {}
    for m in members:
        shared = len(files_of[m.name]) > 1 and len(pairs[(m.owner, m.name)]) == 1
        if shared and not m.name.startswith("__"):
            out.setdefault((m.owner, m.name), m)
    return list(out.values())


def first_file(tree: Path, query: str, wanted: list[Member], env: dict[str, str]) -> int:
    """Whether ``rrg -q QUERY --files`` lists one of the members' files first."""
    listed = listed_files(tree, query, env, [])
    return int(bool(listed) and listed[0] in {m.path for m in wanted})


#: A method asked for by its name alone (``--methods``): at most this many files define it.
METHOD_FILES = 3
#: The languages whose methods no definer keyword opens (``--methods``).
KEYWORDLESS = (".java", ".ts", ".tsx")


def methods_by_name(members: list[Member]) -> list[Member]:
    """One method a name, in Java and TypeScript, whose name an identifier query names
    (``query_form``: ``fromJson``, not ``read``) and at most ``METHOD_FILES`` files
    define."""
    files_of: dict[str, set[str]] = defaultdict(set)
    for m in members:
        files_of[m.name].add(m.path)
    out: dict[str, Member] = {}
    for m in members:
        if Path(m.path).suffix not in KEYWORDLESS or len(files_of[m.name]) > METHOD_FILES:
            continue
        form = query_form(m.name)
        if form.symbol and form.names == (m.name,):
            out.setdefault(m.name, m)
    return list(out.values())


def named_in_questions(members: list[Member]) -> list[Member]:
    """One method a (file, name) whose name a question names as an identifier
    (``rrg.rank.code_priors.query_form``: ``as_coeff_Mul``, ``ServeHTTP``, not ``run``)."""
    out: dict[tuple[str, str], Member] = {}
    for m in members:
        if not m.name.startswith("__") and query_form(
            NAME_FORMS["where"].format(name=m.name)
        ).names == (m.name,):
            out.setdefault((m.path, m.name), m)
    return list(out.values())


def queries(tree: Path, member: Member) -> dict[str, str]:
    sep = SEPARATOR[Path(member.path).suffix]
    out = {
        "owner": f"{member.owner}{sep}{member.name}",
        "question": f"where is {member.owner}{sep}{member.name} defined",
    }
    module = dotted_name(tree, member.path)
    if module:
        out["module"] = f"{module}{sep}{member.owner}{sep}{member.name}"
    return out


def first_line(tree: Path, query: str, wanted: list[Member], env: dict[str, str]) -> int | None:
    """Whether the first line printed of the members' file is a defining line of one of
    them (None: the file was not printed, or the pattern matches none of those lines)."""
    path = wanted[0].path
    pattern = PATTERNS[Path(path).suffix]
    lines = (tree / path).read_text().split("\n")
    if not any(re.search(pattern, lines[m.line - 1]) for m in wanted):
        return None  # the pattern cannot print it (Java's methods without a modifier)
    out = subprocess.run(
        [*rrg(), "-q", query, "-n", pattern], cwd=tree, env=env, capture_output=True, text=True
    ).stdout
    prefix = path + ":"
    for line in out.splitlines():
        if line.startswith(prefix):
            number = line[len(prefix) :].split(":", 1)[0]
            return int(number.isdigit() and int(number) in {m.line for m in wanted})
    return None


_HEADING = re.compile(r"^(.+):(\d+)-(\d+):$")


def first_passage(tree: Path, query: str, wanted: list[Member], env: dict[str, str]) -> int | None:
    """Whether the first passage printed of the members' file is one of theirs (None: no
    passage of the file was printed)."""
    out = subprocess.run(
        [*rrg(), "-q", query, "--limit", "10"], cwd=tree, env=env, capture_output=True, text=True
    ).stdout
    for line in out.splitlines():
        heading = _HEADING.match(line)
        if heading and heading[1] == wanted[0].path:
            start, end = int(heading[2]), int(heading[3])
            # Its comments to its defining line: a class's or impl's first member is cut
            # with the owner's first line above it.
            return int(any(start <= m.line and end >= m.first for m in wanted))
    return None


def _share(hits: list[int | None]) -> str:
    seen = [h for h in hits if h is not None]
    return f"{sum(seen) / len(seen):.3f} ({len(seen)}/{len(hits)})" if seen else "-"


def main() -> None:
    needs_arguments(2, __doc__)
    flags = ("--names", "--owners", "--methods")
    by_name, by_owner, by_method = (flag in sys.argv for flag in flags)
    old, *named = [a for a in sys.argv[1:] if a not in flags]
    trees = [Path(t).resolve() for t in named]
    scratch = Path(tempfile.mkdtemp(prefix="rrg-members-"))
    sides = {"before": side_env(scratch, "before", old), "after": side_env(scratch, "after", "")}
    print(f"# {machine()}; right line, right passage (of the queries whose output held the file)")
    totals: dict[str, dict[str, list[int | None]]] = {s: {"line": [], "passage": []} for s in sides}
    forms: dict[tuple[str, str], list[int | None]] = defaultdict(list)
    for tree in trees:
        listed = subprocess.run([rg(), "--files"], cwd=tree, capture_output=True, text=True)
        readers = METHOD_READERS if by_method else READERS
        paths = sorted(
            p
            for p in listed.stdout.splitlines()
            if Path(p).suffix in readers and not secondary_kinds(p, frozenset())
        )
        parsed = read_members(tree, paths, readers)
        if by_method:
            members = methods_by_name(parsed)
        elif by_owner:
            members = owners_elsewhere(parsed)
        else:
            members = named_in_questions(parsed) if by_name else shared_members(parsed)
        if not members:
            continue
        random.Random(7).shuffle(members)
        index_sides(tree, sides.values())
        row: dict[str, dict[str, list[int | None]]] = {
            s: {"line": [], "passage": []} for s in sides
        }
        by_form: dict[tuple[str, str], list[int | None]] = defaultdict(list)
        for member in members[:PER_TREE]:
            if by_method:
                asked = {"symbol": member.name, "question": f"where is {member.name} defined"}
                wanted = [m for m in parsed if m.name == member.name]
            elif by_name:
                asked = {f: text.format(name=member.name) for f, text in NAME_FORMS.items()}
                wanted = [m for m in parsed if (m.path, m.name) == (member.path, member.name)]
            else:
                asked, wanted = queries(tree, member), [member]
                if by_owner:
                    asked.pop("module", None)  # the module names the file
            for form, query in asked.items():
                for side, env in sides.items():
                    line: int | None
                    passage: int | None
                    if by_owner or by_method:  # "line" holds the file listed first
                        line, passage = first_file(tree, query, wanted, env), None
                    else:
                        line = first_line(tree, query, wanted, env)
                        passage = first_passage(tree, query, wanted, env)
                    row[side]["line"].append(line)
                    row[side]["passage"].append(passage)
                    by_form[(side, f"{form} line")].append(line)
                    by_form[(side, f"{form} passage")].append(passage)
        for side in sides:
            for key in ("line", "passage"):
                totals[side][key] += row[side][key]
        for pair, hits in by_form.items():
            forms[pair] += hits
        label = tree.name if tree.name != "tree" else tree.parent.name
        cells = [
            f"{key} {_share(row['before'][key])} -> {_share(row['after'][key])}"
            for key in ("line", "passage")
        ]
        print(f"{label:20} " + "  ".join(cells), flush=True)
    cells = [
        f"{key} {_share(totals['before'][key])} -> {_share(totals['after'][key])}"
        for key in ("line", "passage")
    ]
    print(f"{'all':20} " + "  ".join(cells))
    for name in dict.fromkeys(key for _, key in forms):
        print(f"{name:20} {_share(forms[('before', name)])} -> {_share(forms[('after', name)])}")


if __name__ == "__main__":
    main()
