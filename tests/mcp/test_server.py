"""`pylon mcp` driven by the MCP SDK's own client (mcp.client.stdio + ClientSession).

Each test launches the installed `pylon mcp` in a temp git repository, as an agent client does,
and holds its answers to the registry (schemas) and to the same command run as a process with
`--json` (the CLI is the oracle for every tool's document and error code).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from pylon.cli import commands as registry
from pylon.cli.spec import FLAG, FLOAT, INT, MANY, ONE, PAIR
from tests.conftest import MakeRepo, run_cmd, script

TOOLS = {
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
NOT_IN_SCHEMA = {"--json", "--format", "--harness", "--session"}


def session(
    repo: Path, body: Callable[[Any], Awaitable[Any]], args: tuple[str, ...] = (), env: dict[str, str] | None = None
) -> Any:
    """Run `body(client_session)` against `pylon mcp ARGS` started in `repo`; stderr kept in repo/../stderr."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=script("pylon"), args=["mcp", *args], cwd=str(repo), env={**os.environ, **(env or {})}
    )
    errlog = repo.parent / "stderr.txt"

    async def main() -> Any:
        with errlog.open("a", encoding="utf-8") as err:
            async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as client:
                await client.initialize()
                return await body(client)

    return asyncio.run(asyncio.wait_for(main(), 60))


def stderr_of(repo: Path) -> str:
    path = repo.parent / "stderr.txt"
    return path.read_text(encoding="utf-8") if path.exists() else ""


@pytest.fixture
def repo(make_repo: MakeRepo) -> Path:
    root = make_repo({"src/app.py": "print('hi')\n", "src/core/config.py": "a = 1\nb = 2\n"})
    assert (
        run_cmd(
            "canon",
            "write",
            "src/app.py",
            "--capsule",
            "Entry point; parses flags.",
            "--body",
            "Parses flags, then calls core.",
            cwd=root,
        ).code
        == 0
    )
    return root


def test_tools_and_schemas_follow_the_registry(repo: Path) -> None:
    listed = session(repo, lambda c: c.list_tools()).tools
    assert {t.name for t in listed} == TOOLS
    marked = {c.name.replace(" ", "_"): c for c in registry.COMMANDS if c.mcp is not None}
    assert set(marked) == TOOLS
    for tool in listed:
        command, schema = marked[tool.name], tool.input_schema
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert command.summary in (tool.description or "")
        props = schema["properties"]
        expected = {a.dest for a in command.args}
        expected |= {o.name[2:].replace("-", "_") for o in command.opts if o.name not in NOT_IN_SCHEMA}
        expected |= {command.mcp.stdin[0]} if command.mcp and command.mcp.stdin else set()
        assert set(props) == expected, tool.name
        assert sorted(schema.get("required", [])) == sorted(a.dest for a in command.args if a.count in (ONE, MANY))
        for arg in command.args:
            assert arg.help in props[arg.dest]["description"]
        for opt in command.opts:
            if opt.name in NOT_IN_SCHEMA:
                continue
            prop = props[opt.name[2:].replace("-", "_")]
            one = prop["items"] if opt.repeat else prop
            kind = {FLAG: "boolean", INT: "integer", FLOAT: "number", PAIR: "array"}.get(opt.kind, "string")
            assert one["type"] == kind, (tool.name, opt.name)
            assert opt.help in prop["description"]
            assert one.get("enum", []) == list(opt.choices)
            assert one.get("minimum") == opt.min and one.get("maximum") == opt.max
    assert "Traceback" not in stderr_of(repo)


def cli_json(repo: Path, *argv: str) -> dict[str, Any]:
    result = run_cmd(*argv, "--json", cwd=repo)
    return json.loads(result.out)


