"""Whose member a passage's definition is (``rrg.rank.member_of``): pure, on passages cut
as the index cuts them."""

from __future__ import annotations

from rrg.rank.code_passages import cut_passages
from rrg.rank.member_of import asked_owner, is_member_of
from rrg.rank.paragraphs import Paragraph


def test_the_owner_is_the_part_before_the_last() -> None:
    assert asked_owner("tokio::sync::mpsc::Sender::send") == "Sender"
    assert asked_owner("sympy.core.expr.Expr.as_coeff_Mul") == "Expr"
    assert asked_owner("Foo#bar") == "Foo"
    assert asked_owner("send") is None


def test_a_short_class_cut_whole_holds_its_method() -> None:
    text = (
        "class Sender:\n"
        "    def send(self, value):\n"
        "        return value\n\n"
        "class Permit:\n"
        "    # A Sender hands these out.\n"
        "    def send(self, value):\n"
        "        return Sender()\n"
    )
    sender = Paragraph(1, 3, "\n".join(text.split("\n")[:3]))
    permit = Paragraph(5, 8, "\n".join(text.split("\n")[4:8]))
    assert is_member_of(sender, "send", "Sender", "a.py")
    # Its comment and its body name Sender; what holds it is Permit.
    assert not is_member_of(permit, "send", "Sender", "a.py")
    assert is_member_of(permit, "send", "Permit", "a.py")


def test_a_receiver_or_an_extension_names_its_owner_before_the_name() -> None:
    go = Paragraph(1, 3, "func (s *Sender) Send(v int) error {\n\treturn nil\n}")
    assert is_member_of(go, "Send", "Sender", "a.go")
    kotlin = Paragraph(1, 1, "fun Sender.send(v: Int): Sender = this")
    assert is_member_of(kotlin, "send", "Sender", "a.kt")
    # A return type after the name is no owner.
    returns = Paragraph(1, 1, "    pub fn send(mut self, value: T) -> Sender<T> {")
    assert not is_member_of(returns, "send", "Sender", "a.rs")


def test_a_method_cut_from_a_long_impl_is_read_under_it() -> None:
    methods = "".join(
        f"    /// Step {k} of the sender.\n    pub fn step_{k}(&self) -> usize {{\n"
        f"        {k} + self.base * {k}\n    }}\n\n"
        for k in range(60)
    )
    text = (
        "impl<T> Sender<T> {\n" + methods + "    pub fn send(&self, value: T) {}\n}\n\n"
        "impl<T> Permit<T> {\n" + methods + "    pub fn send(self, value: T) {}\n}\n"
    )
    cut = [p for p in cut_passages(text, "chan.rs") if "fn send" in p.text]
    assert len(cut) == 2, cut
    sender, permit = cut
    assert is_member_of(sender, "send", "Sender", "chan.rs")
    assert not is_member_of(permit, "send", "Sender", "chan.rs")
    assert is_member_of(permit, "send", "Permit", "chan.rs")


def test_a_nested_owner_is_the_nearest() -> None:
    text = "class Outer:\n    class Inner:\n        def run(self):\n            pass\n"
    passage = Paragraph(1, 4, text)
    assert is_member_of(passage, "run", "Inner", "a.py")
    assert not is_member_of(passage, "run", "Outer", "a.py")


def test_a_passage_that_does_not_define_the_name_is_no_member() -> None:
    passage = Paragraph(1, 2, "class Sender:\n    value = send(1)")
    assert not is_member_of(passage, "send", "Sender", "a.py")


def test_a_subclass_holds_its_own_methods_not_its_bases() -> None:
    """fastapi's ``HTTPBasic(HTTPBase)`` overrides ``make_authenticate_headers``: its
    class line names the base, which does not hold it."""
    base = Paragraph(1, 2, "class HTTPBase:\n    def headers(self):\n        return {}")
    sub = Paragraph(
        1, 2, "    def headers(self):\n        return {'a': 1}", "class HTTPBasic(HTTPBase):"
    )
    assert is_member_of(base, "headers", "HTTPBase", "a.py")
    assert not is_member_of(sub, "headers", "HTTPBase", "a.py")
    assert is_member_of(sub, "headers", "HTTPBasic", "a.py")
    trait = Paragraph(2, 2, "    fn fmt(&self) {}", "impl<T> fmt::Debug for Sender<T> {")
    assert is_member_of(trait, "fmt", "Sender", "a.rs")
