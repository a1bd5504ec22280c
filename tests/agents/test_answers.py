"""pylon.agents.answers: the JSON each agent documents, built per event."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pylon.agents import answers
from pylon.agents.events import HookEvent, parse_event
from tests.agents.corpus import payload_text


def event(name: str, tmp_path: Path) -> HookEvent:
    return parse_event("codex" if name.startswith("codex") else "claude-code", payload_text(name, tmp_path))


@pytest.mark.parametrize(
    "name",
    [
        "claude-code-session-start",
        "codex-session-start",
        "claude-code-post-write",
        "codex-post-bash",
        "claude-code-post-batch",
    ],
)
def test_context_is_hook_specific_output_named_for_the_event(name: str, tmp_path: Path) -> None:
    ev = event(name, tmp_path)
    assert answers.context(ev, "hello") == {
        "hookSpecificOutput": {"hookEventName": ev.name, "additionalContext": "hello"}
    }
    assert answers.context(ev, "") == {}


def test_context_on_stop_is_a_noop_and_block_stop_continues(tmp_path: Path) -> None:
    stop = event("claude-code-stop", tmp_path)
    assert answers.context(stop, "x") == {}
    assert answers.block_stop(stop, "Update the articles.") == {"decision": "block", "reason": "Update the articles."}
    assert answers.block_stop(event("codex-post-bash", tmp_path), "x") == {}  # only Stop can continue


@pytest.mark.parametrize("name", ["claude-code-pre-bash", "codex-pre-bash"])
def test_permission_decisions(name: str, tmp_path: Path) -> None:
    ev = event(name, tmp_path)
    for build, decision in ((answers.deny, "deny"), (answers.ask, "ask"), (answers.allow, "allow")):
        out = build(ev, "why")
        assert out == {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": decision,
                "permissionDecisionReason": "why",
            }
        }
    assert answers.deny(event("claude-code-post-write", tmp_path), "no") == {}  # only before a tool runs


def test_emit_writes_one_json_line_even_for_a_noop() -> None:
    out = io.StringIO()
    answers.emit(answers.message("shown", answers.noop()), out)
    answers.emit(answers.noop(), out)
    lines = out.getvalue().splitlines()
    assert [json.loads(line) for line in lines] == [{"systemMessage": "shown"}, {}]
