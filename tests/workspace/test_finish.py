"""Finishing a session: `ws rm` without --force once its work is applied (or merged), `ws finish`."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, write_files
from tests.workspace.apply_oracle import Oracle, visible
from tests.workspace.helpers import pylon
from tests.workspace.states import differences, snapshot
from tests.workspace.wt_helpers import new, porcelain


def _session(repo: Path, wid: str = "a") -> tuple[Path, str]:
    made = new(repo, wid)
    return Path(str(made["path"])), str(made["baseline"])


def test_rm_needs_no_force_once_the_work_is_applied_and_unchanged(repo: Path) -> None:
    path, _ = _session(repo)
    write_files(path, {"agent.txt": "new\n", "src/app.py": "print('agent')\n"})
    git(path, "add", "agent.txt")
    git(path, "commit", "-qm", "agent work")
    write_files(path, {"more.txt": "uncommitted\n"})
    refused = pylon("ws", "rm", "a", cwd=repo)
    assert refused.code == 1 and "error[worktree-has-work]" in refused.err, refused
    assert pylon("ws", "apply", "a", cwd=repo).code == 0
    session_before = snapshot(path)
    removed = pylon("ws", "rm", "a", cwd=repo)
    assert removed.code == 0, removed
    assert "everything it held is in this checkout (applied in op 1, unchanged since)" in removed.out
    assert not path.exists() and len(porcelain(repo)) == 1
    undo = pylon("ws", "undo", cwd=repo)
    assert undo.code == 0, undo
    assert differences(session_before, snapshot(path)) == []


def test_rm_still_refuses_work_done_after_the_apply(repo: Path) -> None:
    path, _ = _session(repo)
    write_files(path, {"agent.txt": "new\n"})
    assert pylon("ws", "apply", "a", cwd=repo).code == 0
    write_files(path, {"agent.txt": "changed after the apply\n"})
    res = pylon("ws", "rm", "a", "--json", cwd=repo)
    assert res.code == 1 and res.json()["error"]["code"] == "worktree-has-work", res
    assert path.exists()
    assert pylon("ws", "undo", cwd=repo).code == 0  # the apply undone: not in effect any more
    write_files(path, {"agent.txt": "new\n"})
    assert pylon("ws", "rm", "a", cwd=repo).code == 1


def test_rm_says_when_the_commits_are_merged_into_a_branch(repo: Path) -> None:
    path, _ = _session(repo)
    write_files(path, {"agent.txt": "new\n"})
    git(path, "add", "-A")
    git(path, "commit", "-qm", "agent work")
    git(repo, "merge", "-q", "--ff-only", "pylon-session-a")
    res = pylon("ws", "rm", "a", cwd=repo)
    assert res.code == 0 and "its commits are all on other branches" in res.out, res


def test_finish_applies_removes_and_undo_brings_both_back(repo: Path, tmp_path: Path) -> None:
    path, baseline = _session(repo)
    write_files(path, {"agent.txt": "new\n", "src/app.py": "print('agent')\n"})
    git(path, "add", "-A")
    git(path, "commit", "-qm", "agent work")
    write_files(path, {"docs/guide.txt": "one\ntwo\nthree\nfour\n"})
    write_files(repo, {"README.md": "# demo, edited\n"})
    _conflicted, expected = Oracle(tmp_path / "oracle", repo).merge(repo, path, baseline)
    checkout_before, session_before = snapshot(repo), snapshot(path)
    res = pylon("ws", "finish", "a", cwd=repo)
    assert res.code == 0, res
    assert "applied a: 3 path(s)" in res.out and "removed worktree a" in res.out
    assert visible(snapshot(repo)["files"]) == expected
    assert not path.exists() and git(repo, "branch", "--list", "pylon-session-a") == ""
    listing = pylon("ws", "undo", "--list", "--json", cwd=repo).json()
    assert [op["kind"] for op in listing["ops"]][:1] == ["finish"]
    assert pylon("ws", "undo", cwd=repo).code == 0
    assert differences(checkout_before, snapshot(repo)) == []
    assert differences(session_before, snapshot(path)) == []


def test_finish_commit_commits_only_the_applied_paths(repo: Path) -> None:
    path, _ = _session(repo)
    write_files(path, {"agent.txt": "new\n", "src/app.py": "print('agent')\n"})
    (path / "docs" / "guide.txt").unlink()
    write_files(repo, {"README.md": "# person's staged edit\n", "notes.txt": "person's untracked file\n"})
    git(repo, "add", "README.md")
    head = git(repo, "rev-parse", "HEAD").strip()
    checkout_before = snapshot(repo)
    res = pylon("ws", "finish", "a", "--commit", "Agent work: greeting", cwd=repo)
    assert res.code == 0, res
    assert git(repo, "rev-parse", "HEAD~1").strip() == head
    assert git(repo, "log", "-1", "--format=%s").strip() == "Agent work: greeting"
    shown = git(repo, "show", "--name-status", "--format=", "HEAD").split()
    assert sorted(zip(shown[0::2], shown[1::2])) == [("A", "agent.txt"), ("D", "docs/guide.txt"), ("M", "src/app.py")]
    # the person's own work is exactly as it was: README staged, notes untracked
    assert sorted(git(repo, "status", "--porcelain").splitlines()) == ["?? notes.txt", "M  README.md"]
    assert git(repo, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
    # two ops: the apply (ws apply's own), then the commit with the removal; undo walks back both
    assert "a second undo takes back the apply (op 1)" in res.err
    assert pylon("ws", "undo", cwd=repo).code == 0
    assert git(repo, "rev-parse", "HEAD").strip() == head and path.exists()
    assert pylon("ws", "undo", cwd=repo).code == 0
    assert differences(checkout_before, snapshot(repo)) == []  # files, index entries, HEAD and branch


def test_finish_refuses_a_conflict_and_changes_nothing(repo: Path) -> None:
    path, _ = _session(repo)
    write_files(path, {"README.md": "# session\n"})
    write_files(repo, {"README.md": "# person\n"})
    checkout_before, session_before = snapshot(repo), snapshot(path)
    res = pylon("ws", "finish", "a", cwd=repo)
    assert res.code == 1 and "error[apply-conflicts]" in res.err and "--markers" in res.err, res
    assert differences(checkout_before, snapshot(repo)) == []
    assert differences(session_before, snapshot(path)) == []
    assert pylon("ws", "undo", "--list", "--json", cwd=repo).json()["ops"] == []


def test_resolve_in_place_then_finish_needs_no_force(repo: Path) -> None:
    """The issue's flow: forecast conflict, markers, a resolution by edit, then rm without --force."""
    path, _ = _session(repo)
    write_files(path, {"README.md": "# session\n", "agent.txt": "a\n"})
    write_files(repo, {"README.md": "# person\n"})
    assert pylon("ws", "apply", "a", "--markers", cwd=repo).code == 0
    write_files(repo, {"README.md": "# person and session\n"})  # the resolution
    res = pylon("ws", "rm", "a", cwd=repo)
    assert res.code == 0 and "applied in op 1" in res.out, res
