"""The clients' own worktrees, in the real clients (issue 30 items 1-3).

Claude Code asks a WorktreeCreate hook for `claude --worktree NAME`, its EnterWorktree tool and a
subagent with `isolation: "worktree"`; pylon answers with an owned worktree made from the person's
current state, so a canon store committed but never pushed, uncommitted edits and untracked files
are all there (Claude Code's own worktree starts from `origin/HEAD` and has none of them).
WorktreeRemove goes through `ws rm`: a worktree holding work stays. Codex makes its worktrees
itself (`codex exec --worktree`, under `$CODEX_HOME/worktrees/`); pylon's SessionStart note tells
the model what that worktree lacks and the one command that brings the person's state in.
A write of the client's own file tools that would conflict with another worktree is flagged
before it lands.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import MakeRepo, git, run_cmd, write_files
from tests.e2e.conftest import Agent
from tests.e2e.mockmodel import Bash, Call, Text

ARTICLE = "---\ncapsule: The app's entry point.\n---\nThe app starts here.\n"


def person_repo(make_repo: MakeRepo, tmp_path: Path) -> Path:
    """A checkout pushed to `origin`, then a local commit that adds the canon store (never pushed),
    an uncommitted edit, an untracked file, and an ignored `.env` that `.worktreeinclude` names."""
    repo: Path = make_repo(
        {"src/app.py": "print('app')\n", "notes.txt": "pushed\n", ".gitignore": ".env\n.claude/settings.local.json\n"}
    )
    remote = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "-u", "origin", "main")
    git(repo, "remote", "set-head", "origin", "main")
    write_files(repo, {".canon/articles/src/app.py.md": ARTICLE, ".worktreeinclude": ".env\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "canon store (not pushed)")
    write_files(repo, {"notes.txt": "pushed\nedited, not committed\n", "draft.txt": "untracked\n", ".env": "KEY=1\n"})
    return repo


def results(agent: Agent) -> str:
    assert agent.model is not None
    return "\n".join(agent.model.tool_results())


LOOK = "pwd; cat notes.txt draft.txt .env; ls .canon/articles/src"


def check_made(repo: Path, seen: str, wid_prefix: str, purpose: str) -> dict:
    """The worktree the client worked in is pylon's, with the person's whole state, and logged."""
    listed = run_cmd("pylon", "ws", "list", "--json", cwd=repo).json()
    made = [w for w in listed["worktrees"] if w["id"].startswith(wid_prefix)]
    assert len(made) == 1, listed
    row = made[0]
    assert row["made_by"]["client"] == "claude-code" and row["made_by"]["purpose"] == purpose, row
    assert os.path.realpath(row["path"]) in seen  # the session ran there (its pwd)
    for text in ("edited, not committed", "untracked", "KEY=1", "app.py.md"):
        assert text in seen, (text, seen[-2000:])
    assert not (repo / ".claude" / "worktrees").exists()  # not Claude Code's own worktree
    log = run_cmd("pylon", "ws", "undo", "--list", cwd=repo).out
    assert f"new {row['id']} (claude-code {purpose})" in log, log
    return row


@pytest.mark.parametrize("agent", ["claude"], indirect=True)
def test_claude_worktree_is_pylons_and_starts_from_the_persons_state(
    make_repo: MakeRepo, agent: Agent, tmp_path: Path
) -> None:
    repo = person_repo(make_repo, tmp_path)
    assert run_cmd("pylon", "hook", "install", "claude-code", cwd=repo).code == 0
    result = agent.run(repo, [Bash(LOOK), Text("done")], extra=("--worktree", "feat-1"))
    assert result.code == 0, result
    row = check_made(repo, results(agent), "feat-1", "session")
    # nothing of the person's checkout changed, and the branch is pylon's session branch
    assert row["branch"] == "pylon-session-feat-1"
    assert git(repo, "status", "--porcelain", "--untracked-files=all").count("\n") >= 2
    # a second `claude --worktree feat-1` resumes the same worktree
    again = agent.run(repo, [Bash("pwd"), Text("done")], extra=("--worktree", "feat-1"))
    assert again.code == 0, again
    assert os.path.realpath(row["path"]) in results(agent)
    assert len(run_cmd("pylon", "ws", "list", "--json", cwd=repo).json()["worktrees"]) == 1


@pytest.mark.parametrize("agent", ["claude"], indirect=True)
def test_a_subagent_with_worktree_isolation_works_in_a_pylon_worktree(
    make_repo: MakeRepo, agent: Agent, tmp_path: Path
) -> None:
    repo = person_repo(make_repo, tmp_path)
    assert run_cmd("pylon", "hook", "install", "claude-code", cwd=repo).code == 0
    task = {
        "description": "look around",
        "prompt": "SUBTASK-1: look at the files",
        "subagent_type": "general-purpose",
        "isolation": "worktree",
        "run_in_background": False,
    }
    result = agent.run(repo, [Call("Agent", task), Text("done")], routes={"SUBTASK-1": [Bash(LOOK), Text("looked")]})
    assert result.code == 0, result
    check_made(repo, results(agent), "agent-", "subagent")


@pytest.mark.parametrize("agent", ["claude"], indirect=True)
def test_worktree_remove_goes_through_ws_rm(make_repo: MakeRepo, agent: Agent, tmp_path: Path) -> None:
    repo = person_repo(make_repo, tmp_path)
    assert run_cmd("pylon", "hook", "install", "claude-code", cwd=repo).code == 0
    agent.allowed = ("Bash", "EnterWorktree", "ExitWorktree")
    leave = Call("ExitWorktree", {"action": "remove", "discard_changes": True})
    # a worktree with nothing of its own: removed, recorded, and `ws undo` brings it back
    done = agent.run(repo, [Call("EnterWorktree", {"name": "tmp-1"}), Bash("pwd"), leave, Text("done")])
    assert done.code == 0, done
    assert run_cmd("pylon", "ws", "list", "--json", cwd=repo).json()["worktrees"] == []
    assert "rm tmp-1" in run_cmd("pylon", "ws", "undo", "--list", cwd=repo).out
    assert run_cmd("pylon", "ws", "undo", cwd=repo).code == 0
    assert [w["id"] for w in run_cmd("pylon", "ws", "list", "--json", cwd=repo).json()["worktrees"]] == ["tmp-1"]
    # a worktree holding work nobody applied: refused, it stays with the work
    kept = agent.run(
        repo, [Call("EnterWorktree", {"name": "tmp-2"}), Bash("echo mine > work.txt"), leave, Text("done")]
    )
    assert kept.code == 0, kept
    rows = {w["id"]: w for w in run_cmd("pylon", "ws", "list", "--json", cwd=repo).json()["worktrees"]}
    assert "tmp-2" in rows and (Path(rows["tmp-2"]["path"]) / "work.txt").read_text() == "mine\n"
    assert "could not remove" in results(agent)


def codex_baseline(repo: Path) -> str:
    """The commit of the person's current state that pylon's note names (`ws new`'s baseline:
    deterministic, so the test computes the same one)."""
    from pylon.workspace.repo import locate
    from pylon.workspace.worktrees.new import baseline_commit

    cwd = os.getcwd()
    try:
        os.chdir(repo)
        return baseline_commit(locate(str(repo)))[0]
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize("agent", ["codex"], indirect=True)
def test_a_codex_worktree_is_recognised_and_told_what_it_lacks(
    make_repo: MakeRepo, agent: Agent, tmp_path: Path
) -> None:
    repo = person_repo(make_repo, tmp_path)
    # Codex's own worktree is a new, untrusted project: only the user's hooks run there
    home_env = {"CODEX_HOME": str(agent.home / ".codex")}
    (agent.home / ".codex").mkdir(parents=True, exist_ok=True)
    installed = run_cmd("pylon", "hook", "install", "codex", "--user", cwd=repo, env=home_env)
    assert installed.code == 0, installed
    baseline = codex_baseline(repo)
    result = agent.run(
        repo, [Bash(f"git merge -q --ff-only {baseline} && {LOOK}"), Text("done")], extra=("--worktree",)
    )
    assert result.code == 0, result
    seen = agent.seen()
    assert "a Codex worktree" in seen and f"git merge --ff-only {baseline}" in seen, seen[-3000:]
    assert "uncommitted path(s) of the main checkout" in seen  # Codex forks from the local HEAD: commits are there
    out = results(agent)
    for text in ("edited, not committed", "untracked", "app.py.md"):
        assert text in out, (text, out[-2000:])
    listed = run_cmd("pylon", "ws", "list", "--json", cwd=repo, env=home_env).json()
    assert [(o["made_by"]["client"], o["owned"]) for o in listed["others"]] == [("codex", False)], listed


@pytest.fixture
def two_sessions(make_repo: MakeRepo) -> Path:
    """A checkout and an owned session that changed line 2 of src/app.py."""
    repo: Path = make_repo({"src/app.py": "one\ntwo\nthree\n", ".gitignore": ".claude/\n.codex/\n.pylon/\n"})
    made = run_cmd("pylon", "ws", "new", "other", "--json", cwd=repo)
    assert made.code == 0, made
    (Path(made.json()["path"]) / "src/app.py").write_text("one\nTWO (the other session)\n three\n")
    return repo


def test_a_write_that_would_conflict_is_flagged_before_it_lands(two_sessions: Path, agent: Agent) -> None:
    repo = two_sessions
    assert run_cmd("pylon", "hook", "install", agent.agent, cwd=repo).code == 0
    agent.allowed = ("Bash", "Edit", "Write")
    target = str(repo / "src/app.py")
    if agent.name == "claude":  # Claude Code edits only a file read in the session
        step = Call("Edit", {"file_path": target, "old_string": "two\n", "new_string": "two, mine\n"})
        agent.allowed = ("Bash", "Edit", "Write", "Read")
    else:
        step = Call(
            "apply_patch",
            {
                "input": "*** Begin Patch\n*** Update File: src/app.py\n@@\n one\n-two\n+two, mine\n"
                " three\n*** End Patch\n"
            },
        )
    read = [Call("Read", {"file_path": target})] if agent.name == "claude" else []
    result = agent.run(repo, [*read, step, Text("done")], extra=() if agent.name == "claude" else ("-m", "gpt-5.5"))
    assert result.code == 0, result
    seen = agent.seen()
    assert "pylon session other" in seen and "src/app.py" in seen, seen[-3000:]
    assert ("would conflict" in seen and "line 2" in seen) if agent.name == "claude" else "touches a file" in seen


@pytest.mark.parametrize("agent", ["claude"], indirect=True)
def test_ask_mode_stops_a_conflicting_write(two_sessions: Path, agent: Agent) -> None:
    repo = two_sessions
    write_files(repo, {".pylon/worktrees.toml": '[writes]\non_conflict = "ask"\n'})
    assert run_cmd("pylon", "hook", "install", "claude-code", cwd=repo).code == 0
    agent.allowed = ("Bash", "Edit", "Read")
    target = str(repo / "src/app.py")
    edit = Call("Edit", {"file_path": target, "old_string": "two\n", "new_string": "two, mine\n"})
    result = agent.run(repo, [Call("Read", {"file_path": target}), edit, Text("done")])
    assert result.code == 0, result
    assert (repo / "src/app.py").read_text() == "one\ntwo\nthree\n"  # it never landed
    assert "would conflict" in agent.seen()
