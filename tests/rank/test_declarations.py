"""A line that declares a method no keyword opens (``rrg.rank.declarations``): pure."""

from __future__ import annotations

import pytest

from rrg.rank.declarations import defines, first_defining


@pytest.mark.parametrize(
    ("line", "path"),
    [
        ("    public static boolean isBlank(final CharSequence cs) {", "StringUtils.java"),
        ("    @Override public String isBlank() {", "A.java"),
        ("    private static <T> List<T> isBlank(T x)", "A.java"),  # its brace below
        ("    public override string isBlank()", "A.cs"),
        ("  isBlank(value: string): boolean {", "a.ts"),
        ("  async isBlank(value) {", "a.js"),
        ("bool Foo::isBlank(int x) const {", "a.cpp"),
        ("    def isBlank(self):", "a.py"),  # the index's reading
    ],
)
def test_a_declaration_defines_its_name(line: str, path: str) -> None:
    assert defines(line, "isBlank", path)


@pytest.mark.parametrize(
    "line",
    [
        "    public static boolean isNotBlank(final CharSequence cs) {",
        "        return isBlank(cs);",
        "        return !isBlank(cs)",
        "        if (isBlank(cs)) {",
        "        } else if (isBlank(x)) {",
        "        boolean b = isBlank(cs);",
        "    StringUtils.isBlank(x) {",
        "    boolean isBlank(CharSequence cs);",  # an interface's: no body
        "  isBlank(value)",  # a call, where no brace opens a body
        "    // public static boolean isBlank(CharSequence cs) {",
    ],
)
def test_a_call_or_another_name_defines_nothing(line: str) -> None:
    path = "a.js" if line == "  isBlank(value)" else "A.java"
    assert not defines(line, "isBlank", path)


def test_a_language_with_definer_keywords_is_read_by_them_alone() -> None:
    # Python's call with a brace after it is no definition; nor is prose's.
    assert not defines("    isBlank(x) {", "isBlank", "a.py")
    assert not defines("    public static boolean isBlank(x) {", "isBlank", "notes.md")


def test_the_first_defining_line() -> None:
    text = (
        "    /** Whether isBlank(cs) holds. */\n"
        "    public static boolean isBlank(final CharSequence cs) {\n"
        "        return cs == null;\n"
        "    }"
    )
    assert first_defining(text, {"isBlank"}, "A.java") == 1
    assert first_defining(text, {"isEmpty"}, "A.java") is None
    # C's return type on the line above: the name's line.
    assert first_defining("static int\nparse(char *s)\n{\n}", {"parse"}, "a.c") == 1
