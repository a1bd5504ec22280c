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
from tests.conftest import git
from tests.conftest import run_cmd as run
from tests.guard.conftest import disk

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


def hook(agent: str, command: str, cwd: Path):  # type: ignore[no-untyped-def]
    return run("pylon", "guard", "hook", agent, cwd=cwd, input=event(agent, command, cwd))


@pytest.fixture
def checkout(make_repo) -> Path:  # type: ignore[no-untyped-def]
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
        '[verdicts]\nunknown = "deny"\n[[rules]]\nmatch = ["kubectl", "delete", "pod", "*"]\naction = "allow"\n')
    denied = hook("claude-code", 'eval "$CMD"', checkout).json()["hookSpecificOutput"]
    assert denied["permissionDecision"] == "deny" and "unknown" in denied["permissionDecisionReason"]
    allowed = hook("claude-code", "kubectl delete pod web-1", checkout)
    assert (allowed.code, allowed.out) == (0, "")


@pytest.mark.parametrize("data", ["", "not json", "[1, 2]", '{"hook_event_name": "PreToolUse"}',
                                  '{"hook_event_name": "PostToolUse", "tool_name": "Bash", '
                                  '"tool_input": {"command": "rm -rf /"}}',
                                  '{"hook_event_name": "PreToolUse", "tool_name": "Read", '
                                  '"tool_input": {"file_path": "/etc/passwd"}}',
                                  '{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": 5}}'])
def test_malformed_or_other_events_are_a_silent_no_op(data: str, checkout: Path) -> None:
    r = run("pylon", "guard", "hook", "claude-code", cwd=checkout, input=data)
    assert (r.code, r.out, r.err) == (0, "", ""), r


def test_reversible_snapshots_then_allows_with_the_restore_command(checkout: Path) -> None:
    r = hook("claude-code", "rm -rf src/", checkout)
    out = r.json()["hookSpecificOutput"]
    assert "permissionDecision" not in out  # pylon does not grant: the agent's own rules still apply
    assert "snapshot guard-1 taken" in out["additionalContext"]
    assert "`pylon ws restore guard-1`" in out["additionalContext"]
    assert git(checkout, "rev-parse", "refs/pylon/guard/1").strip()
    second = hook("codex", "rm -rf docs", checkout).json()["hookSpecificOutput"]
    assert "guard-2" in second["additionalContext"]


def test_git_clean_x_snapshot_holds_exactly_the_ignored_files_byte_for_byte(checkout: Path) -> None:
    hook("claude-code", "git clean -fdx", checkout)
    names = git(checkout, "ls-tree", "-r", "--name-only", "refs/pylon/guard/1").split()
    assert ".env" in names and "build/out.o" in names and "src/new.py" in names
    blob = subprocess.run(["git", "cat-file", "blob", "refs/pylon/guard/1:.env"], cwd=checkout,
                          capture_output=True, check=True).stdout
    assert blob == b"SECRET=\xff\x00binary\n"
    message = git(checkout, "cat-file", "commit", "refs/pylon/guard/1")
    assert "pylon-guard-files: 3" in message  # .env, build/out.o and the untracked link


def test_rm_of_tracked_files_keeps_no_ignored_extras(checkout: Path) -> None:
    hook("claude-code", "rm -rf docs/", checkout)
    assert "pylon-guard-files" not in git(checkout, "cat-file", "commit", "refs/pylon/guard/1")


def test_snapshot_over_the_limit_is_not_taken_and_the_policy_answers(checkout: Path) -> None:
    (checkout / ".pylon").mkdir()
    (checkout / ".pylon" / "guard.toml").write_text('[snapshot]\nmax_bytes = 10\nover_limit = "deny"\n')
    out = hook("claude-code", "rm -rf src/", checkout).json()["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert "no snapshot was taken (The snapshot would hold" in out["permissionDecisionReason"]
    assert not git(checkout, "for-each-ref", "refs/pylon/guard/")


@pytest.mark.parametrize("command", ["rm -rf src/", "git clean -fdx", "git checkout -- .", "git reset --hard",
                                     "rm -f .env && rm -rf build", "find . -name '*.py' -delete",
                                     "sed -i 's/return/yield/' src/app.py", ": > docs/readme.md",
                                     "bash -c 'cd src && rm -f app.py link.py'"])
def test_hook_then_command_then_restore_gives_back_every_byte(command: str, checkout: Path) -> None:
    before = disk(checkout)
    index_before = git(checkout, "ls-files", "-s")
    r = hook("claude-code", command, checkout)
    assert "pylon ws restore guard-1" in r.out, r
    subprocess.run(["bash", "-c", command], cwd=checkout, check=True, capture_output=True)
    assert disk(checkout) != before  # the command did destroy something
    restored = run("pylon", "ws", "restore", "guard-1", cwd=checkout)
    assert restored.code == 0, restored
    assert disk(checkout) == before
    assert git(checkout, "ls-files", "-s") == index_before
