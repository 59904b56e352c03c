"""``rrg --mcp``: the server driven through the MCP SDK's own client over stdio, against the
CLI's answers for the same questions. Real server process, real rg, real files."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from conftest import rrg_cmd, run

pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

pytestmark = pytest.mark.slow

Session = Callable[[Any], Awaitable[None]]


def _tree(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "src" / "retry.py").write_text(
        "def retry(request, attempts=3):\n    '''Retry a request after a timeout.'''\n"
        "    for attempt in range(attempts):\n        try:\n            return request()\n"
        "        except TimeoutError:\n            continue\n"
    )
    (root / "src" / "config.py").write_text(
        "def load_config(path):\n    '''Parse the configuration file.'''\n"
        "    return dict(line.split('=') for line in open(path))\n"
    )
    for k in range(8):
        (root / "src" / f"util{k}.py").write_text(
            f"def helper_{k}(value):\n    return value * {k}  # timeout {k}\n"
        )
    (root / "docs" / "retries.md").write_text("Retries wait after a timeout.\n\nBackoff doubles.\n")
    return root


def _serve(root: Path, env: dict[str, str], session: Session) -> None:
    params = StdioServerParameters(
        command=rrg_cmd()[0], args=[*rrg_cmd()[1:], "--mcp", str(root)], env=env
    )

    async def main() -> None:
        async with Client(params) as client:
            await session(client)

    anyio.run(main)


def _text(result: Any) -> str:
    return "".join(part.text for part in result.content)


def test_the_tools_answer_as_the_cli_does(tmp_path: Path, env: dict[str, str]) -> None:
    root = _tree(tmp_path / "served")
    query = "retry a request after a timeout"
    cli_files = run([*rrg_cmd(), "-q", query, "--files", "--limit", "5"], root, env)
    cli_lines = run(
        [
            *rrg_cmd(),
            "-q",
            query,
            "--limit",
            "30",
            "--color",
            "never",
            "-n",
            "--no-heading",
            "-e",
            "timeout",
        ],
        root,
        env,
    )
    cli_fast = run([*rrg_cmd(), "-q", query, "--files", "--limit", "5", "--fast"], root, env)
    assert cli_files.returncode == 0 and cli_lines.returncode == 0, cli_files.stderr

    async def session(client: Any) -> None:
        listed = await client.list_tools()
        tools = {tool.name: tool for tool in listed.tools}
        assert set(tools) == {"search", "files", "recall"}
        assert all(len(tool.description) > 80 for tool in tools.values())
        # Each parameter says what it takes: the schema is what a host shows its model.
        described = {
            (tool.name, name): field.get("description", "")
            for tool in tools.values()
            for name, field in tool.input_schema["properties"].items()
        }
        assert len(described) == 17 and all(len(text) > 30 for text in described.values())
        assert "!" in described["search", "globs"], described
        files = await client.call_tool("files", {"query": query, "limit": 5})
        assert not files.is_error, _text(files)
        got = _text(files).splitlines()
        assert got[: len(cli_files.stdout.splitlines())] == cli_files.stdout.decode().splitlines()
        assert got[-1].startswith("[rrg: printed the 5 best of 11 files")
        # The same answer as data: an agent host need not parse the text.
        data = files.structured_content
        assert [f["path"] for f in data["files"]] == got[:5]
        assert data["total"] == 11 and data["notices"] == ["printed the 5 best of 11 files"]
        lines = await client.call_tool("search", {"query": query, "pattern": "timeout"})
        assert not lines.is_error, _text(lines)
        expected = cli_lines.stdout.decode()
        assert _text(lines).startswith(expected) and expected.startswith("src/retry.py:")
        first = lines.structured_content["matches"][0]
        assert (
            f"{first['path']}:{first['line_number']}:{first['text']}\n"
            == (expected.splitlines(keepends=True)[0])
        )
        passages = await client.call_tool("search", {"query": query, "path": "docs"})
        assert not passages.is_error, _text(passages)
        named = [ln for ln in _text(passages).splitlines() if ln.endswith(":") and "/" in ln]
        assert named and all(ln.startswith("docs/") for ln in named), _text(passages)
        blocks = passages.structured_content["passages"]
        assert [f"{p['path']}:{p['start_line']}-{p['end_line']}:" for p in blocks] == named
        # --fast, the cheap order: the command line's too.
        fast = await client.call_tool("files", {"query": query, "limit": 5, "fast": True})
        assert not fast.is_error, _text(fast)
        assert _text(fast).splitlines()[:5] == cli_fast.stdout.decode().splitlines()
        # rg's -i and rrg's --rerank, as the agent guide uses them.
        either = await client.call_tool(
            "search", {"query": query, "pattern": "TIMEOUT", "ignore_case": True}
        )
        assert not either.is_error and _text(either).startswith("src/retry.py:"), _text(either)
        best = await client.call_tool(
            "search", {"query": query, "pattern": "timeout", "rerank": True, "limit": 3}
        )
        assert not best.is_error, _text(best)
        scores = [m["score"] for m in best.structured_content["matches"]]
        assert len(scores) == 3 and scores == sorted(scores, reverse=True), scores
        assert "[rrg: reranked top 3 of" in _text(best)
        scoped = await client.call_tool("recall", {"query": query, "path": "docs"})
        assert not scoped.is_error and _text(scoped).startswith("docs/retries.md:"), _text(scoped)
        recall = await client.call_tool("recall", {"query": query})
        assert not recall.is_error and "src/retry.py" in _text(recall)
        # The scope file it wrote lies in the user's cache: never named.
        assert env["RRG_CACHE_DIR"] not in _text(recall)

    _serve(root, env, session)


def test_bad_input_is_a_tool_error_and_the_server_lives_on(
    tmp_path: Path, env: dict[str, str]
) -> None:
    root = _tree(tmp_path / "served")
    outside = tmp_path / "secret.txt"
    outside.write_text("timeout\n")

    async def session(client: Any) -> None:
        cases = [
            ({"query": "x", "pattern": "("}, "regex parse error"),
            ({"query": "x", "pattern": "timeout", "path": "../secret.txt"}, "outside the project"),
            ({"query": "x", "path": str(outside)}, "outside the project"),
            ({"query": "x", "path": "src/missing"}, "no such file"),
            ({"query": "x", "path": "src\0x"}, "no NUL byte"),
            ({"query": "x", "limit": -1}, "limit must be"),
            ({"query": "x", "rerank": True}, "rerank applies to a pattern"),
            ({"query": "x", "limit": 100_000}, "limit must be"),
            ({"query": "   "}, "query is empty"),
            ({"query": "x", "limit": "ten"}, "limit: Input should be a valid integer"),
            ({"limit": 3}, "query: Field required"),
        ]
        for args, said in cases:
            result = await client.call_tool("search", args)
            assert result.is_error, args
            assert said in _text(result) and "rg: " in _text(result), (args, _text(result))
            # One line, as the CLI says it (issue 34): rg's four-line regex error and
            # pydantic's four-line validation error included.
            assert "\n" not in _text(result).strip(), (args, _text(result))
        bad_regex = await client.call_tool("search", {"query": "x", "pattern": "a("})
        assert "unclosed group" in _text(bad_regex), _text(bad_regex)
        alive = await client.call_tool("files", {"query": "configuration file", "limit": 1})
        assert not alive.is_error and _text(alive).startswith("src/config.py")

    _serve(root, env, session)


def test_bytes_that_are_not_utf8_are_written_as_escapes(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """A file name or a line that is not UTF-8 (rg reads bytes) reaches the agent with each
    such byte written ``\\xff``: JSON holds no lone surrogate, and every answer serialised;
    a path so written names the file back."""
    root = tmp_path / "served"
    root.mkdir()
    (root / "caf\xe9.py".encode("latin-1").decode("utf-8", "surrogateescape")).write_bytes(
        b"def timeout_handler():\n    return 'timeout caf\xe9'\n"
    )
    (root / "plain.py").write_text("def other():\n    return 'timeout'\n")

    async def session(client: Any) -> None:
        with anyio.fail_after(120):  # an answer the server cannot send never comes
            await questions(client)

    async def questions(client: Any) -> None:
        for name, args in (
            ("files", {"query": "timeout handler"}),
            ("search", {"query": "timeout handler", "pattern": "timeout"}),
            ("search", {"query": "timeout handler"}),
            ("recall", {"query": "timeout handler"}),
        ):
            result = await client.call_tool(name, args)
            assert not result.is_error, (name, _text(result))
            assert "caf\\xe9.py" in _text(result), (name, _text(result))
        # A passage's byte too, as the file holds it (it read U+FFFD).
        passages = await client.call_tool("search", {"query": "timeout handler"})
        assert "    return 'timeout caf\\xe9'" in _text(passages), _text(passages)
        texts = [p["text"] for p in passages.structured_content["passages"]]
        assert "def timeout_handler():\n    return 'timeout caf\\xe9'" in texts, texts
        lines = await client.call_tool("search", {"query": "timeout handler", "pattern": "caf"})
        assert lines.structured_content["matches"][0]["text"] == "    return 'timeout caf\\xe9'"
        # A path so written is named back to a tool as the answers wrote it.
        named = await client.call_tool(
            "search", {"query": "timeout handler", "pattern": "timeout", "path": "caf\\xe9.py"}
        )
        assert not named.is_error, _text(named)
        paths = [m["path"] for m in named.structured_content["matches"]]
        assert paths == ["caf\\xe9.py", "caf\\xe9.py"], _text(named)
        missing = await client.call_tool("files", {"query": "timeout", "path": "caf\\xe8.py"})
        assert missing.is_error

    _serve(root, env, session)


def test_answers_are_bounded_and_say_what_was_cut(tmp_path: Path, env: dict[str, str]) -> None:
    root = tmp_path / "big"
    root.mkdir()
    for k in range(40):
        (root / f"log{k}.txt").write_text(
            "".join(f"timeout number {j} in run {k}\n" for j in range(60))
        )

    async def session(client: Any) -> None:
        # The cap's notice names the tool's parameter, and what it says works: 0, as much
        # as an answer holds (the command line's "0 = no cap"); no -m to set over MCP.
        capped = await client.call_tool("search", {"query": "timeouts", "pattern": "timeout"})
        said = [line for line in _text(capped).splitlines() if "stopped at" in line]
        assert said and "raise limit (0 = no cap)" in said[0] and "-m N" not in said[0], said
        for limit in (2000, 0):
            result = await client.call_tool(
                "search", {"query": "timeouts", "pattern": "timeout", "limit": limit}
            )
            text = _text(result)
            assert not result.is_error
            assert len(text) < 21_000
            assert "[rrg: answer cut at 20000 characters" in text

    _serve(root, env, session)


def test_calls_may_come_at_once(tmp_path: Path, env: dict[str, str]) -> None:
    root = _tree(tmp_path / "served")

    async def session(client: Any) -> None:
        answers: dict[str, str] = {}

        async def ask(name: str, query: str) -> None:
            result = await client.call_tool("files", {"query": query, "limit": 1})
            answers[name] = _text(result).splitlines()[0]

        async with anyio.create_task_group() as group:
            group.start_soon(ask, "retry", "retry a request after a timeout")
            group.start_soon(ask, "config", "parse the configuration file")
            group.start_soon(ask, "doc", "backoff doubles in the docs")
        assert answers == {
            "retry": "src/retry.py",
            "config": "src/config.py",
            "doc": "docs/retries.md",
        }

    _serve(root, env, session)


def test_mcp_takes_one_folder(tmp_path: Path, env: dict[str, str]) -> None:
    out = run([*rrg_cmd(), "--mcp", str(tmp_path / "nowhere")], tmp_path, env)
    assert out.returncode == 2 and out.stderr.startswith(b"rrg: "), out.stderr
    out = run([*rrg_cmd(), "--mcp", "-i", "."], tmp_path, env)
    assert out.returncode == 2 and b"one PATH" in out.stderr, out.stderr


def test_a_refused_call_is_said_in_one_line() -> None:
    """pydantic words each fault of a tool's arguments over four lines with a link; the
    agent gets one line naming each argument, what was wrong and what it gave."""
    from pydantic import BaseModel, ValidationError

    from rrg.server.mcp import invalid_arguments

    class SearchArguments(BaseModel):
        query: str
        limit: int

    with pytest.raises(ValidationError) as refused:
        SearchArguments.model_validate({"limit": "many"})
    said = invalid_arguments(refused.value.errors())
    assert "\n" not in said and said.startswith("rrg: ")
    assert "query: Field required" in said  # a missing argument: no value to show
    assert "limit: " in said and "(got 'many')" in said
