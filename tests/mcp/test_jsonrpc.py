"""`pylon mcp` answers every line: raw bytes on stdin, JSON-RPC 2.0 errors out (pylon/mcp/jsonrpc.py).

The malformed cases are the ones the SDK's stdio reader dropped (the client then waited forever);
the well-formed exchanges are held to the official SDK's own server (tests/mcp/sdk_server.py, the
design pylon had before) by sending both the same lines.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeRepo, run_cmd, script
from tests.mcp.wire import INIT, INITIALIZED, exchange, line

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def repo(make_repo: MakeRepo) -> Path:
    root = make_repo({"src/app.py": "print('hi')\n"})
    assert run_cmd("canon", "write", "src/app.py", "--capsule", "Entry.", "--body", "Prints.", cwd=root).code == 0
    return root


MALFORMED: list[tuple[bytes, int, object]] = [
    (b"not json\n", -32700, None),
    (b'{"jsonrpc": "2.0", "id": 7, "method": "ping"\n', -32700, None),  # cut short
    (b'\xff\xfe{"jsonrpc": "2.0", "id": 7, "method": "ping"}\n', -32700, None),  # not UTF-8
    (b'{"jsonrpc": "2.0", "id": NaN, "method": "ping"}\n', -32700, None),  # NaN is not JSON
    (b'{"jsonrpc": "1.0", "id": 7, "method": "ping"}\n', -32600, 7),
    (b'{"id": 7, "method": "ping"}\n', -32600, 7),
    (b'{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": []}\n', -32600, 7),
    (b'{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": "x"}\n', -32600, 7),
    (b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "\\ud800"}}\n', -32600, 7),
    (b'{"jsonrpc": "2.0", "id": "\\udfff", "method": "ping"}\n', -32600, None),
    (b'{"jsonrpc": "2.0", "id": null, "method": "ping"}\n', -32600, None),
    (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}\n', -32600, None),
    (b'{"jsonrpc": "2.0", "id": 7, "method": 5}\n', -32600, 7),
    (b'{"jsonrpc": "2.0", "id": 7}\n', -32600, 7),
    (b'{"jsonrpc": "2.0", "method": "x", "result": {}}\n', -32600, None),
    (b"[]\n", -32600, None),
    (b'[{"jsonrpc": "2.0", "id": 7, "method": "ping"}, {"jsonrpc": "2.0", "id": 8, "method": "ping"}]\n', -32600, None),
    (b"42\n", -32600, None),
    (b'"ping"\n', -32600, None),
    (b"null\n", -32600, None),
    (b'{"jsonrpc": "2.0", "id": 7, "method": "no/such"}\n', -32601, 7),
    (b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"arguments": {}}}\n', -32602, 7),
    (b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "read", "arguments": [1]}}\n', -32602, 7),
    (b'{"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {}}\n', -32602, 7),
]


@pytest.mark.parametrize(("raw", "code", "answer_id"), MALFORMED, ids=[m[0][:40].decode("latin-1") for m in MALFORMED])
def test_every_malformed_line_gets_its_error(repo: Path, raw: bytes, code: int, answer_id: object) -> None:
    # Each line alone, then a ping: the bad line is answered and the server goes on serving.
    answers, err, status = exchange(repo, [line(INIT), raw, line({"jsonrpc": "2.0", "id": "after", "method": "ping"})])
    assert status == 0 and b"Traceback" not in err
    errors = [a for a in answers if "error" in a]
    assert len(errors) == 1, answers
    assert errors[0]["error"]["code"] == code and errors[0]["id"] == answer_id, errors[0]
    assert errors[0]["jsonrpc"] == "2.0" and isinstance(errors[0]["error"]["message"], str)
    assert {"jsonrpc": "2.0", "id": "after", "result": {}} in answers


def test_every_line_is_answered_in_one_stream_and_notifications_never(repo: Path) -> None:
    notes: list[dict[str, Any]] = [
        INITIALIZED,
        {"jsonrpc": "2.0", "method": "notifications/whatever", "params": {"x": 1}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 999}},
    ]
    raw = [
        line(INIT),
        *map(line, notes),
        *(m[0] for m in MALFORMED),
        b"\n",
        b"   \n",
        line({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}),
        line({"jsonrpc": "2.0", "id": "s", "method": "ping"}),
    ]
    answers, err, status = exchange(repo, raw)
    assert status == 0 and b"Traceback" not in err
    assert len(answers) == 1 + len(MALFORMED) + 2  # blank lines carry no message
    assert {"jsonrpc": "2.0", "id": 1.5, "result": {}} in answers and {
        "jsonrpc": "2.0",
        "id": "s",
        "result": {},
    } in answers


@pytest.mark.parametrize(
    ("asked", "answered"),
    [
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2024-11-05", "2024-11-05"),
        ("1999-01-01", "2025-11-25"),
        ("2099-01-01", "2025-11-25"),
    ],
)
def test_protocol_version_negotiation(repo: Path, asked: str, answered: str) -> None:
    init = json.loads(json.dumps(INIT))
    init["params"]["protocolVersion"] = asked
    answers, _, _ = exchange(repo, [line(init)])
    assert answers[0]["result"]["protocolVersion"] == answered
    assert answers[0]["result"]["capabilities"]["experimental"] == {"codex/sandbox-state-meta": {}}


def test_a_cancelled_request_gets_no_answer(repo: Path) -> None:
    slow = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "canon_check", "arguments": {}}}
    dropped = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "read", "arguments": {"path": "src/app.py"}},
    }
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "user"}}
    kept = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "read", "arguments": {"path": "src/app.py"}},
    }
    answers, _, status = exchange(
        repo, [line(INIT), line(INITIALIZED), line(slow), line(dropped), line(cancel), line(kept)]
    )
    assert status == 0 and sorted(a["id"] for a in answers) == [0, 1, 3]


def test_a_ping_is_answered_while_a_tool_runs(repo: Path) -> None:
    proc = subprocess.Popen(
        [script("pylon"), "mcp"], cwd=repo, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None and proc.stdout is not None
    # A tool call whose stdin (the `ops` argument) is large keeps the main thread busy for a while.
    big = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "canon_search", "arguments": {"query": ["x" * 50] * 2000, "limit": 1}},
    }
    for message in (INIT, INITIALIZED, big, {"jsonrpc": "2.0", "id": "p", "method": "ping"}):
        proc.stdin.write(line(message))
    proc.stdin.flush()
    order = [json.loads(proc.stdout.readline())["id"] for _ in range(3)]
    proc.stdin.close()
    proc.wait(30)
    assert order.index("p") < order.index(1) and proc.returncode == 0


def test_stdout_closed_by_the_client_ends_the_server_quietly(repo: Path) -> None:
    proc = subprocess.Popen(
        [script("pylon"), "mcp"], cwd=repo, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdout.close()
    proc.stdin.write(line(INIT) * 50)
    proc.stdin.close()
    assert proc.wait(30) == 0
    assert proc.stderr is not None and b"Traceback" not in proc.stderr.read()


# -- the SDK's own server as the oracle ----------------------------------------------------------


def converse(command: list[str], folder: Path, messages: list[dict[str, Any]]) -> dict[object, Any]:
    """Send each message and, for a request, wait for its answer before the next (both servers
    answer a request read before stdin ends, whatever their drain does)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        command, cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    assert proc.stdin is not None and proc.stdout is not None
    answers: dict[object, Any] = {}
    for message in messages:
        proc.stdin.write(line(message))
        proc.stdin.flush()
        while "id" in message and message["id"] not in answers:
            answer = json.loads(proc.stdout.readline())
            answers[answer["id"]] = answer
    proc.stdin.close()
    proc.wait(60)
    return answers


