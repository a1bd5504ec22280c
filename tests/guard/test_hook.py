"""`pylon guard hook`: real payload shapes from the agents' docs (tests/agents/payloads), answers
in their formats, snapshots before reversible commands, and `pylon ws restore guard-<n>` giving
back every byte after the command has run."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.agents.corpus import payload_text
from tests.conftest import MakeRepo, Result, git
from tests.conftest import run_cmd as run

FILES = {
    "src/app.py": "def main():\n    return 1\n",
    "src/tool.sh": "#!/bin/sh\necho hi\n",
    "docs/readme.md": "# readme\n",
    ".gitignore": ".env\nbuild/\n",
}


def event(agent: str, command: str, cwd: Path) -> str:
    doc = json.loads(payload_text("claude-code-pre-bash" if agent == "claude-code" else "codex-pre-bash", cwd))
    doc["tool_input"]["command"] = command
    return json.dumps(doc)


def hook(agent: str, command: str, cwd: Path) -> Result:
    return run("pylon", "guard", "hook", agent, cwd=cwd, input=event(agent, command, cwd))


@pytest.fixture
def checkout(make_repo: MakeRepo) -> Path:
    root = make_repo(FILES)
    os.chmod(root / "src" / "tool.sh", 0o755)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "exec bit")
    (root / "src" / "app.py").write_text("def main():\n    return 2  # edited, not committed\n")
    (root / "src" / "new.py").write_text("untracked = True\n")
    (root / ".env").write_bytes(b"SECRET=\xff\x00binary\n")
    (root / "build").mkdir()
    (root / "build" / "out.o").write_bytes(b"\x7fELF...")
    os.symlink("app.py", root / "src" / "link.py")
    git(root, "add", "src/new.py")  # staged, so the staged/unstaged split is part of the state too
    (root / "src" / "new.py").write_text("untracked = False  # changed after staging\n")
    return root


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_safe_command_is_allowed_silently(agent: str, checkout: Path) -> None:
    r = hook(agent, "git status && npm test 2>&1 | tail -20", checkout)
    assert (r.code, r.out) == (0, ""), r
    assert not git(checkout, "for-each-ref", "refs/pylon/guard/")


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_irreversible_asks_on_claude_and_denies_on_codex(agent: str, checkout: Path) -> None:
    r = hook(agent, "git push --force origin main", checkout)
    out = r.json()["hookSpecificOutput"]
    assert r.code == 0 and out["hookEventName"] == "PreToolUse"
    assert out["permissionDecision"] == ("ask" if agent == "claude-code" else "deny")
    assert "`git push --force origin main` overwrites the remote's history" in out["permissionDecisionReason"]


def test_policy_deny_and_allow(checkout: Path) -> None:
    (checkout / ".pylon").mkdir()
    (checkout / ".pylon" / "guard.toml").write_text(
        '[verdicts]\nunknown = "deny"\n[[rules]]\nmatch = ["kubectl", "delete", "pod", "*"]\naction = "allow"\n'
    )
    denied = hook("claude-code", 'eval "$CMD"', checkout).json()["hookSpecificOutput"]
    assert denied["permissionDecision"] == "deny" and "unknown" in denied["permissionDecisionReason"]
    allowed = hook("claude-code", "kubectl delete pod web-1", checkout)
    assert (allowed.code, allowed.out) == (0, "")


@pytest.mark.parametrize(
    "data",
    [
        ('{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}'),
        ('{"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": "/etc/passwd"}}'),
        ('{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": ""}}'),
    ],
)
def test_other_events_and_tools_are_a_silent_no_op(data: str, checkout: Path) -> None:
    r = run("pylon", "guard", "hook", "claude-code", cwd=checkout, input=data)
    assert (r.code, r.out, r.err) == (0, "", ""), r


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ("", "could not be read (empty input)"),
        ("not json", "could not be read (not JSON"),
        ("[1, 2]", "could not be read (not a JSON object"),
        ("{}", "has no hook_event_name"),
        ('{"tool_name": "Bash", "tool_input": {"command": "rm -rf src"}}', "has no hook_event_name"),
        ('{"hook_event_name": "PreToolUse"}', "has no tool_name"),
        ('{"hook_event_name": "PreToolUse", "tool_name": "Bash"}', "has no tool_input object"),
        (
            '{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": 5}}',
            "has no command string",
        ),
    ],
)
@pytest.mark.parametrize(("agent", "decision"), [("claude-code", "ask"), ("codex", "deny")])
def test_an_event_missing_fields_is_refused_with_the_reason_never_silence(
    data: str, why: str, agent: str, decision: str, checkout: Path
) -> None:
    r = run("pylon", "guard", "hook", agent, cwd=checkout, input=data)
    assert r.code == 0, r
    out = json.loads(r.out)["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse" and out["permissionDecision"] == decision
    assert why in out["permissionDecisionReason"] and "not checked" in out["permissionDecisionReason"]


def test_a_typo_in_the_agent_is_a_usage_error_not_an_answer_in_another_format(checkout: Path) -> None:
    r = run(
        "pylon",
        "guard",
        "hook",
        "codx",
        cwd=checkout,
        input='{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}',
    )
    assert r.code == 2 and r.out == "" and "error[usage]" in r.err and "did you mean codex?" in r.err, r


def test_a_crash_of_the_guard_is_refused_with_the_reason(checkout: Path, tmp_path: Path) -> None:
    """A failure inside pylon (here: its own folder was removed, so the current folder is gone) is
    logged and answered deny/ask with the reason, never let through silently."""
    from tests.conftest import script

    gone = tmp_path / "gone"
    gone.mkdir()
    event = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}})
    shell = f"cd {gone} && rmdir {gone} && exec {script('pylon')} guard hook codex"
    r = subprocess.run(
        ["bash", "-c", shell],
        input=event,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYLON_STATE_DIR": str(tmp_path / "state")},
    )
    assert r.returncode == 0, r
    out = json.loads(r.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and "pylon guard failed" in out["permissionDecisionReason"]
    assert (tmp_path / "state" / "logs" / "guard-hook.log").exists()


def test_the_registry_offers_the_agents_the_hooks_know() -> None:
    from pylon.agents.events import AGENTS
    from pylon.cli.commands import AGENTS as REGISTERED

    assert REGISTERED == AGENTS
