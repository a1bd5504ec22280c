"""Claude Code's flow since pylon registers no PostToolUse there: PreToolUse, the command, the next
command's PreToolUse, ..., then PostToolBatch. The agent's next command ends the previous one and the
batch's end records the last, so each command is still an op of its own, undone one at a time; a
subagent's commands are a stream of their own. Codex keeps its PostToolUse. The oracle is git and the
file system (tests/keep/hookpath.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_cmd
from tests.keep.hookpath import event, hook, whole_state


def _pre(repo: Path, command: str, use_id: str, agent_id: str = "") -> None:
    extra = {"agent_id": agent_id} if agent_id else None
    answer = hook("claude-code", event("PreToolUse", command, repo, use_id, extra=extra), repo)
    assert (answer.get("hookSpecificOutput") or {}).get("permissionDecision") in (None, "allow"), answer


def _bash(repo: Path, command: str) -> None:
    subprocess.run(["bash", "-c", command], cwd=repo, check=True, capture_output=True)


def _batch(repo: Path, calls: dict[str, str]) -> None:
    body = {
        "session_id": "s-1",
        "cwd": str(repo),
        "hook_event_name": "PostToolBatch",
        "tool_calls": [{"tool_name": "Bash", "tool_input": {"command": c}, "tool_use_id": u} for u, c in calls.items()],
    }
    assert hook("claude-code", json.dumps(body), repo) == {}


def _shell_ops(repo: Path) -> list[dict[str, object]]:
    entries = run_cmd("pylon", "ws", "log", "--json", cwd=repo).json()["entries"]
    return [e for e in entries if e.get("op_kind") == "shell" and e["status"] == "done"]


@pytest.mark.parametrize("detach", ["1", "0"])
def test_each_command_of_a_batch_is_its_own_op_without_post_tool_use(
    repo: Path, detach: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYLON_KEEP_DETACH", detach)
    states = [whole_state(repo)]
    calls = {"toolu_1": "rm -f src/app.py", "toolu_2": "echo new > new.txt && echo more >> README.md"}
    for use_id, command in calls.items():
        _pre(repo, command, use_id)
        _bash(repo, command)
        states.append(whole_state(repo))
    _batch(repo, calls)
    ops = _shell_ops(repo)
    assert sorted(str(e["title"]) for e in ops) == sorted(f"shell: {c}" for c in calls.values()), ops
    # newest first: each undo gives back exactly the state before that command
    assert run_cmd("pylon", "ws", "undo", cwd=repo).code == 0
    assert whole_state(repo) == states[1]
    assert run_cmd("pylon", "ws", "undo", cwd=repo).code == 0
    assert whole_state(repo) == states[0]


def _running(repo: Path) -> dict[str, object]:
    keep_dir = Path((repo / ".git" / "pylon" / "keep-id").read_text().split("\n")[1])  # store.py: id, folder
    chain = json.loads(next(keep_dir.glob("checkouts/*/chain.json")).read_text())
    return dict(chain["running"])


def test_the_last_command_of_a_batch_is_recorded_at_the_batch_end(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYLON_KEEP_DETACH", "0")  # the op written before the hook answers: read it then
    before = whole_state(repo)
    _pre(repo, "rm -rf src", "toolu_only")
    _bash(repo, "rm -rf src")
    assert list(_running(repo)) == ["toolu_only"]
    _batch(repo, {"toolu_only": "rm -rf src"})
    assert _running(repo) == {}  # recorded by the batch's end (a `ws log` would settle it too)
    assert [e["title"] for e in _shell_ops(repo)] == ["shell: rm -rf src"]
    undone = run_cmd("pylon", "ws", "undo", cwd=repo)
    assert undone.code == 0, undone
    assert whole_state(repo) == before


def test_a_subagents_command_does_not_end_the_main_agents(repo: Path) -> None:
    """Two streams of one session: the main agent's command still runs when a subagent's starts, so
    the subagent's PreToolUse must not close it (its op would stop short)."""
    _pre(repo, "sleep 1; echo late > late.txt", "toolu_main")
    slow = subprocess.Popen(["bash", "-c", "sleep 1; echo late > late.txt"], cwd=repo)
    _pre(repo, "echo sub > sub.txt", "toolu_sub", agent_id="agent-7")
    _bash(repo, "echo sub > sub.txt")
    assert slow.wait(timeout=60) == 0
    _batch(repo, {"toolu_main": "sleep 1; echo late > late.txt", "toolu_sub": "echo sub > sub.txt"})
    ops = _shell_ops(repo)
    main = [e for e in ops if "echo late" in str(e["title"])]
    # the main agent's command is an op of its own, holding late.txt (written after the subagent's
    # PreToolUse): had that PreToolUse ended it, its op would be empty and dropped
    assert len(main) == 1 and "late.txt" in json.dumps(main[0]), ops


