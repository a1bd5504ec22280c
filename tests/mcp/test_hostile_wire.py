"""`pylon mcp` under hostile JSON-RPC: raw bytes on stdin, what no client sends but a broken or
malicious one could. Each line gets exactly one answer (none for a notification), every answer is
strict JSON (the SDK's client parses with pydantic: `Infinity` is no JSON), the server goes on
serving after each, and nothing reaches stderr as a traceback. The process: stdout carries only
JSON-RPC, its memory stays bounded under a flood, SIGINT ends it (after answering the call it
interrupts)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeRepo, fast_few, run_bytes, run_cmd, script
from tests.mcp.wire import INIT, INITIALIZED, declaring_roots, line

PING_AFTER = {"jsonrpc": "2.0", "id": "after", "method": "ping"}


def strict(raw: bytes) -> Any:
    """One stdout line as a JSON parser that knows no NaN or Infinity reads it (as the SDK's does)."""

    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not JSON")

    return json.loads(raw, parse_constant=refuse)


def converse(folder: Path, data: bytes, timeout: float = 120) -> tuple[list[Any], bytes, int]:
    code, out, err = run_bytes("pylon", "mcp", cwd=folder, input=data, timeout=timeout)
    return [strict(x) for x in out.splitlines()], err, code


@pytest.fixture
def repo(make_repo: MakeRepo) -> Path:
    root = make_repo({"src/app.py": "print('hi')\n"})
    assert run_cmd("canon", "write", "src/app.py", "--capsule", "Entry.", "--body", "Prints.", cwd=root).code == 0
    return root


def nested(depth: int, inner: bytes = b"") -> bytes:
    return b"[" * depth + inner + b"]" * depth


# under and over the limit, at its edge and far past it in the default tier; the sizes between in the full one
@pytest.mark.parametrize("depth", fast_few([100, 400, 500, 900, 990, 1000, 5000, 100_000], {100, 990, 1000, 100_000}))
@pytest.mark.parametrize("where", ["params", "id", "arguments", "array"])
def test_deep_nesting_is_answered_and_the_server_goes_on(repo: Path, depth: int, where: str) -> None:
    raw = {
        "params": b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":' + nested(depth) + b"}}",
        "id": b'{"jsonrpc":"2.0","id":' + nested(depth) + b',"method":"ping"}',
        "arguments": b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"path":'
        + nested(depth, b'"x"')
        + b"}}}",
        "array": nested(depth),
    }[where] + b"\n"
    answers, err, status = converse(repo, raw + line(PING_AFTER))
    assert status == 0 and b"Traceback" not in err, err[-2000:]
    assert len(answers) == 2 and {"jsonrpc": "2.0", "id": "after", "result": {}} in answers, answers
    first = next(a for a in answers if a["id"] != "after")  # a ping is answered by the reader: order may vary
    assert "error" in first or first["result"].get("isError") is True or where == "params"
    assert len(json.dumps(first)) < 10_000  # the error names the fault; it does not echo the input


@pytest.mark.parametrize("request_id", [b'{"a":1}', b"[1]", b"[]", b"null", b"true", b'"x"'])
def test_a_cancellation_naming_no_usable_request_is_ignored(repo: Path, request_id: bytes) -> None:
    cancel = b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":' + request_id + b"}}\n"
    answers, err, status = converse(repo, cancel + line(PING_AFTER))
    assert status == 0 and b"Traceback" not in err, err[-2000:]
    assert answers == [{"jsonrpc": "2.0", "id": "after", "result": {}}]


@pytest.mark.parametrize("number", [b"1e400", b"-1e400", b"1" + b"0" * 400 + b".0", b"1" + b"0" * 5000])
def test_an_id_no_json_can_echo_gets_a_strict_json_error(repo: Path, number: bytes) -> None:
    raw = b'{"jsonrpc":"2.0","id":' + number + b',"method":"ping"}\n'
    answers, err, status = converse(repo, raw + line(PING_AFTER))  # `strict` fails on Infinity
    assert status == 0 and b"Traceback" not in err
    assert answers[0]["id"] is None and answers[0]["error"]["code"] in (-32700, -32600), answers[0]
    assert "set_int_max_str_digits" not in json.dumps(answers[0])  # Python's advice is not the client's
    assert answers[1] == {"jsonrpc": "2.0", "id": "after", "result": {}}  # both answered by the reader, in order


