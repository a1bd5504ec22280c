"""Every shell command run through the hook path (PreToolUse, bash, PostToolUse) is an op that
`pylon ws undo` reverses exactly: the whole tree (bytes, modes, symlinks, empty folders), the index,
HEAD, refs and the stash come back as git shows them before the command."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import MakeRepo, git, run_cmd, write_files
from tests.keep.hookpath import run_through_hooks, whole_state

FILES = {
    "src/app.py": "def main():\n    return 1\n",
    "src/lib/util.py": "X = 1\n",
    "README.md": "readme\n",
    ".gitignore": ".env\nbuild/\n",
}


@pytest.fixture
def repo(make_repo: MakeRepo) -> Path:
    root: Path = make_repo(FILES)
    git(root, "tag", "v1")
    git(root, "branch", "feat")
    write_files(
        root,
        {
            "src/app.py": "def main():\n    return 2  # work\n",
            "notes.txt": "untracked\n",
            ".env": "SECRET=1\n",
            "build/out.o": "obj\n",
        },
    )
    (root / ".env").chmod(0o600)
    (root / "empty").mkdir()
    (root / "link").symlink_to("README.md")
    git(root, "add", "src/app.py")
    (root / "src/app.py").write_text("def main():\n    return 3  # more work\n")
    return root


COMMANDS = [
    "rm -rf src",
    "rm -rf .env build empty link notes.txt",
    "git checkout -- . && git clean -fdx",
    "git reset --hard HEAD && git clean -fd",
    "chmod 600 src/lib/util.py && chmod 755 README.md",
    "git branch -f feat HEAD~0 && git tag -d v1 && git branch -D feat",
    "git stash && git stash drop",
    "x='rm -rf src'; $x",
    "sort -o README.md README.md && printf 'z\\n' >> README.md",
    "rm -rf .[^.]*",
]


@pytest.mark.parametrize("command", COMMANDS)
def test_undo_brings_back_everything(repo: Path, command: str) -> None:
    before = whole_state(repo)
    _answer, ran = run_through_hooks(repo, command)
    assert ran is not None
    assert ran.returncode == 0, (command, ran.stderr)
    if (repo / ".git").exists():
        assert whole_state(repo) != before, (command, ran.stderr)
    undone = run_cmd("pylon", "ws", "undo", cwd=repo)
    assert undone.code == 0, undone
    after = whole_state(repo)
    for key in before:
        assert after[key] == before[key], (command, key)
