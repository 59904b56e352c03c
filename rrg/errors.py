"""The one exception type the CLI turns into ``rrg: message`` and exit code 2."""

from __future__ import annotations

EXIT_MATCH = 0
EXIT_NO_MATCH = 1
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130


class RrgError(Exception):
    """A user-facing failure: the message says what went wrong and what to do."""


class ModelError(RrgError):
    """The chosen model cannot be used: a fault of the user's choice, never hidden by a
    fallback to rg's order."""
