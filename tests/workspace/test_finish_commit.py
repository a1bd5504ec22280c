"""`ws finish ID --commit MSG` commits like `git commit` (issue 30 item 4), checked against git itself:
the same change committed with plain `git add PATHS && git commit` in a copy of the checkout, under
the same hooks (a refusing pre-commit: canon's own gate, `canon check --staged`; a commit-msg that
rewrites the message; a post-commit), gives the same refusal, or the same tree and message."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest

from tests.conftest import git, write_files
from tests.workspace.helpers import pylon
from tests.workspace.wt_helpers import new

ARTICLE = "---\ncapsule: The entry point.\n---\nIt prints a greeting.\n"


def hook(repo: Path, name: str, body: str) -> None:
    path = repo / ".git" / "hooks" / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def twin(repo: Path, tmp_path: Path) -> Path:
    """A copy of the checkout (its .git too) to run plain git in."""
    copy = tmp_path / "twin"
    shutil.copytree(repo, copy, symlinks=True)
    return copy


def session_with_two_applies(repo: Path) -> Path:
    """A session whose first apply brings a new file and whose second changes a tracked one."""
    path = Path(str(new(repo, "a")["path"]))
    write_files(path, {"notes/new.txt": "added by the first apply\n"})
    assert pylon("ws", "apply", "a", cwd=repo).code == 0
    write_files(path, {"src/app.py": "print('hello, agent')\n"})
    assert pylon("ws", "apply", "a", cwd=repo).code == 0
    return path


def git_commit(copy: Path, paths: list[str], message: str, *flags: str) -> tuple[int, str]:
    git(copy, "add", "--", *paths)
    import subprocess

    proc = subprocess.run(["git", "commit", "-q", "-m", message, *flags], cwd=copy, capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


def test_every_apply_since_the_last_finish_is_committed(repo: Path, tmp_path: Path) -> None:
    path = session_with_two_applies(repo)
    write_files(repo, {"README.md": "# the person's own edit, not the session's\n"})
    copy = twin(repo, tmp_path)
    code, _ = git_commit(copy, ["notes/new.txt", "src/app.py"], "Agent work")
    assert code == 0
    res = pylon("ws", "finish", "a", "--commit", "Agent work", cwd=repo)
    assert res.code == 0, res
    assert "nothing to apply from a" in res.out and "committed 2 path(s)" in res.out
    assert git(repo, "rev-parse", "HEAD^{tree}") == git(copy, "rev-parse", "HEAD^{tree}")
    assert git(repo, "log", "-1", "--format=%B") == git(copy, "log", "-1", "--format=%B")
    assert git(repo, "status", "--porcelain") == git(copy, "status", "--porcelain") == " M README.md\n"
    assert not path.exists() and git(repo, "branch", "--list", "pylon-session-a") == ""


@pytest.fixture
def gated(repo: Path) -> Path:
    """canon's gate as the pre-commit hook: a staged asset change whose article did not change fails."""
    write_files(repo, {".canon/articles/src/app.md": ARTICLE})
    assert pylon("canon", "init", cwd=repo).code in (0, 1)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "canon store")
    hook(repo, "pre-commit", "exec canon check --staged\n")
    return repo


def test_a_refusing_pre_commit_hook_refuses_as_git_commit_does(gated: Path, tmp_path: Path) -> None:
    repo = gated
    path = session_with_two_applies(repo)
    copy = twin(repo, tmp_path)
    code, said = git_commit(copy, ["notes/new.txt", "src/app.py"], "Agent work")
    assert code == 1 and "src/app.py" in said, said  # git refuses it: the article was not updated
    head = git(repo, "rev-parse", "HEAD")
    res = pylon("ws", "finish", "a", "--commit", "Agent work", cwd=repo)
    assert res.code == 1 and "error[commit-hook-refused]" in res.err and "pre-commit" in res.err, res
    assert "src/app.py" in res.err  # the gate's own finding, quoted
    assert git(repo, "rev-parse", "HEAD") == head  # nothing committed
    assert path.exists() and git(repo, "branch", "--list", "pylon-session-a").strip()  # nothing removed
    # --no-verify skips it, as git's does, and says so; the trees are the same
    code, _ = git_commit(copy, ["notes/new.txt", "src/app.py"], "Agent work", "--no-verify")
    assert code == 0
    res = pylon("ws", "finish", "a", "--commit", "Agent work", "--no-verify", cwd=repo)
    assert res.code == 0, res
    assert "--no-verify: the pre-commit and commit-msg hooks did not run" in res.out
    assert git(repo, "rev-parse", "HEAD^{tree}") == git(copy, "rev-parse", "HEAD^{tree}")
    assert not path.exists()


def test_the_message_hooks_run_as_for_git_commit(repo: Path, tmp_path: Path) -> None:
    hook(repo, "prepare-commit-msg", 'printf "\\n\\n# a comment git keeps with -m\\n" >> "$1"\n')
    hook(repo, "commit-msg", 'printf "\\nReviewed-by: hook\\n" >> "$1"\n')
    hook(repo, "post-commit", 'git rev-parse HEAD > "$(git rev-parse --git-dir)/post-commit-ran"\n')
    session_with_two_applies(repo)
    copy = twin(repo, tmp_path)
    assert git_commit(copy, ["notes/new.txt", "src/app.py"], "  Agent work  \n\n")[0] == 0
    res = pylon("ws", "finish", "a", "--commit", "  Agent work  \n\n", cwd=repo)
    assert res.code == 0, res
    assert git(repo, "log", "-1", "--format=%B") == git(copy, "log", "-1", "--format=%B")
    assert "Reviewed-by: hook" in git(repo, "log", "-1", "--format=%B")
    assert (repo / ".git" / "post-commit-ran").read_text() == git(repo, "rev-parse", "HEAD")


def test_a_finish_that_commits_nothing_says_so_and_keeps_the_worktree(repo: Path) -> None:
    path = session_with_two_applies(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the person committed it already")
    res = pylon("ws", "finish", "a", "--commit", "Agent work", "--json", cwd=repo)
    assert res.code == 1 and res.json()["error"]["code"] == "nothing-to-commit", res
    assert path.exists()
    empty = pylon("ws", "finish", "a", "--commit", "Agent work", cwd=repo)
    assert empty.code == 1 and "Nothing of a is left to commit" in empty.err


def test_a_hook_that_leaves_work_out_keeps_the_worktree(repo: Path) -> None:
    hook(repo, "pre-commit", "git rm -q --cached notes/new.txt\n")  # as a careless formatter might
    path = session_with_two_applies(repo)
    res = pylon("ws", "finish", "a", "--commit", "Agent work", cwd=repo)
    assert res.code == 1 and "kept worktree a" in res.out and "notes/new.txt" in res.out, res
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["src/app.py"]
    assert path.exists() and git(repo, "branch", "--list", "pylon-session-a").strip()
    assert pylon("ws", "undo", cwd=repo).code == 0  # the commit op moves the branch back
    assert "notes/new.txt" in git(repo, "status", "--porcelain", "--untracked-files=all")


def test_no_verify_needs_a_commit(repo: Path) -> None:
    new(repo, "a")
    res = pylon("ws", "finish", "a", "--no-verify", cwd=repo)
    assert res.code == 2 and "--no-verify skips the hooks of a commit" in res.err