def test_a_file_tools_write_after_a_command_of_the_batch_is_not_that_commands(repo: Path) -> None:
    """Bash then Write in one batch: the Write's PreToolUse records the command's op first."""
    _pre(repo, "rm -f src/app.py", "toolu_sh")
    _bash(repo, "rm -f src/app.py")
    write = event("PreToolUse", "", repo, "toolu_w", extra={"tool_name": "Write"})
    body = json.loads(write)
    body["tool_input"] = {"file_path": str(repo / "README.md"), "content": "written\n"}
    hook("claude-code", json.dumps(body), repo)
    (repo / "README.md").write_text("written\n")
    _batch(repo, {"toolu_sh": "rm -f src/app.py"})
    shell = [e for e in _shell_ops(repo) if e["title"] == "shell: rm -f src/app.py"]
    assert len(shell) == 1 and "src/app.py" in json.dumps(shell[0]), shell
    assert "README.md" not in json.dumps(shell[0]), shell  # the Write's change is not the command's
    assert run_cmd("pylon", "ws", "undo", cwd=repo).code == 0  # the write: later work, kept
    assert (repo / "src/app.py").read_text() == "x = 1\n" and (repo / "README.md").read_text() == "written\n"


def test_work_after_the_batch_end_is_later_work_not_the_commands(repo: Path) -> None:
    """The batch's end records the op in a detached child; an edit made once that capture ran (a
    person, a moment later) is later work: `ws undo` reverses the command and keeps the edit."""
    import time

    before = whole_state(repo)
    _pre(repo, "rm -rf src", "toolu_a")
    _bash(repo, "rm -rf src")
    _batch(repo, {"toolu_a": "rm -rf src"})
    deadline = time.monotonic() + 30
    while _running(repo) and time.monotonic() < deadline:  # the child's capture, in its own time
        time.sleep(0.01)
    assert _running(repo) == {}
    (repo / "later.txt").write_text("the person's\n")
    undone = run_cmd("pylon", "ws", "undo", cwd=repo)
    assert undone.code == 0, undone
    assert (repo / "later.txt").read_text() == "the person's\n"
    (repo / "later.txt").unlink()
    assert whole_state(repo) == before


@pytest.mark.parametrize("end", ["batch", "none"])
def test_a_command_that_removed_git_is_undone_when_no_post_tool_use_came(repo: Path, end: str) -> None:
    """`rm -rf .[^.]*` takes `.git` along: the batch's end (or, with no hook at all, the undo) records
    the command's op through the store's copy of `.git` before giving `.git` back, so `ws undo`
    there restores the whole state (the hook property test found the batch's end doing nothing)."""
    before = whole_state(repo)
    command = "rm -rf src && rm -rf .[^.]*"
    _pre(repo, command, "toolu_git")
    _bash(repo, command)
    assert not (repo / ".git").exists()
    if end == "batch":
        _batch(repo, {"toolu_git": command})
    undone = run_cmd("pylon", "ws", "undo", cwd=repo)
    assert undone.code == 0, undone
    assert whole_state(repo) == before
