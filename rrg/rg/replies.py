"""Reading what rg writes back: its per-file counts and its messages on stderr."""

from __future__ import annotations

import base64
import os
import re
import subprocess
import threading
from collections.abc import Iterator, Mapping
from typing import IO, Any

from rrg import streams


class StderrFilter:
    """Collects rg's messages for a batch and passes them on, except "no such file" for a
    listed file that is gone now: it vanished after rg listed it, and a file deleted during
    a walk is no error to rg either."""

    _GONE = re.compile(rb"^rg: (.*?): (?:IO error for operation on .*: )?No such file or directory")
    _ABOUT = re.compile(rb"^rg: (.*?): ")

    def __init__(
        self, proc: subprocess.Popen[bytes], listed: set[bytes], only_listed: bool = False
    ) -> None:
        self.listed = listed
        self.only_listed = only_listed
        self.lines: list[bytes] = []
        assert proc.stderr is not None
        stream = proc.stderr

        def read_to_the_end() -> None:
            with stream:  # closed here, not left to the garbage collector (``reaped``)
                self.lines.extend(stream)

        self.reader = threading.Thread(target=read_to_the_end, daemon=True)
        self.reader.start()

    def finish(self) -> bool:
        """Write the messages that stand (each once a search: ``streams.first_said``); True
        when any stands."""
        kept = self._standing()
        said = b"".join(message for message in kept if streams.first_said(message))
        if said:
            streams.err(said)
        return bool(kept)

    def standing(self) -> bytes:
        """The messages that stand, once rg has closed its stderr, unwritten."""
        return b"".join(self._standing())

    def _standing(self) -> list[bytes]:
        self.reader.join()
        if not self.lines:
            return []  # the usual case: nothing to match against the listed paths
        # Each listed path as rg names it in a message, to the path itself.
        named = {as_rg_names(path): path for path in self.listed}
        kept = []
        for message in self._messages():
            gone = self._GONE.match(message)
            path = named.get(gone.group(1)) if gone else None
            if path is not None and not os.path.lexists(path):
                continue
            about = self._ABOUT.match(message)
            if self.only_listed and not (about and about.group(1) in named):
                continue
            kept.append(message)
        return kept

    def _messages(self) -> Iterator[bytes]:
        """rg's messages, each whole: one may run over several lines (a failed --pre
        command's own stderr follows its first line), and goes or stays as one."""
        message = b""
        for line in self.lines:
            if line.startswith(b"rg: ") and message:
                yield message
                message = b""
            message += line
        if message:
            yield message


def as_rg_names(path: bytes) -> bytes:
    """A path as rg writes it in a message: bytes that are not UTF-8 become U+FFFD (Rust's
    lossy conversion, which Python's "replace" follows), so that a message about
    ``name-\xff.txt`` names ``name-\xef\xbf\xbd.txt``."""
    return path.decode("utf-8", "replace").encode()


def reaped(proc: subprocess.Popen[bytes]) -> int:
    """rg's exit code once it has exited, the pipe its output came through closed. A pipe
    left to the garbage collector is a ResourceWarning where warnings show (``python -X
    dev``, ``PYTHONWARNINGS=default``, a library caller's test suite run with ``-W
    error``), printed on the user's stderr or failing the caller's test."""
    code = proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()
    return code


def count_records(stream: IO[bytes]) -> Iterator[tuple[bytes, int]]:
    """Parse ``rg --count --null`` output: ``path NUL count LF``, or ``path NUL count NUL``
    under ``--null-data``, where rg ends every line it writes with a NUL. A path may hold a
    newline (never a NUL), so records are cut at the NUL first; the count is digits, ended
    by whichever terminator comes first after them."""
    buf = b""
    while True:
        chunk = stream.read1(65536)  # type: ignore[attr-defined]
        if not chunk:
            return
        buf += chunk
        while True:
            nul = buf.find(b"\0")
            if nul < 0:
                break
            ends = [at for at in (buf.find(b"\n", nul + 1), buf.find(b"\0", nul + 1)) if at >= 0]
            if not ends:
                break
            end = min(ends)
            yield buf[:nul], int(buf[nul + 1 : end] or b"0")
            buf = buf[end + 1 :]


def json_bytes(obj: Mapping[str, Any]) -> bytes:
    """rg's ``{"text": ...}`` or ``{"bytes": base64}`` (its JSON's paths and lines) as the
    bytes they stand for."""
    if "text" in obj:
        return str(obj["text"]).encode("utf-8", "surrogateescape")
    return base64.b64decode(obj["bytes"])
