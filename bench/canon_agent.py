"""Benchmark: the agent hooks of canon (`canon surface`, `canon hook`), per call, start-up included.

An agent runs `canon hook` on every tool call, so the bar is per process: under 150 ms for
`canon surface` of one path and for each `canon hook` event. Baselines in the same run:
`python -c pass` (the interpreter's own start) and `canon read` of the same path. The store has
2,000 articles (cached under bench/.work/canon-agent-store); before every timed sample the
session state is removed, so each surface or hook does the full work (stage, lock, read the
capsule, write the state), never a "shown already" shortcut.

Run: .venv/bin/python bench/canon_agent.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import WORK, record, table, time_command, tool, verdict

ROOT = WORK / "canon-agent-store"
STATE = WORK / "canon-agent-state"
ARTICLES = 2000
ASSET = "svc/s07/mod03/leaf.py"
BAR = 0.150


def build(root: Path) -> None:
    for i in range(ARTICLES):
        address = f"svc/s{i % 20:02d}/mod{i // 20:02d}/leaf"
        path = root / ".canon" / "articles" / f"{address}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"---\ncapsule: Module {i}: parses input, retries twice, never blocks.\n"
            f"updated: 2026-01-{1 + i % 28:02d}\n---\nBody of module {i}.\n",
            encoding="utf-8",
        )
        asset = root / f"{address}.py"
        asset.parent.mkdir(parents=True, exist_ok=True)
        asset.write_text("x = 1\n", encoding="utf-8")
    (root / ".canon" / "journal").mkdir(parents=True, exist_ok=True)


def event(name: str, **extra: object) -> bytes:
    doc = {
        "session_id": "bench-session",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(ROOT),
        "permission_mode": "default",
        "hook_event_name": name,
        **extra,
    }
    return json.dumps(doc).encode()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    if not (ROOT / ".canon").exists():
        build(ROOT)
    canon = tool("canon")
    env = {"PYLON_STATE_DIR": str(STATE), "PYLON_SESSION": "bench-session"}
    reset = f"rm -rf {STATE}"
    post = event(
        "PostToolUse",
        tool_name="Edit",
        tool_use_id="t1",
        tool_input={"file_path": str(ROOT / ASSET), "old_string": "x = 1", "new_string": "x = 2"},
    )
    bash = event(
        "PostToolUse",
        tool_name="Bash",
        tool_use_id="t2",
        tool_input={"command": f"sed -i s/1/2/ {ASSET} && grep -n x svc/s01/mod01/leaf.py"},
    )
    batch = event(
        "PostToolBatch",
        tool_calls=[
            {
                "tool_name": "Read",
                "tool_use_id": "b1",
                "tool_input": {"file_path": str(ROOT / "svc/s01/mod01/leaf.py")},
            },
            {
                "tool_name": "Edit",
                "tool_use_id": "b2",
                "tool_input": {"file_path": str(ROOT / ASSET), "old_string": "x = 1", "new_string": "x = 2"},
            },
            {"tool_name": "mcp__docs__search", "tool_use_id": "b3", "tool_input": {"query": "pool sizes"}},
        ],
    )
    pathless = event(
        "PostToolBatch", tool_calls=[{"tool_name": "TodoWrite", "tool_use_id": "b4", "tool_input": {"todos": []}}]
    )
    timings = [
        ("python -c pass (baseline)", time_command("pass", [sys.executable, "-c", "pass"], runs=args.runs)),
        (
            "canon read PATH (reference)",
            time_command("read", [canon, "read", ASSET], runs=args.runs, cwd=ROOT, env=env),
        ),
        (
            "canon surface PATH",
            time_command("surface", [canon, "surface", ASSET], runs=args.runs, cwd=ROOT, env=env, setup=reset),
        ),
        (
            "canon hook claude-code: PostToolUse Edit",
            time_command(
                "post", [canon, "hook", "claude-code"], cwd=ROOT, runs=args.runs, env=env, setup=reset, stdin_data=post
            ),
        ),
        (
            "canon hook claude-code: PostToolUse Bash",
            time_command(
                "bash", [canon, "hook", "claude-code"], cwd=ROOT, runs=args.runs, env=env, setup=reset, stdin_data=bash
            ),
        ),
        (
            "canon hook claude-code: PostToolBatch (Read, Edit, an MCP call)",
            time_command(
                "batch",
                [canon, "hook", "claude-code"],
                cwd=ROOT,
                runs=args.runs,
                env=env,
                setup=reset,
                stdin_data=batch,
            ),
        ),
        (
            "canon hook claude-code: PostToolBatch naming no path",
            time_command(
                "pathless",
                [canon, "hook", "claude-code"],
                cwd=ROOT,
                runs=args.runs,
                env=env,
                setup=reset,
                stdin_data=pathless,
            ),
        ),
        (
            "canon hook codex: SessionStart (no greeting: a new cycle)",
            time_command(
                "start",
                [canon, "hook", "codex"],
                cwd=ROOT,
                runs=args.runs,
                env=env,
                setup=reset,
                stdin_data=event("SessionStart", source="startup"),
            ),
        ),
        (
            "canon hook claude-code: Stop (after an Edit)",
            time_command(
                "stop",
                [canon, "hook", "claude-code"],
                cwd=ROOT,
                runs=args.runs,
                env=env,
                setup=f"{reset} && {canon} surface --changed {ASSET} >/dev/null",
                stdin_data=event("Stop", stop_hook_active=False),
            ),
        ),
    ]
    load = os.getloadavg()[0]  # shared machines: the figures below are only as quiet as this
    base = timings[0][1].median
    rows = []
    for label, timing in timings:
        bar = "" if "baseline" in label or "reference" in label else verdict(timing.median < BAR)
        rows.append((label, timing.ms, f"{timing.median / base:.2f}x", bar))
    shutil.rmtree(STATE, ignore_errors=True)
    record(
        "canon-agent",
        "## canon agent hooks (`bench/canon_agent.py`)\n\n"
        f"Store of {ARTICLES:,} articles; medians of {args.runs} whole processes; session state removed "
        "before every sample (full work each time). Bar: under 150 ms per call. 1-minute load average "
        f"at the end of the run: {load:.1f} (the ratios to `python -c pass` are the stabler figure).\n\n"
        + table(rows, ("command", "median", "vs python -c pass", "150 ms bar")),
    )
    for row in rows:
        print(" | ".join(row))


if __name__ == "__main__":
    main()
