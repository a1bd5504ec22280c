"""Raw JSON-RPC to the installed `pylon mcp`: bytes in, parsed lines out (no SDK on this side)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.conftest import run_bytes, script

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def exchange(folder: Path, lines: list[bytes], timeout: float = 120) -> tuple[list[dict[str, Any]], bytes, int]:
    """Pipe `lines` (each ends with a newline) into `pylon mcp` started in `folder`, close stdin:
    (every stdout line parsed, stderr, exit status)."""
    code, out, err = run_bytes("pylon", "mcp", cwd=folder, input=b"".join(lines), timeout=timeout)
    return [json.loads(line) for line in out.splitlines()], err, code


def line(message: dict[str, Any]) -> bytes:
    return (json.dumps(message) + "\n").encode()


def tool_calls(
    folder: Path,
    calls: Sequence[tuple[str, dict[str, Any]] | tuple[str, dict[str, Any], dict[str, Any]]],
    capabilities: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The structured content of each call, in order (one server for all of them)."""
    init = json.loads(json.dumps(INIT))
    init["params"]["capabilities"] = capabilities or {}
    sent = [line(init), line(INITIALIZED)]
    for i, call in enumerate(calls, 1):
        params: dict[str, Any] = {"name": call[0], "arguments": call[1]}
        if len(call) == 3:
            params["_meta"] = call[2]
        sent.append(line({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}))
    answers, err, code = exchange(folder, sent)
    assert code == 0 and b"Traceback" not in err, err.decode()[-3000:]
    by_id = {a["id"]: a for a in answers if "id" in a}
    return [by_id[i]["result"]["structuredContent"] for i in range(1, len(calls) + 1)]


def declaring_roots(folder: Path, stderr: int | None = subprocess.DEVNULL) -> tuple[subprocess.Popen[bytes], Any]:
    """`pylon mcp` started in `folder` for a client that declares the roots capability: initialized,
    and the server's roots/list request read (the caller answers it, or never does)."""
    proc = subprocess.Popen(
        [script("pylon"), "mcp"], cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr
    )
    assert proc.stdin is not None and proc.stdout is not None
    init = json.loads(json.dumps(INIT))
    init["params"]["capabilities"] = {"roots": {"listChanged": True}}
    proc.stdin.write(line(init) + line(INITIALIZED))
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 0
    ask = json.loads(proc.stdout.readline())
    assert ask["method"] == "roots/list", ask
    return proc, ask
