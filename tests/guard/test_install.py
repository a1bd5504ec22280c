"""`pylon guard install|uninstall`: the hook merged into the agent's settings, nothing else touched."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeRepo
from tests.conftest import run_cmd as run

OTHER: dict[str, Any] = {
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "lint-it"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
    },
}
FILES = {"claude-code": ".claude/settings.json", "codex": ".codex/hooks.json"}


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_install_merges_once_and_uninstall_removes_exactly_it(agent: str, make_repo: MakeRepo) -> None:
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
    assert (
        groups[1]["matcher"]
        == {"claude-code": "Bash|Write|Edit|MultiEdit|NotebookEdit", "codex": "Bash|apply_patch"}[agent]
    )
    assert groups[1]["hooks"] == [{"type": "command", "command": f"pylon hook {agent}", "timeout": 30}]
    text = path.read_text()
    again = run("pylon", "guard", "install", agent, cwd=root)
    assert again.code == 0 and "nothing changed" in again.err and path.read_text() == text
    dry = run("pylon", "guard", "uninstall", agent, "--dry-run", cwd=root)
    assert dry.code == 0 and f'"command": "pylon hook {agent}"' in dry.out and path.read_text() == text
    gone = run("pylon", "guard", "uninstall", agent, cwd=root)
    assert gone.code == 0 and json.loads(path.read_text()) == json.loads(original)


def test_dry_run_writes_nothing_and_user_scope_uses_the_agent_home(
    make_repo: MakeRepo, isolated_env: dict[str, str]
) -> None:
    root = make_repo({"a.txt": "a\n"})
    r = run("pylon", "guard", "install", "claude-code", "--dry-run", "--json", cwd=root)
    doc = r.json()
    assert doc["changed"] and not doc["written"] and not (root / ".claude").exists()
    assert '"matcher": "Bash|Write|Edit|MultiEdit|NotebookEdit"' in doc["diff"]
    user = run("pylon", "guard", "install", "codex", "--user", cwd=root)
    written = Path(isolated_env["HOME"]) / ".codex" / "hooks.json"
    assert user.code == 0 and written.exists()
    command = json.loads(written.read_text())["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert command.endswith("pylon hook codex") and Path(command.split()[0]).name == "pylon"


def test_refusals(make_repo: MakeRepo) -> None:
    root = make_repo({"a.txt": "a\n"})
    bad = run("pylon", "guard", "install", "cursor", cwd=root)
    both = run("pylon", "guard", "install", "codex", "--project", "--user", cwd=root)
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text("{broken")
    broken = run("pylon", "guard", "install", "claude-code", cwd=root)
    assert bad.code == 2 and "error[usage]" in bad.err and "AGENT is claude-code or codex" in bad.err
    assert both.code == 2 and "error[usage]" in both.err
    assert broken.code == 2 and "error[agent-settings-invalid]" in broken.err
    assert (root / ".claude" / "settings.json").read_text() == "{broken"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{"hooks": null}', '"hooks" value that is not an object (null)'),
        ('{"hooks": []}', '"hooks" value that is not an object'),
        ('{"model": NaN}', "holds NaN, which is not JSON"),
        ('{"limit": Infinity}', "holds Infinity, which is not JSON"),
        ('{"hooks": {}, "hooks": {"Stop": []}}', 'repeats the key "hooks"'),
        ('{"hooks": {"PreToolUse": [{"matcher": 5, "hooks": []}]}}', '"matcher" is not a string'),
        ('{"hooks": {"PreToolUse": [{"hooks": [null]}]}}', '"hooks" is not a list of handlers'),
    ],
)
@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_malformed_settings_are_refused_with_a_code_and_left_untouched(
    text: str, why: str, command: str, make_repo: MakeRepo
) -> None:
    root = make_repo({"a.txt": "a\n"})
    path = root / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(text)
    r = run("pylon", "guard", command, "claude-code", cwd=root)
    assert r.code == 2 and "error[agent-settings-invalid]" in r.err and why in r.err, r
    assert "Traceback" not in r.err and path.read_text() == text


def test_a_read_only_settings_file_is_refused_and_left_untouched(make_repo: MakeRepo) -> None:
    root = make_repo({"a.txt": "a\n"})
    path = root / ".codex" / "hooks.json"
    path.parent.mkdir()
    path.write_text('{"hooks": {}}\n')
    path.chmod(0o444)
    r = run("pylon", "guard", "install", "codex", cwd=root)
    assert r.code == 2 and "error[agent-settings-read-only]" in r.err and "chmod u+w" in r.err, r
    assert path.read_text() == '{"hooks": {}}\n' and (path.stat().st_mode & 0o777) == 0o444


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (the clients' JSON parser)")
@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_what_install_writes_is_read_by_a_strict_json_parser(agent: str, make_repo: MakeRepo) -> None:
    """node's JSON.parse (the parser Claude Code and Codex's npm launcher use) reads the file back
    to the same value pylon meant, with other keys (unicode, big numbers, nesting) kept."""
    root = make_repo({"a.txt": "a\n"})
    path = root / FILES[agent]
    path.parent.mkdir()
    other = {**OTHER, "note": 'caf\u00e9 \u2603 "quoted" \\ back', "n": 12345678901234, "f": 0.5, "e": [], "z": None}
    path.write_text(json.dumps(other))
    assert run("pylon", "guard", "install", agent, cwd=root).code == 0
    parsed = subprocess.run(
        [
            "node",
            "-e",
            (
                "const fs=require('fs');process.stdout.write(JSON.stringify("
                "JSON.parse(fs.readFileSync(process.argv[1],'utf8'))))"
            ),
            str(path),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert json.loads(parsed) == json.loads(path.read_text())
    assert json.loads(parsed)["note"] == other["note"] and json.loads(parsed)["n"] == other["n"]
