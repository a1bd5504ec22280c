"""`pylon guard install|uninstall`: the hook merged into the agent's settings, nothing else touched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cmd as run

OTHER = {"permissions": {"allow": ["Bash(npm test)"]},
         "hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "lint-it"}]}],
                   "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}
FILES = {"claude-code": ".claude/settings.json", "codex": ".codex/hooks.json"}


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_install_merges_once_and_uninstall_removes_exactly_it(agent: str, make_repo) -> None:  # type: ignore[no-untyped-def]
    root = make_repo({"a.txt": "a\n"})
    path = root / FILES[agent]
    path.parent.mkdir()
    path.write_text(json.dumps(OTHER, indent=2) + "\n")
    original = path.read_text()
    first = run("pylon", "guard", "install", agent, cwd=root)
    assert first.code == 0 and "installed the guard hook" in first.err, first
    data = json.loads(path.read_text())
    assert data["permissions"] == OTHER["permissions"] and data["hooks"]["Stop"] == OTHER["hooks"]["Stop"]
    groups = data["hooks"]["PreToolUse"]
    assert groups[0] == OTHER["hooks"]["PreToolUse"][0]
    assert groups[1]["matcher"] == "Bash"
    assert groups[1]["hooks"] == [{"type": "command", "command": f"pylon guard hook {agent}", "timeout": 30}]
    text = path.read_text()
    again = run("pylon", "guard", "install", agent, cwd=root)
    assert again.code == 0 and "nothing changed" in again.err and path.read_text() == text
    dry = run("pylon", "guard", "uninstall", agent, "--dry-run", cwd=root)
    assert dry.code == 0 and f'"command": "pylon guard hook {agent}"' in dry.out and path.read_text() == text
    gone = run("pylon", "guard", "uninstall", agent, cwd=root)
    assert gone.code == 0 and json.loads(path.read_text()) == json.loads(original)


def test_dry_run_writes_nothing_and_user_scope_uses_the_agent_home(make_repo, isolated_env) -> None:  # type: ignore[no-untyped-def]
    root = make_repo({"a.txt": "a\n"})
    r = run("pylon", "guard", "install", "claude-code", "--dry-run", "--json", cwd=root)
    doc = r.json()
    assert doc["changed"] and not doc["written"] and not (root / ".claude").exists()
    assert '"matcher": "Bash"' in doc["diff"]
    user = run("pylon", "guard", "install", "codex", "--user", cwd=root)
    written = Path(isolated_env["HOME"]) / ".codex" / "hooks.json"
    assert user.code == 0 and written.exists()
    command = json.loads(written.read_text())["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert command.endswith("pylon guard hook codex") and Path(command.split()[0]).name == "pylon"


def test_refusals(make_repo) -> None:  # type: ignore[no-untyped-def]
    root = make_repo({"a.txt": "a\n"})
    bad = run("pylon", "guard", "install", "cursor", cwd=root)
    both = run("pylon", "guard", "install", "codex", "--project", "--user", cwd=root)
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text("{broken")
    broken = run("pylon", "guard", "install", "claude-code", cwd=root)
    assert bad.code == 2 and "error[unknown-agent]" in bad.err
    assert both.code == 2 and "error[usage]" in both.err
    assert broken.code == 2 and "error[agent-settings-invalid]" in broken.err
    assert (root / ".claude" / "settings.json").read_text() == "{broken"
