"""The one exception type the CLI turns into ``rrg: message`` and exit code 2."""

from __future__ import annotations

import errno

EXIT_MATCH = 0
EXIT_NO_MATCH = 1
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130


class RrgError(Exception):
    """A user-facing failure: the message says what went wrong and what to do."""


class ModelError(RrgError):
    """The chosen model cannot be used: a fault of the user's choice, never hidden by a
    fallback to rg's order."""


def limit_hint(number: int | None) -> str:
    """Where the process's own limit, not the machine, is what ran out (``number``: the
    error's errno): which one, to be said after the system's words; else nothing."""
    import resource

    limits = {errno.EMFILE: resource.RLIMIT_NOFILE, errno.ENOMEM: resource.RLIMIT_AS}
    limit = limits.get(number) if number is not None else None
    if limit is None:
        return ""
    soft, _ = resource.getrlimit(limit)
    if soft == resource.RLIM_INFINITY:
        return ""
    if limit == resource.RLIMIT_NOFILE:
        return f" (this process may open {soft} files: ulimit -n)"
    return f" (this process may map {soft // 2**20} MB: ulimit -v)"