def test_every_tool_answers_as_the_cli_does(repo: Path) -> None:
    async def body(client: Any) -> dict[str, Any]:
        answers: dict[str, Any] = {}
        calls = [
            ("canon_read", {"address": "src/app.py"}),
            ("canon_map", {}),
            ("canon_search", {"query": ["flags"]}),
            ("canon_resolve", {"paths": ["src/app.py", "src/core/config.py"], "explain": True}),
            ("canon_lint", {}),
            ("read", {"path": "src/core/config.py", "limit": 1}),
        ]
        for name, arguments in calls:
            answers[name] = await client.call_tool(name, arguments)
        answers["canon_write"] = await client.call_tool(
            "canon_write", {"address": "src/core", "capsule": "Config loading.", "body": "a and b."}
        )
        answers["canon_check"] = await client.call_tool("canon_check", {})
        read = await client.call_tool("read", {"path": "src/core/config.py"})
        tag = read.structured_content["tag"]
        answers["edit"] = await client.call_tool(
            "edit", {"target": f"src/core/config.py#{tag}", "ops": "replace 2\n+b = 3\n+c = 4\n"}
        )
        answers["canon_journal"] = await client.call_tool(
            "canon_journal", {"text": "Raised b to 3.", "subject": ["src/core"]}
        )
        return answers

    # Read-only tools: the same document as the command run as a process (before the writes).
    same = {
        "canon_read": ("canon", "read", "src/app.py"),
        "canon_map": ("canon", "map"),
        "canon_search": ("canon", "search", "flags"),
        "canon_resolve": ("canon", "resolve", "--explain", "src/app.py", "src/core/config.py"),
    }
    expected = {name: cli_json(repo, *argv) for name, argv in same.items()}
    answers = session(repo, body)
    assert set(answers) == TOOLS
    for name, answer in answers.items():
        assert answer.is_error is False, (name, answer.content)
        assert answer.structured_content["ok"] is True
        assert json.loads(answer.content[0].text) == answer.structured_content
    for name in same:
        assert answers[name].structured_content == expected[name], name
    assert answers["read"].structured_content["lines"] == [[1, "a = 1"]]
    # The writes really happened, as the CLI sees them.
    assert (repo / "src/core/config.py").read_text() == "a = 1\nb = 3\nc = 4\n"
    assert cli_json(repo, "canon", "read", "src/core/config.py")["capsule"] == "Config loading."
    assert answers["canon_check"].structured_content["articles_changed"] == ["src/app", "src/core"]
    entry = Path(answers["canon_journal"].structured_content["path"]).read_text()
    assert "Raised b to 3." in entry and "subject: [src/core]" in entry
    assert "Traceback" not in stderr_of(repo)


BAD_CALLS: list[tuple[str, dict[str, Any], str | None]] = [
    ("nope", {}, "bad-tool-call"),
    ("canon_read", {}, "bad-tool-call"),  # a required argument missing
    ("canon_read", {"address": "src/app.py", "colour": "red"}, "bad-tool-call"),  # unknown argument
    ("canon_search", {"query": "flags"}, "bad-tool-call"),  # a string where the schema says array
    ("canon_search", {"query": ["flags"], "limit": "3"}, "bad-tool-call"),
    ("canon_search", {"query": ["flags"], "limit": 0}, "usage"),  # the parser's own bound
    ("canon_search", {"query": ["a"]}, "bad-query"),  # the library's own refusal
    ("canon_write", {"address": "src/app.py", "scope": "everything"}, "bad-scope"),
    ("canon_read", {"address": "src/nothing.py"}, "no-article"),
    ("edit", {"target": "src/app.py#000000000000", "ops": "replace 1\n+x\n"}, None),
    ("read", {"path": "missing.py"}, "not-found"),
]


def test_bad_input_answers_with_the_clis_code(repo: Path) -> None:
    # One server answers every bad call in turn (each is independent: none changes anything).
    async def body(client: Any) -> list[Any]:
        return [await client.call_tool(name, arguments) for name, arguments, _ in BAD_CALLS]

    for (name, arguments, code), answer in zip(BAD_CALLS, session(repo, body)):
        case = f"{name} {arguments}"
        assert answer.is_error is True, case
        error = answer.structured_content["error"]
        if code is None:  # the CLI decides: compare with the same command as a process
            argv = ["pylon", "edit", arguments["target"], "--json"]
            code = json.loads(run_cmd(*argv, cwd=repo, input=arguments["ops"]).out)["error"]["code"]
        assert error["code"] == code, (case, answer.content)
        assert error["message"] and answer.content[0].text.startswith(f"error[{code}]: {error['message']}"), case
        if error.get("hint"):
            assert f"hint: {error['hint']}" in answer.content[0].text, case
        assert "Traceback" not in answer.content[0].text, case
    assert "Traceback" not in stderr_of(repo)


def test_journal_entries_carry_pi_canon_provenance(repo: Path) -> None:
    async def body(client: Any) -> Any:
        return [
            await client.call_tool(
                "canon_journal", {"text": "From the thread.", "slug": "one"}, meta={"threadId": "thread-7"}
            ),
            await client.call_tool("canon_journal", {"text": "From the environment.", "slug": "two"}),
        ]

    first, second = session(repo, body, ("--harness", "codex"), env={"CODEX_THREAD_ID": "env-thread"})
    entry = Path(first.structured_content["path"]).read_text()
    # pi-canon 0.3.0's core/store.ts journal(): `harness:` and `session:` after `logged:`.
    assert entry.splitlines()[2:5] == [
        "logged: " + first.structured_content["logged"],
        "harness: codex",
        "session: thread-7",
    ]
    assert first.structured_content["harness"] == "codex" and first.structured_content["session"] == "thread-7"
    assert second.structured_content["session"] == "env-thread"
    # Claude Code's variable names the harness when no --harness is given.
    third = session(
        repo,
        lambda c: c.call_tool("canon_journal", {"text": "From Claude.", "slug": "three"}),
        env={"CLAUDE_CODE_SESSION_ID": "abc/def 1"},
    )
    assert Path(third.structured_content["path"]).read_text().splitlines()[3:5] == [
        "harness: claude-code",
        'session: "abc/def 1"',
    ]
    # The store stays clean for canon's own linter, and the entry reads back.
    assert run_cmd("canon", "lint", "--strict", cwd=repo).code == 0
    # The CLI writes no provenance unless asked.
    assert "harness" not in cli_json(repo, "canon", "journal", "plain", "--slug", "cli")


