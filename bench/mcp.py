"""Benchmark: one MCP tools/call round trip through `pylon mcp` against the same command as a process.

An agent client starts `pylon mcp` once per session and then calls its tools; without it, the agent
runs `canon read PATH --json` in its shell, one process per call. Same run, same store
(bench/canon_agent.py's 2,000 articles under bench/.work/canon-agent-store): the median of N
`tools/call` round trips (JSON-RPC line written, answer line read) on one live server, the
server's start (spawn to the `initialize` answer) against the same tools on the official SDK's
low-level server (tests/mcp/sdk_server.py, pylon's design before its own server), and
`canon read PATH --json` / `pylon read FILE --json` as whole processes, with `python -c pass` as the
interpreter's floor. The starts are interleaved (ours, the SDK's, ours, ...) so load hits both alike.

Run: .venv/bin/python bench/mcp.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import WORK, record, table, time_command, tool
from canon_agent import ARTICLES, ASSET, ROOT, build  # the same store of 2,000 articles

STATE = WORK / "mcp-state"


class Server:
    """`pylon mcp` over raw pipes: one request line out, its answer line back."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            argv, cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.next_id = 0

    def request(self, method: str, params: dict[str, object]) -> dict[str, object]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.next_id += 1
        self.proc.stdin.write(
            (json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}) + "\n").encode()
        )
        self.proc.stdin.flush()
        while True:
            answer = json.loads(self.proc.stdout.readline())
            if answer.get("id") == self.next_id:
                return answer

    def notify(self, method: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps({"jsonrpc": "2.0", "method": method}) + "\n").encode())
        self.proc.stdin.flush()

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


INIT: dict[str, object] = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"},
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    if not (ROOT / ".canon").exists():
        build(ROOT)
    import os

    env = dict(os.environ, PYLON_STATE_DIR=str(STATE))
    pylon, canon = tool("pylon"), tool("canon")
    floor = time_command("python -c pass", [sys.executable, "-c", "pass"], runs=args.runs)
    canon_cli = time_command(
        f"canon read {ASSET} --json (a process)", [canon, "read", ASSET, "--json"], cwd=ROOT, env=env, runs=args.runs
    )
    read_cli = time_command(
        f"pylon read {ASSET} --json (a process)", [pylon, "read", ASSET, "--json"], cwd=ROOT, env=env, runs=args.runs
    )
    ours, sdk = [pylon, "mcp"], [sys.executable, "-m", "tests.mcp.sdk_server"]
    sdk_env = dict(env, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    starts: dict[str, list[float]] = {"ours": [], "sdk": []}
    for _ in range(args.runs):
        for name, argv, where in (("ours", ours, env), ("sdk", sdk, sdk_env)):
            began = time.perf_counter()
            server = Server(argv, where)
            server.request("initialize", INIT)
            starts[name].append(time.perf_counter() - began)
            server.close()
    server = Server(ours, env)
    server.request("initialize", INIT)
    server.notify("notifications/initialized")
    calls: dict[str, list[float]] = {"canon_read": [], "read": []}
    arguments = {"canon_read": {"address": ASSET}, "read": {"path": ASSET}}
    for i in range(args.runs + 2):
        for name in calls:
            began = time.perf_counter()
            answer = server.request("tools/call", {"name": name, "arguments": arguments[name]})
            elapsed = time.perf_counter() - began
            result = answer["result"]
            assert isinstance(result, dict) and result["isError"] is False, answer
            if i >= 2:
                calls[name].append(elapsed)
    server.close()

    def ms(seconds: float) -> str:
        return f"{seconds * 1000:.1f} ms"

    mcp_canon, mcp_read = statistics.median(calls["canon_read"]), statistics.median(calls["read"])
    rows = [
        ("python -c pass (floor)", floor.ms, ""),
        (canon_cli.label, canon_cli.ms, "1.00x (baseline)"),
        (f"tools/call canon_read {ASSET} (live server)", ms(mcp_canon), f"{mcp_canon / canon_cli.median:.2f}x"),
        (read_cli.label, read_cli.ms, "1.00x (baseline)"),
        (f"tools/call read {ASSET} (live server)", ms(mcp_read), f"{mcp_read / read_cli.median:.2f}x"),
    ]
    start, sdk_start = statistics.median(starts["ours"]), statistics.median(starts["sdk"])
    rows += [
        ("python -c pass (floor)", floor.ms, "1.00x (baseline)"),
        ("pylon mcp start (spawn to the initialize answer, once a session)", ms(start), f"{start / floor.median:.1f}x"),
        (
            "the same tools on the SDK's server (tests/mcp/sdk_server.py)",
            ms(sdk_start),
            f"{sdk_start / floor.median:.1f}x ({sdk_start / start:.1f}x pylon mcp's)",
        ),
    ]
    load = os.getloadavg()[0]
    record(
        "mcp",
        f"""## MCP server (`bench/mcp.py`)

Store of {ARTICLES:,} articles; medians of {args.runs} calls (after 2 warm-up calls) on one live `pylon mcp`
over raw stdio pipes, against the same command as a whole process in the same run. A tools/call runs
the CLI's own parser and handler in the server's process, so it pays neither the interpreter's
start nor pylon's imports. The starts: medians of {args.runs} each, interleaved, against `python -c pass`.
1-minute load average at the end: {load:.1f}.

{table(rows, ("what", "median", "vs the same command as a process"))}
""",
    )
    print("\n".join(" | ".join(r) for r in rows))


if __name__ == "__main__":
    main()
