"""pylon.agents.events: every documented payload decodes; nothing malformed ever raises."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from pylon.agents.events import parse_event, patch_paths, read_event
from tests.agents.corpus import names, payload_text


@pytest.mark.parametrize("name", names())
def test_every_payload_decodes_with_its_envelope(name: str, tmp_path: Path) -> None:
    agent = "codex" if name.startswith("codex") else "claude-code"
    event = parse_event(agent, payload_text(name, tmp_path, "sess-1"))
    assert event.problem is None
    assert event.agent == agent and event.session_id == "sess-1" and event.cwd == str(tmp_path)
    assert event.name in ("SessionStart", "PreToolUse", "PostToolUse", "PostToolBatch", "Stop")
    if event.name in ("PreToolUse", "PostToolUse"):
        assert event.tool_name and event.calls and event.calls[0].input == event.tool_input
    if event.name == "PostToolBatch":
        assert [c.name for c in event.calls] == ["Read", "Grep"]
        assert event.calls[1].input["path"] == f"{tmp_path}/src/core"


def test_fields_of_specific_events(tmp_path: Path) -> None:
    start = parse_event("claude-code", payload_text("claude-code-session-start", tmp_path))
    assert start.source == "startup" and not start.calls
    write = parse_event("claude-code", payload_text("claude-code-post-write", tmp_path))
    assert write.tool_name == "Write" and write.tool_input["file_path"] == f"{tmp_path}/src/app.py"
    assert write.calls[0].use_id == "toolu_01ABC123"
    assert parse_event("claude-code", payload_text("claude-code-stop-active", tmp_path)).stop_hook_active
    assert not parse_event("codex", payload_text("codex-stop", tmp_path)).stop_hook_active


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"   \n",
        b"not json",
        b"[1, 2]",
        b'"text"',
        b"\xff\xfe{",
        b"{" * 100000,
        b'{"hook_event_name": 3, "tool_input": "x", "tool_calls": [1, null, {}]}',
    ],
)
def test_malformed_input_is_an_event_never_an_exception(data: bytes) -> None:
    event = parse_event("codex", data)
    assert event.name == ""
    assert isinstance(event.tool_input, dict)
    if data.strip().startswith(b'{"hook'):
        assert event.problem is None and event.calls[-1].name == ""
    else:
        assert event.problem


def test_read_event_reads_a_stream_and_caps_its_size() -> None:
    assert read_event("claude-code", io.BytesIO(b'{"hook_event_name": "Stop"}')).name == "Stop"
    huge = io.BytesIO(b" " * (16 * 1024 * 1024 + 10))
    assert read_event("claude-code", huge).problem == "input over 16 MiB"


def test_patch_paths_lists_each_file_of_an_apply_patch_envelope(tmp_path: Path) -> None:
    event = parse_event("codex", payload_text("codex-post-apply-patch", tmp_path))
    assert patch_paths(event.tool_input["command"]) == ["src/core/config.py", "src/new_mod.py"]
    moved = "*** Begin Patch\r\n*** Update File: a.py\r\n*** Move to: b/a.py\r\n*** Delete File: c.py\n*** End Patch"
    assert patch_paths(moved) == ["a.py", "b/a.py", "c.py"]
    assert patch_paths("no patch here") == []
