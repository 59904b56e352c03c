"""``rrg --mcp [PATH]``: the tools of ``rrg.server.tools`` served over stdio with the
official MCP SDK (``pip install 'rrg[mcp]'``). Only this module imports the SDK, and only
``--mcp`` imports this module.

A call runs on a worker thread, so calls may come at once; each one's output is its own
(``rrg.streams``), and the index refreshes per call as the CLI's does.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable

from rrg.errors import RrgError
from rrg.server.tools import FILES_HELP, RECALL_HELP, SEARCH_HELP, Answer, ToolInputError, Tools


def serve(root: str, answer: Answer) -> int:
    """Serve ``root`` until the host closes the connection; returns the exit code."""
    try:
        import anyio
        from mcp.server import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
    except ImportError as err:
        raise RrgError(
            f"--mcp needs the MCP SDK ({err.name} is missing): pip install 'rrg[mcp]'"
        ) from None
    real = os.path.realpath(root)
    if not os.path.isdir(real):
        raise RrgError(f"{root}: not a folder to serve")
    # Every tool names paths relative to the root, as the CLI does to its working folder.
    os.chdir(real)
    tools = Tools(real, answer)
    server: MCPServer = MCPServer(
        "rrg",
        log_level="WARNING",  # a refused call is the agent's to read, not the host log's
        instructions=(
            f"Relevance-ordered search of {real} (ripgrep in relevance order). Start a "
            "question with recall, then search with a pattern in the files it names."
        ),
    )

    async def call(function: Callable[..., str], *args: object) -> str:
        try:
            return await anyio.to_thread.run_sync(function, *args)
        except ToolInputError as err:
            raise ToolError(str(err)) from None

    @server.tool(description=SEARCH_HELP)
    async def search(
        query: str,
        pattern: str | None = None,
        path: str | None = None,
        globs: list[str] | None = None,
        limit: int | None = None,
    ) -> str:
        return await call(tools.search, query, pattern, path, globs, limit)

    @server.tool(description=FILES_HELP)
    async def files(
        query: str,
        path: str | None = None,
        globs: list[str] | None = None,
        limit: int | None = None,
    ) -> str:
        return await call(tools.files, query, path, globs, limit)

    @server.tool(description=RECALL_HELP)
    async def recall(query: str) -> str:
        return await call(tools.recall, query)

    with contextlib.suppress(KeyboardInterrupt):  # the host's Ctrl-C ends the session
        server.run("stdio")
    sys.stderr.flush()
    return 0