def test_numbers_out_of_range_in_arguments_answer_strict_json(repo: Path) -> None:
    call = (
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"path":"src/app.py",'
        b'"offset":1e400}}}\n'
    )
    cancel = b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1e400}}\n'
    answers, err, status = converse(repo, line(INIT) + call + cancel + line(PING_AFTER))
    assert status == 0 and b"Traceback" not in err
    assert sorted(str(a["id"]) for a in answers) == ["0", "None", "None", "after"]  # not knowing what a line
    assert all(a["error"]["code"] == -32700 for a in answers if a["id"] is None)  # was, JSON-RPC answers it


def test_a_byte_order_mark_before_the_first_message_is_ignored(repo: Path) -> None:
    # RFC 8259 section 8.1: a parser MAY ignore a BOM; Windows tools (PowerShell) write one.
    answers, err, status = converse(repo, b"\xef\xbb\xbf" + line(INIT) + line(PING_AFTER))
    assert status == 0 and sorted(str(a["id"]) for a in answers) == ["0", "after"], answers
    assert all("result" in a for a in answers)


def test_line_endings_and_framing(repo: Path) -> None:
    ping = b'{"jsonrpc":"2.0","id":%d,"method":"ping"}'
    data = (
        ping % 1
        + b"\r\n"  # CRLF: the CR is whitespace to JSON
        + b"\n \t\n"  # blank lines: no message, no answer
        + ping % 2
        + b" "
        + ping % 3
        + b"\n"  # two messages on one line: one parse error
        + b'{"jsonrpc":"2.0","id":4,"result":{}}\n'  # a response to nothing we asked: ignored
        + b'{"jsonrpc":"2.0","id":5,"method":"shutdown"}\n'  # LSP's, not MCP's: unknown method
        + b'{"jsonrpc":"2.0","id":7,"id":8,"method":"ping"}\n'  # a key twice: the last one counts
        + ping % 6
    )  # stdin ends mid-line with a whole message: still answered
    answers, err, status = converse(repo, data)
    assert status == 0 and b"Traceback" not in err
    assert sorted((str(a["id"]), "error" in a and a["error"]["code"]) for a in answers) == [
        ("1", False),
        ("5", -32601),
        ("6", False),
        ("8", False),
        ("None", -32700),
    ]


def test_an_unfinished_last_line_is_a_parse_error(repo: Path) -> None:
    answers, _, status = converse(repo, line(INIT) + b'{"jsonrpc":"2.0","id":1,"meth')
    assert status == 0 and sorted(str(a["id"]) for a in answers) == ["0", "None"]
    assert next(a for a in answers if a["id"] is None)["error"]["code"] == -32700


def test_a_bad_argument_is_named_not_echoed(repo: Path) -> None:
    huge = ["a"] * 1_000_000
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "read", "arguments": {"path": huge}}}
    answers, _, status = converse(repo, line(INIT) + line(call))
    assert status == 0 and answers[1]["result"]["isError"] is True
    assert len(json.dumps(answers[1])) < 5_000 and "bad-tool-call" in json.dumps(answers[1])
    assert len(json.dumps(answers[1])) < 5_000


def test_sigint_during_a_call_answers_it_then_ends_the_server(repo: Path) -> None:
    # The first call waits for the client's roots (it declared the capability and never answers).
    proc, _ = declaring_roots(repo, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "read", "arguments": {"path": "x"}}}
    proc.stdin.write(line(call))
    proc.stdin.flush()
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    try:
        status = proc.wait(5)  # stdin stays open: only the signal can end it
    finally:
        proc.kill()
    rest = [strict(x) for x in proc.stdout.read().splitlines()]
    assert status == 130 and b"Traceback" not in proc.stderr.read()
    assert [a["id"] for a in rest] == [1]  # the call it interrupted is answered


@pytest.mark.slow
def test_memory_stays_bounded_under_a_flood(repo: Path) -> None:
    """300 MB of tool calls queued while the first call waits (for roots the client never sends): the
    reader stops reading ahead (the pipe pushes back on the client) instead of holding them all."""
    proc = subprocess.Popen(
        [script("pylon"), "mcp"], cwd=repo, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdout = proc.stdout
    init = json.loads(json.dumps(INIT))
    init["params"]["capabilities"] = {"roots": {}}
    big = line(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "no_such_tool", "arguments": {"x": "x" * 1_000_000}},
        }
    )
    answers: list[Any] = []
    high = [0]

    def read() -> None:
        for raw in stdout:
            answers.append(strict(raw))
            status = Path(f"/proc/{proc.pid}/status")
            for row in status.read_text().splitlines() if status.exists() else []:
                if row.startswith("VmHWM:"):
                    high[0] = max(high[0], int(row.split()[1]))

    reader = threading.Thread(target=read)
    reader.start()
    proc.stdin.write(line(init) + line(INITIALIZED))
    for _ in range(300):
        proc.stdin.write(big)
    proc.stdin.close()
    reader.join(600)
    proc.wait(60)
    assert len(answers) == 302 and proc.returncode == 0
    assert high[0] < 250_000, f"peak resident memory {high[0]} KB"


