"""pylon.agents.settings: merge and remove hook entries, touching nothing else, idempotent."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pylon.agents.settings import HookEntry, apply, plan_install, plan_uninstall, settings_path
from pylon.errors import PylonError

ENTRIES = [
    HookEntry("SessionStart", "canon hook claude-code", timeout=10),
    HookEntry("PostToolUse", "canon hook claude-code", matcher="Edit|Write|Bash", timeout=10),
    HookEntry("Stop", "canon hook claude-code", timeout=10),
]

# Someone's settings as Claude Code documents them: permissions, env, and their own hooks.
THEIRS: dict[str, Any] = {
    "permissions": {"allow": ["Bash(npm run lint)"], "deny": ["Read(./.env)"]},
    "env": {"FOO": "bar"},
    "hooks": {
        "PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "prettier --write"}]}],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}


def owns(command: str) -> bool:
    return command.startswith("canon hook ")


def install(path: Path, entries: list[HookEntry] = ENTRIES) -> bool:
    return apply(plan_install(str(path), entries, owns))


def test_install_into_a_missing_file_creates_it_with_the_documented_shape(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    plan = plan_install(str(path), ENTRIES, owns)
    assert plan.before is None and plan.changed and plan.added == 3
    assert "+++ b/" in plan.diff() and not path.exists()  # planning writes nothing
    assert install(path)
    data = json.loads(path.read_text())
    assert data == {
        "hooks": {
            "SessionStart": [{"hooks": [{"type": "command", "command": "canon hook claude-code", "timeout": 10}]}],
            "PostToolUse": [
                {
                    "matcher": "Edit|Write|Bash",
                    "hooks": [{"type": "command", "command": "canon hook claude-code", "timeout": 10}],
                }
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "canon hook claude-code", "timeout": 10}]}],
        }
    }


def test_install_keeps_everything_else_and_is_idempotent(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(THEIRS, indent=4))
    assert install(path)
    data = json.loads(path.read_text())
    assert data["permissions"] == THEIRS["permissions"] and data["env"] == THEIRS["env"]
    assert data["hooks"]["Notification"] == THEIRS["hooks"]["Notification"]
    assert data["hooks"]["PostToolUse"][0] == THEIRS["hooks"]["PostToolUse"][0]  # theirs first, untouched
    assert data["hooks"]["PostToolUse"][1]["hooks"][0]["command"] == "canon hook claude-code"
    first = path.read_bytes()
    again = plan_install(str(path), ENTRIES, owns)
    assert not again.changed and again.diff() == ""
    assert not install(path)
    assert path.read_bytes() == first


def test_a_reordered_file_is_still_installed(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    install(path)
    data = json.loads(path.read_text())
    data["hooks"] = dict(reversed(list(data["hooks"].items())))  # the user moved things around
    path.write_text(json.dumps(data))
    assert not install(path)


def test_uninstall_restores_the_original_content(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(THEIRS))
    install(path)
    plan = plan_uninstall(str(path), owns)
    assert plan.removed == 3 and "-" in plan.diff()
    assert apply(plan)
    assert json.loads(path.read_text()) == THEIRS
    assert not apply(plan_uninstall(str(path), owns))  # a second uninstall has nothing to do


def test_uninstall_of_a_file_with_only_our_hooks_leaves_an_empty_object(tmp_path: Path) -> None:
    path = tmp_path / "hooks.json"
    install(path)
    apply(plan_uninstall(str(path), owns))
    assert json.loads(path.read_text()) == {}
    assert not apply(plan_uninstall(str(tmp_path / "absent.json"), owns))
    assert not (tmp_path / "absent.json").exists()


def test_a_new_command_line_replaces_the_old_one(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    install(path)
    newer = [HookEntry(e.event, "canon hook claude-code --root /x", e.matcher, e.timeout) for e in ENTRIES]
    plan = plan_install(str(path), newer, owns)
    assert plan.added == 3 and plan.removed == 3
    apply(plan)
    text = path.read_text()
    assert text.count("canon hook claude-code --root /x") == 3 and text.count('"canon hook claude-code"') == 0


@pytest.mark.parametrize(
    "content",
    ["{not json", "[1, 2]", '{"hooks": []}', '{"hooks": {"Stop": {}}}', '{"hooks": {"Stop": [{"hooks": "x"}]}}'],
)
def test_invalid_settings_are_refused_and_left_untouched(tmp_path: Path, content: str) -> None:
    path = tmp_path / "settings.json"
    path.write_text(content)
    with pytest.raises(PylonError) as caught:
        plan_install(str(path), ENTRIES, owns)
    assert caught.value.code == "agent-settings-invalid" and caught.value.exit_code == 2
    assert str(path) in caught.value.message
    assert path.read_text() == content


def test_apply_keeps_the_file_mode_and_a_symlinked_settings_file(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_text("{}")
    os.chmod(real, 0o600)
    link = tmp_path / "settings.json"
    link.symlink_to(real)
    install(link)
    assert link.is_symlink() and (real.stat().st_mode & 0o777) == 0o600
    assert "canon hook" in real.read_text()


def test_settings_paths_per_agent_and_scope(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path(os.environ["HOME"])
    assert settings_path("claude-code", "project", "/p") == "/p/.claude/settings.json"
    assert settings_path("codex", "project", "/p") == "/p/.codex/hooks.json"
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    assert settings_path("claude-code", "user", "/p") == str(home / ".claude" / "settings.json")
    assert settings_path("codex", "user", "/p") == str(home / ".codex" / "hooks.json")
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "cx"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cl"))
    assert settings_path("codex", "user", "/p") == str(tmp_path / "cx" / "hooks.json")
    assert settings_path("claude-code", "user", "/p") == str(tmp_path / "cl" / "settings.json")
    with pytest.raises(PylonError) as caught:
        settings_path("cursor", "project", "/p")
    assert caught.value.code == "unknown-agent"
