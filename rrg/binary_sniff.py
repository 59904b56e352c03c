"""What a file's first bytes tell of how rg reads it: as binary (a NUL in its first read)
or as UTF-16 (a byte order mark: rg decodes it, its NULs are text).

The index marks files binary by this rule, and a search names to rg only the files rg's own
walk would search, so both read it here, below them."""

from __future__ import annotations

#: rg reads files in 64 KiB buffers and quits a walked file at its first NUL byte.
BINARY_SNIFF_BYTES = 64 * 1024
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def looks_binary(head: bytes) -> bool:
    """Whether rg would skip this file while walking a directory (a NUL byte, no UTF-16 BOM)."""
    if utf16_marked(head):
        return False
    return b"\x00" in head[:BINARY_SNIFF_BYTES]


def utf16_marked(head: bytes) -> bool:
    """Whether a file starts with a UTF-16 byte order mark: rg decodes it, its NULs are text."""
    return head.startswith(_UTF16_BOMS)