def test_the_same_exchange_as_the_sdks_own_server(repo: Path, tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    calls: list[tuple[str, dict[str, Any]]] = [
        ("canon_read", {"address": "src/app.py"}),
        ("canon_map", {}),
        ("canon_search", {"query": ["prints"]}),
        ("read", {"path": "src/app.py"}),
        ("read", {"path": str(outside)}),
        ("read", {"path": "nope.py"}),
        ("canon_read", {"address": "src/app.py", "colour": 1}),
        ("nope", {}),
        ("canon_write", {"address": "src/app.py", "capsule": "x", "mount": ["/"]}),
    ]
    messages: list[dict[str, Any]] = [
        INIT,
        INITIALIZED,
        {"jsonrpc": "2.0", "id": "l", "method": "tools/list"},
        {"jsonrpc": "2.0", "id": "p", "method": "ping"},
        {"jsonrpc": "2.0", "id": "m", "method": "resources/list"},
    ]
    messages += [
        {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": n, "arguments": a}}
        for i, (n, a) in enumerate(calls, 1)
    ]
    ours = converse([script("pylon"), "mcp"], repo, messages)
    theirs = converse([sys.executable, "-m", "tests.mcp.sdk_server"], repo, messages)
    assert set(ours) == set(theirs)
    for key in theirs:
        if "error" in theirs[key]:  # the same code; the wording is each server's own
            assert ours[key]["error"]["code"] == theirs[key]["error"]["code"], key
        else:
            assert ours[key] == theirs[key], key
