"""The chain of kept states under real concurrency and real clients' event orders: parallel tool
calls (two PreToolUse, both commands at once, two PostToolUse) never lose a change between them;
changes no hook saw (Codex's `write_stdin`, an editor) become an op of their own at the next hook;
pylon's own commands run through the shell record only their own op (so `ws undo` run twice through
the hooks walks back two commands, never undoing its own undo); a worktree's shell ops are never
another checkout's. The oracle is git and the file system (tests/keep/hookpath.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import git, run_cmd
from tests.keep.hookpath import event, run_through_hooks, whole_state


def _hooks_at_once(root: Path, name: str, commands: dict[str, str]) -> None:
    procs = [
        subprocess.Popen(
            ["pylon", "hook", "claude-code"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in commands
    ]
    for proc, (use_id, command) in zip(procs, commands.items()):
        assert proc.stdin is not None
        proc.stdin.write(event(name, command, root, use_id).encode())
        proc.stdin.close()
    for proc in procs:
        assert proc.wait(timeout=120) == 0, proc.stderr.read() if proc.stderr else b""


def test_parallel_tool_calls_lose_no_change_between_them(repo: Path) -> None:
    before = whole_state(repo)
    commands = {"toolu_a": "sleep 0.3; rm -rf src", "toolu_b": "echo made > made.txt; sed -i s/readme/R/ README.md"}
    _hooks_at_once(repo, "PreToolUse", commands)
    procs = [subprocess.Popen(["bash", "-c", c], cwd=repo) for c in commands.values()]
    assert all(p.wait(timeout=60) == 0 for p in procs)
    _hooks_at_once(repo, "PostToolUse", commands)
    listed = run_cmd("pylon", "ws", "log", "--json", cwd=repo).json()["entries"]
    shells = [e for e in listed if e.get("op_kind") == "shell" and e["status"] == "done"]
    assert 1 <= len(shells) <= 2, listed
    for _ in shells:
        assert run_cmd("pylon", "ws", "undo", cwd=repo).code == 0
    assert whole_state(repo) == before


def test_changes_no_hook_saw_are_an_op_of_their_own(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the op after a command is recorded by a child the hook leaves running; a change made in those
    # few milliseconds counts as the command's: here the capture runs in the hook itself
    monkeypatch.setenv("PYLON_KEEP_DETACH", "0")
    run_through_hooks(repo, "rm -f notes.txt")
    after_rm = whole_state(repo)
    (repo / "README.md").write_text("typed into a terminal, no hook\n")  # Codex write_stdin, an editor
    run_through_hooks(repo, "echo next > next.txt")
    ops = [e for e in run_cmd("pylon", "ws", "log", "--json", cwd=repo).json()["entries"] if e["kind"] == "op"]
    titles = [e["title"] for e in ops]
    assert titles[0] == "shell: echo next > next.txt" and titles[1].startswith("outside:"), titles
    assert ops[1]["changed"] == ["1 path(s)"], ops[1]
    assert run_cmd("pylon", "ws", "undo", cwd=repo).code == 0  # next.txt
    undone = run_cmd("pylon", "ws", "undo", cwd=repo)  # the change no hook saw, alone
    assert undone.code == 0 and "outside" in undone.out, undone
    assert whole_state(repo) == after_rm


def test_pylon_undo_through_the_hooks_walks_back_without_undoing_itself(repo: Path) -> None:
    before = whole_state(repo)
    run_through_hooks(repo, "rm -rf src")
    middle = whole_state(repo)
    run_through_hooks(repo, "git add -A && git commit -qm gone")
    _answer, ran = run_through_hooks(repo, "pylon ws undo")
    assert ran is not None and ran.returncode == 0, ran and ran.stderr
    assert whole_state(repo) == middle
    _answer, ran = run_through_hooks(repo, "pylon ws undo")
    assert ran is not None and ran.returncode == 0, ran and ran.stderr
    assert whole_state(repo) == before


def test_a_worktrees_shell_ops_are_its_own(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    git(repo, "worktree", "add", "-q", "-b", "other", str(other))
    run_through_hooks(other, "rm -rf src")
    (repo / "README.md").write_text("main's own work\n")
    main_log = run_cmd("pylon", "ws", "log", "--json", cwd=repo).json()["entries"]
    assert not [e for e in main_log if e.get("op_kind") == "shell"], main_log
    nothing = run_cmd("pylon", "ws", "undo", cwd=repo)
    assert nothing.code != 0 and "nothing-to-undo" in nothing.err, nothing
    assert (repo / "README.md").read_text() == "main's own work\n" and not (other / "src").exists()
    assert run_cmd("pylon", "ws", "undo", cwd=other).code == 0
    assert (other / "src" / "app.py").read_text() == "x = 1\n"


def test_a_command_refused_by_the_person_records_nothing(repo: Path) -> None:
    before = whole_state(repo)
    payload = event("PreToolUse", "git push --force origin main", repo, "toolu_refused")
    answer = json.loads(run_cmd("pylon", "hook", "claude-code", cwd=repo, input=payload).out)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "ask"
    # no PostToolUse ever comes for the refused one; Claude Code ends the batch with PostToolBatch
    batch = json.dumps(
        {
            "session_id": "s-1",
            "cwd": str(repo),
            "hook_event_name": "PostToolBatch",
            "tool_calls": [
                {
                    "tool_name": "Bash",
                    "tool_input": {"command": "git push --force origin main"},
                    "tool_use_id": "toolu_refused",
                }
            ],
        }
    )
    assert run_cmd("pylon", "hook", "claude-code", cwd=repo, input=batch).code == 0
    run_through_hooks(repo, "echo after > after.txt")
    ops = [e for e in run_cmd("pylon", "ws", "log", "--json", cwd=repo).json()["entries"] if e["kind"] == "op"]
    assert [e["title"] for e in ops if e["status"] == "done"] == ["shell: echo after > after.txt"], ops
    assert run_cmd("pylon", "ws", "undo", cwd=repo).code == 0
    assert whole_state(repo) == before


def test_a_command_whose_capture_after_it_died_is_finished_by_the_next_command(repo: Path) -> None:
    """A PostToolUse marks its command ended and its capture holds the keep's lock until the op is
    written; a capture killed on the way (a helper's fork, the detached child) leaves the mark. The
    next command's keep, holding the lock, finishes it: both commands are ops, undone exactly."""
    from tests.keep.hookpath import hook

    before = whole_state(repo)
    hook("claude-code", event("PreToolUse", "rm -f src/lib.py", repo, "toolu_died"), repo)
    subprocess.run(["bash", "-c", "rm -f src/lib.py"], cwd=repo, check=True)
    keep_dir = Path((repo / ".git" / "pylon" / "keep-id").read_text().split("\n")[1])  # store.py: id, folder
    chain_file = next(keep_dir.glob("checkouts/*/chain.json"))
    chain = json.loads(chain_file.read_text())
    chain["running"]["toolu_died"]["ended"] = True  # the PostToolUse came; its capture never finished
    chain_file.write_text(json.dumps(chain))
    middle = whole_state(repo)
    run_through_hooks(repo, "echo more >> README.md")
    titles = [e.get("title", "") for e in json.loads(run_cmd("pylon", "ws", "log", "--json", cwd=repo).out)["entries"]]
    assert any("rm -f src/lib.py" in t for t in titles) and any("echo more" in t for t in titles), titles
    assert run_cmd("pylon", "ws", "undo", cwd=repo).code == 0
    assert whole_state(repo) == middle
    assert run_cmd("pylon", "ws", "undo", cwd=repo).code == 0
    assert whole_state(repo) == before
