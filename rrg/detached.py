"""Starting a process that outlives the one that starts it: a background build, the
resident process."""

from __future__ import annotations


def start_detached(cmd: list[str], cwd: str | bytes, env: dict[str, str]) -> bool:
    """Start ``cmd`` in a session of its own (a Ctrl-C meant for this process does not stop
    it), its standard streams on /dev/null; whether it started.

    It is not waited for. Python's ``Popen``, dropped while its process runs, warns that it
    "is still running" (a ResourceWarning where warnings show: ``python -X dev``, a
    library caller's test suite under ``-W error``) and keeps it to reap its exit later.
    The warning is for a child forgotten by mistake; this one is let go on purpose, so it
    is dropped with that warning silenced, and still reaped."""
    import subprocess
    import warnings

    try:
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        del proc  # its last reference: Popen.__del__ runs here
    return True
