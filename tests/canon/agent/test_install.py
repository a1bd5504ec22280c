"""`canon hook install|uninstall claude-code|codex`: the settings file, merged and restored."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.canon.conftest import MakeStore
from tests.conftest import run_cmd

FILES = {"claude-code": ".claude/settings.json", "codex": ".codex/hooks.json"}


@pytest.fixture
def root(make_store: MakeStore) -> Path:
    return make_store(files={"src/app.py": ""})


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_install_dry_run_then_install_then_again_then_uninstall(root: Path, agent: str) -> None:
    target = root / FILES[agent]
    dry = run_cmd("canon", "hook", "install", agent, "--dry-run", cwd=root)
    assert dry.code == 0 and dry.out.startswith("--- /dev/null") and f'"command": "pylon hook {agent}"' in dry.out
    assert not target.exists() and "--dry-run" in dry.err
    done = run_cmd("canon", "hook", "install", agent, cwd=root)
    assert done.code == 0 and f"Installed canon's {agent} hooks in {target}." in done.out
    data = json.loads(target.read_text())
    # Claude Code: one packet per parallel batch; Codex: after each tool result. No matcher on
    # either: every tool that names a path surfaces, MCP tools included.
    after = "PostToolBatch" if agent == "claude-code" else "PostToolUse"
    assert set(data["hooks"]) == {"SessionStart", after, "Stop"}
    assert data["hooks"][after] == [{"hooks": [{"type": "command", "command": f"pylon hook {agent}", "timeout": 10}]}]
    before = target.read_bytes()
    again = run_cmd("canon", "hook", "install", agent, "--json", cwd=root).json()
    assert again["changed"] is False and again["written"] is False and target.read_bytes() == before
    gone = run_cmd("canon", "hook", "uninstall", agent, cwd=root)
    assert gone.code == 0 and json.loads(target.read_text()) == {}
    assert "nothing was written" in run_cmd("canon", "hook", "uninstall", agent, cwd=root).out


def test_install_keeps_the_users_own_settings(root: Path) -> None:
    target = root / ".claude" / "settings.json"
    target.parent.mkdir()
    theirs: dict[str, Any] = {
        "model": "opus",
        "hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "ruff format"}]}]},
    }
    target.write_text(json.dumps(theirs))
    assert run_cmd("canon", "hook", "install", "claude-code", cwd=root).code == 0
    assert json.loads(target.read_text())["hooks"]["PostToolUse"][0] == theirs["hooks"]["PostToolUse"][0]
    assert run_cmd("canon", "hook", "uninstall", "claude-code", cwd=root).code == 0
    assert json.loads(target.read_text()) == theirs


def test_user_scope_names_this_executable(root: Path, tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    assert run_cmd("canon", "hook", "install", "codex", "--user", cwd=root).code == 0
    command = json.loads((home / ".codex" / "hooks.json").read_text())["hooks"]["Stop"][0]["hooks"][0]["command"]
    assert command.endswith("pylon hook codex") and os.path.isabs(command.split()[0])
    assert not (root / ".codex").exists()
    other = tmp_path / "claude-config"
    done = run_cmd(
        "canon", "hook", "install", "claude-code", "--user", "--json", cwd=root, env={"CLAUDE_CONFIG_DIR": str(other)}
    ).json()
    assert done["path"] == str(other / "settings.json") and done["scope"] == "user"
    assert run_cmd("canon", "hook", "uninstall", "codex", "--user", cwd=root).code == 0
    assert json.loads((home / ".codex" / "hooks.json").read_text()) == {}


def test_install_replaces_an_earlier_post_tool_use_handler(root: Path) -> None:
    # An install made before PostToolBatch surfaced from PostToolUse with a matcher: the new
    # install takes canon's old handler out, so a batch is never surfaced twice.
    target = root / ".claude" / "settings.json"
    target.parent.mkdir()
    target.write_text(
        json.dumps(
            {
                "hooks": {
                    "PostToolUse": [
                        {
                            "matcher": "Read|Edit|Bash",
                            "hooks": [{"type": "command", "command": "canon hook claude-code", "timeout": 10}],
                        }
                    ]
                }
            }
        )
    )
    assert run_cmd("canon", "hook", "install", "claude-code", cwd=root).code == 0
    assert set(json.loads(target.read_text())["hooks"]) == {"SessionStart", "PostToolBatch", "Stop"}


def test_refusals(root: Path) -> None:
    target = root / ".codex" / "hooks.json"
    target.parent.mkdir()
    target.write_text("{broken")
    bad = run_cmd("canon", "hook", "install", "codex", cwd=root)
    assert bad.code == 2 and "error[agent-settings-invalid]" in bad.err and str(target) in bad.err
    assert target.read_text() == "{broken"
    unknown = run_cmd("canon", "hook", "install", "cursor", "--json", cwd=root)
    assert unknown.code == 2 and unknown.json()["error"]["code"] == "usage" and "cursor" in unknown.out
    both = run_cmd("canon", "hook", "install", "codex", "--project", "--user", cwd=root)
    assert both.code == 2 and "error[usage]" in both.err
