"""One hook event read from an agent: Claude Code and Codex send the same envelope.

Both agents write one JSON object on the hook's stdin with `session_id`, `cwd`,
`hook_event_name` and, for tool events, `tool_name` and `tool_input` (Claude Code's
`PostToolBatch` carries a list of calls instead). Parsing never raises: a hook must never block
the agent because its input was odd, so anything unexpected becomes an event named "" with a
`problem` the caller may log.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO

AGENTS = ("claude-code", "codex")
# The agents' shell tools (Claude Code's Bash; Codex's, under the names its versions used).
SHELL_TOOLS = frozenset({"Bash", "bash", "shell", "exec_command", "local_shell"})
# A hook event is small; a runaway stdin (a pipe left open, a huge tool output) must not stall.
MAX_EVENT_BYTES = 16 * 1024 * 1024


class ToolCall:
    """One tool call: its name and its input object."""

    __slots__ = ("name", "input", "use_id")

    def __init__(self, name: str, input: dict[str, Any], use_id: str = "") -> None:
        self.name, self.input, self.use_id = name, input, use_id

    def __repr__(self) -> str:
        return f"ToolCall({self.name!r}, {self.input!r})"


class HookEvent:
    """A decoded hook event (see the package docstring for the fields)."""

    __slots__ = (
        "agent",
        "name",
        "session_id",
        "cwd",
        "tool_name",
        "tool_input",
        "calls",
        "source",
        "stop_hook_active",
        "raw",
        "problem",
    )

    def __init__(self, agent: str, raw: dict[str, Any], problem: str | None = None) -> None:
        self.agent, self.raw, self.problem = agent, raw, problem
        self.name = _text(raw.get("hook_event_name"))
        self.session_id = _text(raw.get("session_id"))
        self.cwd = _text(raw.get("cwd"))
        self.source = _text(raw.get("source"))
        self.stop_hook_active = raw.get("stop_hook_active") is True
        self.tool_name = _text(raw.get("tool_name"))
        tool_input = raw.get("tool_input")
        self.tool_input: dict[str, Any] = tool_input if isinstance(tool_input, dict) else {}
        self.calls: list[ToolCall] = []
        if self.tool_name or "tool_input" in raw:
            self.calls.append(ToolCall(self.tool_name, self.tool_input, _text(raw.get("tool_use_id"))))
        for key in ("tool_calls", "tool_results"):  # PostToolBatch (both spellings have been documented)
            batch = raw.get(key)
            if isinstance(batch, list):
                for item in batch:
                    if isinstance(item, dict):
                        given = item.get("tool_input")
                        self.calls.append(
                            ToolCall(
                                _text(item.get("tool_name")),
                                given if isinstance(given, dict) else {},
                                _text(item.get("tool_use_id")),
                            )
                        )
                break

    def __repr__(self) -> str:
        return f"HookEvent({self.agent!r}, {self.name!r}, session={self.session_id!r}, calls={self.calls!r})"


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def parse_event(agent: str, data: bytes | str) -> HookEvent:
    """Decode one event; malformed input gives an event named "" with `problem` set."""
    if not data or not data.strip():
        return HookEvent(agent, {}, "empty input")
    from pylon.agents.jsonio import loads

    try:
        raw = loads(data)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        return HookEvent(agent, {}, f"not JSON: {str(exc)[:200]}")
    if not isinstance(raw, dict):
        return HookEvent(agent, {}, f"not a JSON object: {type(raw).__name__}")
    return HookEvent(agent, raw)


def read_event(agent: str, stream: BinaryIO | None = None) -> HookEvent:
    """Read and decode the one event on `stream` (default: stdin's bytes)."""
    source = stream if stream is not None else sys.stdin.buffer
    try:
        data = source.read(MAX_EVENT_BYTES + 1)
    except (OSError, ValueError) as exc:  # closed or unreadable stdin
        return HookEvent(agent, {}, f"stdin unreadable: {exc}")
    if len(data) > MAX_EVENT_BYTES:
        return HookEvent(agent, {}, "input over 16 MiB")
    return parse_event(agent, data)


_PATCH_MARKERS = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")


def patch_paths(text: str) -> list[str]:
    """The files an `apply_patch` envelope names, in order, each once."""
    found: list[str] = []
    for line in text.split("\n"):
        line = line.rstrip("\r")
        for marker in _PATCH_MARKERS:
            if line.startswith(marker):
                path = line[len(marker) :].strip()
                if path and path not in found:
                    found.append(path)
                break
    return found
