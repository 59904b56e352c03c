"""``rrg --mcp [PATH]``: the tools of ``rrg.server.tools`` served over stdio with the
official MCP SDK (``pip install '.[mcp]'``). Only this module imports the SDK, and only
``--mcp`` imports this module.

A call runs on a worker thread, so calls may come at once; each asks the library
(``rrg.api``), whose index refreshes per call as the CLI's does.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import sys
import typing
from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any

from rrg.api import open_project
from rrg.errors import RrgError
from rrg.server.tools import (
    FILES_HELP,
    PARAMETER_HELP,
    RECALL_HELP,
    SEARCH_HELP,
    Answer,
    ToolInputError,
    Tools,
)


def serve(root: str) -> int:
    """Serve ``root`` until the host closes the connection; returns the exit code."""
    try:
        import anyio
        from mcp.server import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
        from mcp.types import CallToolResult, TextContent
    except ImportError as err:
        raise RrgError(
            f"--mcp needs the MCP SDK ({err.name} is missing): pip install '.[mcp]'"
        ) from None
    from pydantic import Field, ValidationError

    def described(function: Callable[..., Answer]) -> inspect.Signature:
        """The function's signature, each parameter's type annotated with its
        ``PARAMETER_HELP``: the SDK reads the schema from it."""
        hints = typing.get_type_hints(function)
        signature = inspect.signature(function)
        return signature.replace(
            parameters=[
                p.replace(
                    annotation=Annotated[hints[p.name], Field(description=PARAMETER_HELP[p.name])]
                )
                for p in signature.parameters.values()
            ]
        )

    class OneLineServer(MCPServer):
        """The SDK's server, its refusal of a call's arguments said in one line."""

        async def call_tool(self, *args: Any, **kwargs: Any) -> Any:
            try:
                return await super().call_tool(*args, **kwargs)
            except ToolError as err:
                cause = err.__cause__
                if isinstance(cause, ValidationError):
                    raise ToolError(invalid_arguments(cause.errors())) from cause
                raise

    real = os.path.realpath(root)
    if not os.path.isdir(real):
        raise RrgError(f"{root}: not a folder to serve")
    # Every tool names paths relative to the root, as the CLI does to its working folder.
    os.chdir(real)
    tools = Tools(open_project(real))
    server: MCPServer = OneLineServer(
        "rrg",
        log_level="WARNING",  # a refused call is the agent's to read, not the host log's
        instructions=(
            f"Relevance-ordered search of {real} (ripgrep in relevance order). Start a "
            "question with recall, then search with a pattern in the files it names."
        ),
    )

    def offloaded(function: Callable[..., Answer]) -> Callable[..., Awaitable[CallToolResult]]:
        """The tool as the SDK takes it: its signature (the SDK reads the parameters from
        it), run on a worker thread, its answer as text and as structured content, bad
        input raised as the SDK's ToolError."""

        @functools.wraps(function)
        async def tool(*args: object, **kwargs: object) -> CallToolResult:
            try:
                answer = await anyio.to_thread.run_sync(
                    functools.partial(function, *args, **kwargs)
                )
            except ToolInputError as err:
                raise ToolError(str(err)) from None
            return CallToolResult(
                content=[TextContent(type="text", text=answer.text)],
                structured_content=answer.data,
            )

        tool.__signature__ = described(function)  # type: ignore[attr-defined]
        return tool

    for function, help_text in (
        (tools.search, SEARCH_HELP),
        (tools.files, FILES_HELP),
        (tools.recall, RECALL_HELP),
    ):
        # The answer is built here (text and data), not derived from a return annotation.
        server.tool(name=function.__name__, description=help_text, structured_output=False)(
            offloaded(function)
        )

    with contextlib.suppress(KeyboardInterrupt):  # the host's Ctrl-C ends the session
        server.run("stdio")
    sys.stderr.flush()
    return 0


def invalid_arguments(errors: Sequence[Any]) -> str:
    """A call's arguments refused by the tool's schema, in one line: each argument named
    with what was wrong and the value given (pydantic words it over four lines a fault,
    with a link to its documentation)."""
    faults = []
    for error in errors:
        name = ".".join(str(part) for part in error.get("loc", ())) or "arguments"
        given = error.get("input")
        got = "" if error.get("type") == "missing" else f" (got {given!r})"
        faults.append(f"{name}: {error.get('msg', 'invalid')}{got}")
    return "rrg: " + "; ".join(faults)
