"""pylon never disturbs the checkout: index bytes and mtime, git's locks, hooks, HEAD, the stash."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import script
from tests.workspace.helpers import git, index_snapshot, pylon, write_files

READ_COMMANDS = [
    ("ws", "baseline"),
    ("ws", "baseline", "named"),
    ("ws", "changes"),
    ("ws", "changes", "--since", "HEAD"),
    ("ws", "diff"),
    ("ws", "diff", "--since", "HEAD", "--max-files", "1"),
    ("ws", "cat", "src/app.py"),
    ("ws", "cat", "src/app.py", "--base"),
    ("ws", "fingerprint"),
    ("ws", "status"),
    ("ws", "run", "--", "true"),
    ("ws", "watch", "--timeout", "0.5"),
]


def test_no_read_command_changes_the_index_or_anything_git_shows(repo: Path) -> None:
    write_files(repo, {"src/app.py": "print('dirty')\n", "untracked.txt": "u\n"})
    git(repo, "add", "src/app.py")
    write_files(repo, {"src/app.py": "print('dirtier')\n"})
    before = index_snapshot(repo)
    head = git(repo, "rev-parse", "HEAD")
    for args in READ_COMMANDS:
        r = pylon(*args, cwd=repo)
        assert r.code == 0, r
        assert index_snapshot(repo) == before, args
        assert not (repo / ".git" / "index.lock").exists()
    assert git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "stash", "list") == ""
    status = subprocess.run(
        ["git", "status", "--porcelain"],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
    ).stdout
    assert status == "MM src/app.py\n?? untracked.txt\n"


LOOP = textwrap.dedent(
    """
    import os, subprocess, sys
    repo, n = sys.argv[1], int(sys.argv[2])
    def snap():
        p = os.path.join(repo, ".git", "index")
        return open(p, "rb").read(), os.stat(p).st_mtime_ns
    failures, last = [], None
    for i in range(n):
        if last is not None and snap() != last:
            failures.append(f"index changed between commits (iteration {i})")
        with open(os.path.join(repo, f"loop{i % 7}.txt"), "a") as fh:
            fh.write(f"{i}\\n")
        for args in (["add", "-A"], ["commit", "-q", "-m", f"loop {i}"]):
            proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
            if proc.returncode != 0:
                failures.append(f"git {args[0]} failed: {proc.stderr.strip()}")
        last = snap()
    print("\\n".join(failures))
    sys.exit(1 if failures else 0)
    """
)


@pytest.mark.slow
def test_parallel_commit_loop_never_sees_index_lock_or_index_writes(repo: Path) -> None:
    loop = subprocess.Popen(
        [sys.executable, "-c", LOOP, str(repo), "40"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    readers = 0
    commands = [a for a in READ_COMMANDS if "watch" not in a]
    while loop.poll() is None:
        args = commands[readers % len(commands)]
        r = pylon(*args, cwd=repo)
        assert r.code == 0, r
        readers += 1
    out, err = loop.communicate()
    assert loop.returncode == 0, out + err
    assert readers >= 3
    assert "index.lock" not in out


def test_inside_a_pre_commit_hook_with_inherited_git_variables(repo: Path) -> None:
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(
        "#!/bin/sh\n"
        "set -e\n"
        'echo "GIT_INDEX_FILE=$GIT_INDEX_FILE" > ../hook-env.txt\n'
        f"{script('pylon')} ws baseline in-hook > ../hook-out.txt\n"
        f"{script('pylon')} ws changes --since HEAD --json >> ../hook-out.txt\n"
        f"{script('pylon')} ws fingerprint >> ../hook-out.txt\n"
        f"{script('pylon')} ws diff --since HEAD >> ../hook-out.txt\n"
    )
    hook.chmod(0o755)
    write_files(repo, {"src/app.py": "print('committed by -a')\n", "untracked.txt": "stays untracked\n"})
    git(repo, "commit", "-q", "-am", "through the hook")  # -a: git hands hooks a temporary index
    env_line = (repo.parent / "hook-env.txt").read_text()
    assert "GIT_INDEX_FILE=" in env_line and env_line.strip() != "GIT_INDEX_FILE="
    out = (repo.parent / "hook-out.txt").read_text()
    assert "baseline in-hook:" in out and "src/app.py" in out
    assert git(repo, "show", "HEAD:src/app.py") == "print('committed by -a')\n"
    assert git(repo, "status", "--porcelain") == "?? untracked.txt\n"
    git(repo, "fsck", "--no-progress")
    # relative GIT_INDEX_FILE as pre-commit exports it, from a subfolder: ignored, nothing breaks
    before = index_snapshot(repo)
    env = {"GIT_INDEX_FILE": ".git/index", "GIT_DIR": "../.git", "GIT_WORK_TREE": ".."}
    r = pylon("ws", "changes", "--json", cwd=repo / "src", env=env)
    assert r.code == 0, r
    assert index_snapshot(repo) == before