@pytest.mark.slow
def test_a_pattern_that_backtracks_forever_is_stopped_and_the_server_goes_on(repo: Path) -> None:
    """`read` with `grep` runs the agent's regular expression: `(a+)+$` on a line of 40 `a`s and a
    `b` takes longer than the universe has. Through pylon mcp it is stopped after GREP_SECONDS."""
    from pylon.workspace.edits.grep import GREP_SECONDS

    (repo / "src" / "slow.txt").write_text("a" * 40 + "b\n")
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "read", "arguments": {"path": "src/slow.txt", "grep": "(a+)+$"}},
    }
    after = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "read", "arguments": {"path": "src/slow.txt", "grep": "b$"}},
    }
    start = time.monotonic()
    answers, err, status = converse(repo, line(INIT) + line(call) + line(after), timeout=GREP_SECONDS * 6)
    assert status == 0 and b"Traceback" not in err and time.monotonic() - start < GREP_SECONDS * 3
    by_id = {a["id"]: a["result"]["structuredContent"] for a in answers if a["id"] in (1, 2)}
    assert by_id[1]["error"]["code"] == "grep-timeout" and "(a+)+$" in by_id[1]["error"]["message"]
    assert by_id[2]["matched"] == [1]


@pytest.mark.slow
def test_a_thousand_calls_leak_no_thread_descriptor_or_child(repo: Path) -> None:
    proc = subprocess.Popen(
        [script("pylon"), "mcp"], cwd=repo, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    calls: list[tuple[str, dict[str, Any]]] = [
        ("read", {"path": "src/app.py"}),
        ("canon_read", {"address": "src/app.py"}),
        ("canon_check", {}),
        ("canon_write", {"address": "src/app.py", "capsule": "c"}),
        ("read", {"path": "/etc/passwd"}),
        ("edit", {"target": "src/new.py", "create": True, "ops": "insert after 0\n+x\n"}),
        ("canon_search", {"query": ["entry"]}),
        ("canon_journal", {"text": "x"}),
    ]

    def census() -> tuple[int, int]:
        return len(os.listdir(f"/proc/{proc.pid}/task")), len(os.listdir(f"/proc/{proc.pid}/fd"))

    proc.stdin.write(line(INIT))
    proc.stdin.flush()
    strict(proc.stdout.readline())
    counts = []
    for i in range(1, 1001):
        name, arguments = calls[i % len(calls)]
        proc.stdin.write(
            line({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
        )
        proc.stdin.flush()
        assert strict(proc.stdout.readline())["id"] == i
        if i % 250 == 0:
            counts.append(census())
            children = subprocess.run(["ps", "--ppid", str(proc.pid), "-o", "pid="], capture_output=True, text=True)
            assert children.stdout.strip() == ""  # every git it ran was waited for: no zombie, no straggler
    proc.stdin.close()
    assert proc.wait(30) == 0 and b"Traceback" not in proc.stderr.read()
    proc.stdout.close()
    proc.stderr.close()
    assert len(set(counts)) == 1 and counts[0][0] == 2, counts  # the main thread and the stdin reader


def test_a_cancel_for_no_waiting_request_is_forgotten(repo: Path) -> None:
    """A cancel that arrives after its answer (or names a request never sent) is ignored, as the spec
    allows: it neither drops a later request that uses the id again nor piles up in memory."""
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "read", "arguments": {"path": "src/app.py"}},
    }
    answers, err, status = converse(repo, line(INIT) + line(cancel) + line(call) + line(call))
    assert status == 0 and [a["id"] for a in answers if a["id"] == 1] == [1, 1], answers


def test_a_start_folder_removed_under_the_server_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "gone"
    folder.mkdir()
    proc = subprocess.Popen(
        [script("pylon"), "mcp"], cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(line(INIT))
    proc.stdin.flush()
    strict(proc.stdout.readline())
    folder.rmdir()
    proc.stdin.write(
        line(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "read", "arguments": {"path": "a.txt"}},
            }
        )
    )
    proc.stdin.close()
    answer = strict(proc.stdout.readline())
    assert proc.wait(30) == 0 and b"Traceback" not in proc.stderr.read()
    proc.stdout.close()
    proc.stderr.close()
    assert answer["result"]["isError"] is True and answer["result"]["structuredContent"]["error"]["code"] == "not-found"
    assert str(folder) in answer["result"]["content"][0]["text"]
