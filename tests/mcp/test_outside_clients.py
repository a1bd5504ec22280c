"""Every MCP tool and every path-bearing argument, driven by clients nobody here wrote: the official
Python SDK's client (the `test` extra) and the MCP Inspector's CLI (npm `@modelcontextprotocol/inspector`,
found through PYLON_MCP_INSPECTOR, the `mcp-inspector` program; .ci/run installs it). Nothing outside
the project is read or written, whatever the argument; the client's roots, and a change of them, are
what the server reaches."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeRepo, run_cmd, script

SECRET = "secret-outside-the-project"
INSPECTOR = os.environ.get("PYLON_MCP_INSPECTOR")  # read at import: the per-test fixture drops PYLON_*


@pytest.fixture
def world(make_repo: MakeRepo, tmp_path: Path) -> dict[str, Path]:
    outside = tmp_path / "outside"
    (outside / ".canon" / "articles").mkdir(parents=True)
    (outside / "secret.txt").write_text(SECRET + "\n")
    (outside / "ops.txt").write_text("replace 1\n+pwned = 1\n")
    (outside / ".canon" / "articles" / "secret.md").write_text(f"---\ncapsule: {SECRET}\n---\n{SECRET}\n")
    root = make_repo({"src/app.py": "print('hi')\n", "README.md": "top\n"})
    (root / "src" / "out").symlink_to(outside)
    (root / "src" / "pw").symlink_to(outside / "secret.txt")
    assert run_cmd("canon", "write", "src/app.py", "--capsule", "Entry.", "--body", "Prints.", cwd=root).code == 0
    return {"root": root, "outside": outside}


def state(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None for p in sorted(folder.rglob("*"))}


def hostile(outside: Path) -> list[tuple[str, dict[str, Any]]]:
    """Each tool with each of its path-bearing arguments pointed out of the project, every way."""
    ways = [
        str(outside / "secret.txt"),
        "../outside/secret.txt",
        "src/pw",
        "src/out/secret.txt",
        "src/../../outside/secret.txt",
        "/proc/self/root" + str(outside / "secret.txt"),
        "~/../../" + str(outside),
    ]
    folders = [str(outside), "../outside", "src/out", "/", "/proc/self/cwd/../outside", "~"]
    calls: list[tuple[str, dict[str, Any]]] = []
    tag = "0" * 12
    for way in ways:
        calls += [
            ("read", {"path": way}),
            ("edit", {"target": f"{way}#{tag}", "ops": "replace 1\n+x\n"}),
            ("edit", {"target": way + ".new", "create": True, "ops": "insert after 0\n+x\n"}),
            ("edit", {"target": "src/app.py", "tag": tag, "ops_file": way}),
            ("canon_write", {"address": "src/app.py", "body_file": way}),
            ("canon_journal", {"body_file": way}),
            ("canon_read", {"address": way}),
            ("canon_resolve", {"paths": ["src/app.py", way]}),
            ("canon_map", {"prefix": way}),
            ("canon_lint", {"addresses": [way]}),
            ("canon_journal", {"text": "x", "subject": [way]}),
        ]
    for folder in folders:
        for tool in (
            "canon_read",
            "canon_write",
            "canon_journal",
            "canon_map",
            "canon_search",
            "canon_resolve",
            "canon_lint",
            "canon_check",
        ):
            needs: dict[str, dict[str, Any]] = {
                "canon_read": {"address": "secret"},
                "canon_write": {"address": "x", "capsule": "c", "body": "b"},
                "canon_journal": {"text": "x"},
                "canon_search": {"query": [SECRET]},
                "canon_resolve": {"paths": ["secret"]},
            }
            need = needs.get(tool, {})
            calls += [(tool, {**need, "root": folder}), (tool, {**need, "mount": ["src", folder]})]
    return calls


def leaked(doc: Any) -> bool:
    return SECRET in json.dumps(doc)


@pytest.mark.filterwarnings("ignore:The roots capability is deprecated")  # the SDK: from revision 2026-07-28
def test_every_tool_and_path_argument_through_the_sdk_client(world: dict[str, Path]) -> None:
    from mcp import types
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from pydantic import FileUrl

    root, outside = world["root"], world["outside"]
    before = state(outside)
    calls = hostile(outside)
    granted = [root]

    async def list_roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=FileUrl(folder.as_uri())) for folder in granted])

    async def main() -> tuple[list[Any], list[Any], list[str]]:
        params = StdioServerParameters(command=script("pylon"), args=["mcp"], cwd=str(root), env=dict(os.environ))
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write, list_roots_callback=list_roots) as client,
        ):
            await client.initialize()
            names = [t.name for t in (await client.list_tools()).tools]
            docs = [(await client.call_tool(name, arguments)).structured_content for name, arguments in calls]
            granted[:] = [root / "src"]  # the client narrows its roots, and says so
            await client.send_roots_list_changed()
            narrow = [
                (await client.call_tool("read", {"path": p})).structured_content for p in ("src/app.py", "README.md")
            ]
            granted[:] = [root, outside]  # the client widens its roots, and says so
            await client.send_roots_list_changed()
            wide = [
                (await client.call_tool("read", {"path": p})).structured_content
                for p in ("README.md", str(outside / "secret.txt"))
            ]
            return docs, narrow + wide, names

    docs, roots, names = asyncio.run(asyncio.wait_for(main(), 600))
    assert set(names) == {name for name, _ in calls}  # every tool was tried
    reasons = {"absolute", "dotdot", "outside", "symlink-outside", "git-dir", "config", "canon-store"}
    for (name, arguments), doc in zip(calls, docs):
        assert doc is not None and not leaked(doc), (name, arguments, doc)
        if doc["ok"] is False and doc["error"]["code"] == "path-outside":  # one code, and how it got out
            assert doc["error"].get("reason") in reasons, (name, arguments, doc)
        if arguments.get("target") == "src/pw.new":
            assert doc["ok"] is True and (root / "src" / "pw.new").is_file()  # a new file beside the link: inside
        elif name in ("read", "edit") or set(arguments) & {"root", "mount", "body_file", "ops_file"}:
            assert doc["ok"] is False, (name, arguments, doc)
    assert state(outside) == before
    assert not Path("/.canon").exists() or Path("/.canon").stat().st_mtime < time.time() - 3600
    assert roots[0]["ok"] is True and roots[1]["error"]["code"] == "path-outside"  # roots: src/ only
    assert roots[2]["ok"] is True and roots[3]["lines"] == [[1, SECRET]]  # after list_changed: as granted


def test_a_client_that_never_answers_roots_list_waits_once_then_gets_the_checkout(world: dict[str, Path]) -> None:
    from tests.mcp.wire import declaring_roots, line

    root = world["root"]
    proc, _ = declaring_roots(root)  # its roots/list is never answered
    assert proc.stdin is not None and proc.stdout is not None
    took = []
    for i, path in enumerate(["README.md", "src/app.py", "src/pw"], 1):
        start = time.monotonic()
        proc.stdin.write(
            line(
                {
                    "jsonrpc": "2.0",
                    "id": i,
                    "method": "tools/call",
                    "params": {"name": "read", "arguments": {"path": path}},
                }
            )
        )
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())["result"]["structuredContent"]
        took.append((time.monotonic() - start, answer))
    proc.stdin.close()
    proc.wait(30)
    proc.stdout.close()
    assert 9 < took[0][0] < 20 and took[1][0] < 5  # the first call waits ROOTS_WAIT (10 s), once
    assert took[0][1]["ok"] is True and took[1][1]["ok"] is True and took[2][1]["error"]["code"] == "path-outside"


# -- the MCP Inspector's CLI ------------------------------------------------------------------------


def inspector() -> str:
    found = INSPECTOR or shutil.which("mcp-inspector")
    if not found or not os.access(found, os.X_OK):
        pytest.skip(
            "no MCP Inspector: install it with `npm install --prefix DIR @modelcontextprotocol/inspector` and "
            "set PYLON_MCP_INSPECTOR=DIR/node_modules/.bin/mcp-inspector (.ci/run does)"
        )
    return found


def inspect(root: Path, *args: str) -> Any:
    """`mcp-inspector --cli pylon mcp ARGS...` in `root`: the JSON it prints."""
    done = subprocess.run(
        [inspector(), "--cli", script("pylon"), "mcp", *args], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:] + done.stdout[-2000:]
    return json.loads(done.stdout)


def test_the_inspector_lists_every_tool(world: dict[str, Path]) -> None:
    listed = inspect(world["root"], "--method", "tools/list")
    assert {t["name"] for t in listed["tools"]} == {
        "read",
        "edit",
        "canon_read",
        "canon_write",
        "canon_journal",
        "canon_map",
        "canon_search",
        "canon_resolve",
        "canon_lint",
        "canon_check",
    }
    assert all(t["inputSchema"]["type"] == "object" for t in listed["tools"])


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("read", {"path": "/etc/passwd"}),
        ("read", {"path": "../outside/secret.txt"}),
        ("read", {"path": "src/pw"}),
        ("read", {"path": "src/out/secret.txt"}),
        ("read", {"path": ".git/config"}),
        ("edit", {"target": "src/out/new.py", "create": "true", "ops": "insert after 0\n+x = 1\n"}),
        ("edit", {"target": "src/app.py", "tag": "000000000000", "ops_file": "src/pw"}),
        ("canon_write", {"address": "x", "capsule": "c", "mount": '["/"]'}),
        ("canon_write", {"address": "x", "capsule": "c", "root": "src/out"}),
        ("canon_write", {"address": "src/app.py", "body_file": "../outside/secret.txt"}),
        ("canon_journal", {"body_file": "/etc/passwd"}),
        ("canon_read", {"address": "secret", "root": "src/out"}),
        ("canon_search", {"query": f'["{SECRET}"]', "mount": '["src/out"]'}),
        ("canon_map", {"mount": '["/"]'}),
        ("canon_lint", {"root": "/"}),
        ("canon_check", {"root": "src/out"}),
        ("canon_resolve", {"paths": '["secret"]', "mount": '["src/out"]'}),
    ],
)
def test_the_inspector_gets_path_outside_from_every_tool(
    world: dict[str, Path], tool: str, arguments: dict[str, str]
) -> None:
    root, outside = world["root"], world["outside"]
    before = state(outside)
    pairs = [x for key, value in arguments.items() for x in ("--tool-arg", f"{key}={value}")]
    answer = inspect(root, "--method", "tools/call", "--tool-name", tool, *pairs)
    assert answer["isError"] is True and answer["structuredContent"]["error"]["code"] == "path-outside", answer
    assert not leaked(answer) and "root:x:0:0" not in json.dumps(answer)
    assert state(outside) == before