def test_journal_provenance_options_are_checked(repo: Path) -> None:
    result = run_cmd("canon", "journal", "x", "--harness", "a\nb", "--json", cwd=repo)
    assert result.code == 2 and json.loads(result.out)["error"]["code"] == "bad-provenance"


def test_nothing_but_protocol_on_stdout(repo: Path) -> None:
    # Raw JSON-RPC lines, no SDK on this side: every stdout line must be a JSON-RPC message, also
    # for calls that run git (canon_check) and calls that fail.
    lines: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "canon_check", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "canon_read", "arguments": {"x": 1}}},
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "canon_lint", "arguments": {"addresses": ["src"], "strict": True}},
        },
    ]
    proc = subprocess.Popen(
        [script("pylon"), "mcp"], cwd=repo, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    seen: dict[int, Any] = {}
    for message in lines:
        proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()
        if "id" in message:
            while message["id"] not in seen:
                answer = json.loads(proc.stdout.readline())
                assert answer["jsonrpc"] == "2.0"
                seen[answer["id"]] = answer
    out, err = proc.communicate(timeout=30)
    assert out == b"" and proc.returncode == 0
    assert b"Traceback" not in err
    assert seen[2]["result"]["isError"] is False and seen[3]["result"]["isError"] is True
    assert seen[3]["result"]["structuredContent"]["error"]["code"] == "bad-tool-call"


def test_requests_piped_before_stdin_closes_are_all_answered(repo: Path) -> None:
    # A script writes its requests and closes stdin at once: every request read before the end of
    # input is answered, in full, before the server exits (the SDK's server alone cancelled the ones in flight).
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "canon_check", "arguments": {}}},
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "read", "arguments": {"path": "src/app.py"}},
        },
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "canon_read", "arguments": {"x": 1}}},
    ]
    data = "".join(json.dumps(m) + "\n" for m in lines).encode()
    proc = subprocess.run([script("pylon"), "mcp"], cwd=repo, input=data, capture_output=True, timeout=60)
    answers = {doc["id"]: doc for doc in map(json.loads, proc.stdout.decode().splitlines())}
    assert sorted(answers) == [1, 2, 3, 4, 5] and proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert answers[4]["result"]["structuredContent"]["total_lines"] == 1
    assert answers[5]["result"]["structuredContent"]["error"]["code"] == "bad-tool-call"


def test_codex_sandbox_folder_must_lie_in_the_project(repo: Path, tmp_path: Path) -> None:
    # Codex names the thread's folder in _meta (pi-canon's server reads the same key). It chooses
    # where a call runs inside the project, never the project itself: a server started elsewhere
    # reaches only that folder.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    meta = {"codex/sandbox-state-meta": {"sandboxCwd": repo.as_uri()}}
    answer = session(elsewhere, lambda c: c.call_tool("canon_read", {"address": "src/app.py"}, meta=meta))
    assert answer.is_error is True and answer.structured_content["error"]["code"] == "path-outside"
    meta = {"codex/sandbox-state-meta": {"sandboxCwd": (repo / "src").as_uri()}}
    inside = session(repo, lambda c: c.call_tool("canon_read", {"address": "app.py"}, meta=meta))
    assert inside.is_error is False and inside.structured_content["capsule"] == "Entry point; parses flags."


def test_a_read_through_mcp_marks_the_hooks_session(repo: Path) -> None:
    # The call's session becomes PYLON_SESSION, so the hooks do not surface what the agent read.
    def surfaced(session_name: str) -> list[str]:
        result = run_cmd("canon", "surface", "src/app.py", "--json", cwd=repo, env={"PYLON_SESSION": session_name})
        return [row if isinstance(row, str) else row["address"] for row in json.loads(result.out)["shown"]]

    session(repo, lambda c: c.call_tool("canon_read", {"address": "src/app.py"}, meta={"threadId": "sess-9"}))
    assert surfaced("sess-9") == []
    assert surfaced("sess-other") == ["src/app"]
