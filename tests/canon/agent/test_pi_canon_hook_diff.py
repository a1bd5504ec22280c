"""Differential: `canon hook` and pi-canon 0.3.0's own hook script (plugins/pi-canon/scripts/
pi-canon-hook.mjs, run with tsx) fed the same event sequences, on the same project. Which articles
each surfaces per event, and whether Stop asks to continue, must agree: no greeting, one packet per
Claude Code batch, after each Codex tool result, every tool that names a path (MCP tools too), at
most once per cycle, compact/clear/startup begin a cycle and resume does not.

Needs the pi-canon oracle (../shared/oracles/pi-canon.git beside the checkout, or PI_CANON_REPO) and
a `tsx` binary (PI_CANON_TSX, else `tsx` on PATH; `npm install --prefix DIR tsx` gives one); skipped
without them, failed without them in CI (tests/canon/helpers.py).
Where canon deliberately differs (docs/explanation/agents.md) the sequences stay off that ground: canon
keeps the update reminder across a compaction, pi-canon drops it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article, pi_canon_source, pi_canon_tsx
from tests.conftest import run_cmd

TSX = pi_canon_tsx()


@pytest.fixture(scope="module")
def pi_hook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = pi_canon_source(
        tmp_path_factory.mktemp("pi-canon-plugin"), "plugins/pi-canon/core", "plugins/pi-canon/scripts", "package.json"
    )
    return folder / "plugins/pi-canon/scripts/pi-canon-hook.mjs"


@pytest.fixture
def root(make_store: MakeStore) -> Path:
    return make_store(
        articles={
            "src/app": article("Entry point; parses flags.", updated="2026-01-02"),
            "src/core": article("Core: config and pool.", updated="2026-01-03"),
            "docs": article("User documentation.", updated="2026-01-04"),
        },
        files={"src/app.py": "x\n", "src/core/config.py": "a = 1\n", "docs/guide.md": "# guide\n", "notes.txt": ""},
    )


# pi-canon: "<address> (updated D): capsule" lines under a "[pi-canon] ..." header;
# canon: "- <address> (updated D): capsule" lines under a "canon: ..." header.
_LINE = re.compile(r"^(?:- )?([^\s:(]+) \(updated [^)]*\):", re.M)


def _surfaced(doc: dict) -> list[str]:
    text = doc.get("hookSpecificOutput", {}).get("additionalContext", "")
    return sorted(_LINE.findall(text))


def _stop(doc: dict) -> list[str]:
    if doc.get("decision") != "block":
        return []
    reason = doc["reason"]
    named = re.findall(r"^- ([^:]+):", reason, re.M)  # canon: one line per article
    if not named and "Touched but not updated: " in reason:  # pi-canon: one comma-separated line
        named = reason.split("Touched but not updated: ", 1)[1].split(". ", 1)[0].split(", ")
    return sorted(named)


def _both(pi_hook: Path, root: Path, state: Path, agent: str, event: dict) -> tuple[dict, dict]:
    event = {"session_id": "diff-1", "cwd": str(root), **event}
    data = json.dumps(event)
    env = {**os.environ, "PLUGIN_DATA": str(state), "PI_CANON_CALLER": agent}
    theirs = subprocess.run(
        [TSX, str(pi_hook)], input=data, capture_output=True, text=True, env=env, cwd=root, timeout=60
    )
    assert theirs.returncode == 0, theirs.stderr
    ours = run_cmd("canon", "hook", agent, cwd=root, input=data)
    assert ours.code == 0, ours
    return json.loads(ours.out), json.loads(theirs.stdout)


def _tool(name: str, **tool_input: object) -> dict:
    return {"tool_name": name, "tool_input": tool_input, "tool_use_id": f"t-{name}"}


def test_claude_code_sequence_agrees_with_pi_canon(pi_hook: Path, root: Path, tmp_path: Path) -> None:
    state = tmp_path / "pi-state"
    batch = {
        "hook_event_name": "PostToolBatch",
        "tool_calls": [
            _tool("Read", file_path=str(root / "src/app.py")),
            _tool("Grep", pattern="pool", path=str(root / "src/core")),
            _tool("mcp__docs__search", query="guide", file="docs/guide.md"),
            _tool("TodoWrite", todos=[]),
        ],
    }
    steps: list[tuple[str, dict]] = [
        ("start", {"hook_event_name": "SessionStart", "source": "startup"}),
        ("batch", batch),
        ("batch again", batch),
        ("resume", {"hook_event_name": "SessionStart", "source": "resume"}),
        ("batch after resume", batch),
        ("compact", {"hook_event_name": "SessionStart", "source": "compact"}),
        ("batch after compact", batch),
        ("clear", {"hook_event_name": "SessionStart", "source": "clear"}),
        (
            "edit",
            {
                "hook_event_name": "PostToolBatch",
                "tool_calls": [
                    _tool("Edit", file_path=str(root / "src/core/config.py"), old_string="1", new_string="2")
                ],
            },
        ),
        ("stop", {"hook_event_name": "Stop", "stop_hook_active": False}),
        ("stop again", {"hook_event_name": "Stop", "stop_hook_active": False}),
    ]
    edit = steps[-3][1]
    steps += [
        ("edit, then the article file changes", edit),
        ("stop after the update", {"hook_event_name": "Stop", "stop_hook_active": False}),
    ]
    for label, event in steps:
        if label == "stop after the update":
            core = root / ".canon/articles/src/core.md"
            core.write_text(core.read_text() + "Pool size now comes from the environment.\n")
        ours, theirs = _both(pi_hook, root, state, "claude-code", event)
        assert _surfaced(ours) == _surfaced(theirs), (label, ours, theirs)
        assert _stop(ours) == _stop(theirs), (label, ours, theirs)
        if event["hook_event_name"] == "SessionStart":
            assert ours == theirs == {}, label  # no greeting
    # The sequence did surface and remind (so agreement is not two silences).
    ours, _ = _both(pi_hook, root, state, "claude-code", {"hook_event_name": "SessionStart", "source": "startup"})
    first, theirs = _both(pi_hook, root, state, "claude-code", batch)
    assert _surfaced(first) == ["docs", "src/app", "src/core"] == _surfaced(theirs)


def test_codex_sequence_agrees_with_pi_canon(pi_hook: Path, root: Path, tmp_path: Path) -> None:
    state = tmp_path / "pi-state"
    steps = [
        {"hook_event_name": "SessionStart", "source": "startup"},
        {"hook_event_name": "PostToolUse", **_tool("Bash", command="cat src/app.py")},
        {"hook_event_name": "PostToolUse", **_tool("Bash", command="cat src/app.py docs/guide.md")},
        {
            "hook_event_name": "PostToolUse",
            **_tool("mcp__fs__write_file", path="src/core/config.py", content="a = 3\n"),
        },
        {"hook_event_name": "PostToolUse", **_tool("Bash", command="ls")},
        {"hook_event_name": "Stop", "stop_hook_active": False},
        {"hook_event_name": "Stop", "stop_hook_active": False},
    ]
    reminded = False
    for event in steps:
        ours, theirs = _both(pi_hook, root, state, "codex", event)
        assert _surfaced(ours) == _surfaced(theirs), (event, ours, theirs)
        assert _stop(ours) == _stop(theirs), (event, ours, theirs)
        reminded = reminded or bool(_stop(ours))
    assert reminded  # the MCP write armed the reminder in both
