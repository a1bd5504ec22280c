"""git itself as the oracle for `ws apply`: the same three-way merge done with porcelain commands
in a scratch clone (`git add -A` of each side with its own index, `git cherry-pick --no-commit` of
the session's change onto the checkout's state), never touching the repository under test."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.workspace.states import files, git

IGNORED_SUFFIX = b".log"


def ignored(path: bytes) -> bool:
    """The generator's ignore rules (states.IGNORE): `*.log` and `ignored/`."""
    return path.endswith(IGNORED_SUFFIX) or path.startswith(b"ignored/")


def visible(found: dict[bytes, tuple[str, int, bytes]]) -> dict[bytes, tuple[str, bool, bytes]]:
    """Non-ignored files as git records them: type, executable bit, bytes (git keeps no other mode)."""
    return {p: (kind, bool(mode & 0o100), data) for p, (kind, mode, data) in found.items() if not ignored(p)}


class Oracle:
    def __init__(self, scratch: Path, repo: Path) -> None:
        self.scratch, self.bare, self.serial = scratch, scratch / "oracle.git", 0
        scratch.mkdir(parents=True, exist_ok=True)
        git(scratch, "clone", "-q", "--mirror", str(repo), str(self.bare))

    def _env(self, work: Path) -> dict[str, str]:
        self.serial += 1
        return {
            **os.environ,
            "GIT_DIR": str(self.bare),
            "GIT_WORK_TREE": str(work),
            "GIT_INDEX_FILE": str(self.scratch / f"index-{self.serial}"),
        }

    def tree_of(self, work: Path) -> str:
        """`git add -A` of a folder into a fresh index of the scratch clone: the folder's state as git sees it."""
        env = self._env(work)
        subprocess.run(["git", "add", "-A"], cwd=work, env=env, check=True, capture_output=True)
        return subprocess.run(
            ["git", "write-tree"], cwd=work, env=env, check=True, capture_output=True, text=True
        ).stdout.strip()

    def commit(self, tree: str, parent: str) -> str:
        return git(self.bare, "commit-tree", tree, "-p", parent, "-m", "oracle").decode().strip()

    def merge(
        self, checkout: Path, session: Path, baseline: str
    ) -> tuple[set[bytes], dict[bytes, tuple[str, bool, bytes]]]:
        """(conflicting paths, the merged files) of cherry-picking the session's change since the
        baseline onto the checkout's state."""
        ours = self.commit(self.tree_of(checkout), baseline)
        theirs = self.commit(self.tree_of(session), baseline)
        self.serial += 1
        work = self.scratch / f"merge-{self.serial}"
        git(self.bare, "worktree", "add", "-q", "--detach", str(work), ours)
        proc = subprocess.run(["git", "cherry-pick", "--no-commit", theirs], cwd=work, capture_output=True)
        conflicted: set[bytes] = set()
        if proc.returncode != 0:
            out = git(work, "diff", "--name-only", "-z", "--diff-filter=U")
            conflicted = {p for p in out.split(b"\0") if p}
            assert conflicted, proc.stderr.decode(errors="replace")
        return conflicted, visible(files(work))
