"""Transcript lines in the shapes the real clients write (Claude Code 2.1.332 and Codex 0.171.0, as
their runs against the e2e tier's mock model wrote them; tests/e2e/test_sessions.py checks the real
files), for tests that need a precise situation: a split message, a replay, a partial line.

Each helper returns one JSON line; `claude_file` and `codex_file` write them where the clients do.
"""

from __future__ import annotations

import json as _json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

SESSION = "05defe4d-56bf-4507-a454-0adc312bba22"
THREAD = "01a24905-37ef-7973-ab3c-3cecf0fa492f"


class json:  # compact JSON, as the clients write it
    @staticmethod
    def dumps(value: Any) -> str:
        return _json.dumps(value, separators=(",", ":"))


def _stamp(second: float) -> str:
    whole = int(second)
    return f"2025-06-01T01:{whole // 60:02d}:{whole % 60:02d}.{int(round((second - whole) * 1000)):03d}Z"


def claude_env(home: Path) -> dict[str, str]:
    return {"CLAUDE_CONFIG_DIR": str(home / ".claude"), "CODEX_HOME": str(home / ".codex")}


def claude_file(home: Path, cwd: Path, lines: list[str], session: str = SESSION, sub: str | None = None) -> Path:
    """`projects/<folder>/<session>.jsonl` (or `<session>/subagents/<sub>.jsonl`) under home/.claude."""
    folder = home / ".claude" / "projects" / str(cwd).replace(os.sep, "-").replace(".", "-")
    path = folder / f"{session}.jsonl" if sub is None else folder / session / "subagents" / f"{sub}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _claude_base(kind: str, at: float, cwd: Path, session: str, side: bool) -> dict[str, Any]:
    return {
        "parentUuid": None,
        "isSidechain": side,
        "type": kind,
        "uuid": f"u-{kind}-{at}",
        "timestamp": _stamp(at),
        "userType": "external",
        "entrypoint": "cli",
        "cwd": str(cwd),
        "sessionId": session,
        "version": "2.1.332",
        "gitBranch": "main",
    }


def prompt(at: float, cwd: Path, text: str = "Do the task.", session: str = SESSION) -> str:
    entry = _claude_base("user", at, cwd, session, False)
    entry["message"] = {"role": "user", "content": text}
    return json.dumps(entry)


def assistant(
    at: float,
    cwd: Path,
    message_id: str,
    *,
    tools: Sequence[tuple[str, str, dict[str, Any]]] = (),
    text: str = "",
    usage: dict[str, Any] | None = None,
    model: str = "claude-sonnet-4-5",
    stop: str | None = None,
    side: bool = False,
    request: str | None = None,
    session: str = SESSION,
) -> str:
    """An assistant line: `tools` as (id, name, input) tool_use blocks, or a text block."""
    content: list[dict[str, Any]] = [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in tools]
    if text or not content:
        content.append({"type": "text", "text": text or "done"})
    use = {
        "input_tokens": 10,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 10,
        "service_tier": "standard",
        "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0},
    }
    use.update(usage or {})
    entry = _claude_base("assistant", at, cwd, session, side)
    entry["message"] = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop or ("tool_use" if tools else "end_turn"),
        "stop_sequence": None,
        "usage": use,
    }
    if request is not None:
        entry["requestId"] = request
    return json.dumps(entry)


def result(
    at: float, cwd: Path, call_id: str, text: str, error: bool = False, session: str = SESSION, side: bool = False
) -> str:
    entry = _claude_base("user", at, cwd, session, side)
    entry["message"] = {
        "role": "user",
        "content": [{"tool_use_id": call_id, "type": "tool_result", "content": text, "is_error": error}],
    }
    return json.dumps(entry)


def bookkeeping(at: float, session: str = SESSION) -> str:
    """A line that only tells the time (as Claude Code's queue operations and request shapes do)."""
    return json.dumps(
        {
            "type": "queue-operation",
            "operation": "enqueue",
            "timestamp": _stamp(at),
            "sessionId": session,
            "content": "x",
        }
    )


# -- Codex ------------------------------------------------------------------------------------------


def codex_file(home: Path, lines: list[str], thread: str = THREAD, folder: str = "sessions") -> Path:
    path = home / ".codex" / folder / "2026" / "12" / "06" / f"rollout-2026-12-06T01-43-28-{thread}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _codex(kind: str, at: float, payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": _stamp(at), "type": kind, "payload": payload})


def meta(at: float, cwd: Path, thread: str = THREAD, source: Any = "cli") -> str:
    return _codex(
        "session_meta",
        at,
        {
            "id": thread,
            "session_id": thread,
            "timestamp": _stamp(at),
            "cwd": str(cwd),
            "originator": "codex_cli",
            "cli_version": "0.171.0",
            "source": source,
        },
    )


def turn_context(at: float, cwd: Path, model: str = "gpt-5.1-codex") -> str:
    return _codex("turn_context", at, {"cwd": str(cwd), "model": model, "approval_policy": "never"})


def event(at: float, kind: str, **fields: Any) -> str:
    return _codex("event_msg", at, {"type": kind, **fields})


def call(at: float, call_id: str, command: str, name: str = "exec_command") -> str:
    return _codex(
        "response_item",
        at,
        {
            "type": "function_call",
            "id": f"fc_{call_id}",
            "name": name,
            "arguments": _json.dumps({"cmd": command}),
            "call_id": call_id,
        },
    )


def output(at: float, call_id: str, code: int, text: str = "") -> str:
    return _codex(
        "response_item",
        at,
        {
            "type": "function_call_output",
            "call_id": call_id,
            "output": f"Chunk ID: 9b1053\nWall time: 0.0000 seconds\nProcess exited with "
            f"code {code}\nOriginal token count: 2\nOutput:\n{text}",
        },
    )


def tokens(at: float, total: list[int] | None, last: list[int] | None) -> str:
    """A token_count event; each usage as [input, cached, output, reasoning, total]."""

    def usage(v: list[int] | None) -> dict[str, int] | None:
        return (
            None
            if v is None
            else {
                "input_tokens": v[0],
                "cached_input_tokens": v[1],
                "output_tokens": v[2],
                "reasoning_output_tokens": v[3],
                "total_tokens": v[4],
            }
        )

    info = {"total_token_usage": usage(total), "last_token_usage": usage(last), "model_context_window": 258400}
    return event(at, "token_count", info={k: v for k, v in info.items() if v is not None}, rate_limits=None)
