"""Helpers for the owned-worktree tests: git's own view of worktrees, refs and folders."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import MakeRepo, git
from tests.workspace.helpers import pylon


def porcelain(repo: Path) -> list[dict[str, str]]:
    """`git worktree list --porcelain`, one dict per worktree (the oracle for what git knows)."""
    items: list[dict[str, str]] = []
    for block in git(repo, "worktree", "list", "--porcelain").strip().split("\n\n"):
        entry: dict[str, str] = {}
        for line in block.splitlines():
            key, _, value = line.partition(" ")
            entry[key] = value
        items.append(entry)
    return items


def world(repo: Path, root: Path) -> dict[str, object]:
    """Everything a failed `new` could leave behind: refs, admin folders, folders, the registry."""
    common = Path(git(repo, "rev-parse", "--git-common-dir").strip())
    common = common if common.is_absolute() else repo / common
    admin = common / "worktrees"
    registry = common / "pylon" / "owned"
    return {
        "refs": git(repo, "for-each-ref", "--format=%(refname) %(objectname)"),
        "admin": sorted(os.listdir(admin)) if admin.exists() else [],
        "folders": sorted(str(p.relative_to(root.parent)) for p in root.parent.rglob("*"))
        if root.parent.exists()
        else [],
        "registry": sorted(os.listdir(registry)) if registry.exists() else [],
        "worktrees": porcelain(repo),
    }


def new(repo: Path, *args: str) -> dict[str, Any]:
    result = pylon("ws", "new", *args, "--json", cwd=repo)
    assert result.code == 0, result
    return result.json()


def status(path: Path | str) -> str:
    """`git status` that never refreshes the index (so it cannot disturb an index snapshot)."""
    proc = subprocess.run(
        ["git", "status", "--porcelain=v1", "-uall"],
        cwd=path,
        capture_output=True,
        text=True,
        env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        check=True,
    )
    return proc.stdout


def tree_files(root: Path) -> dict[str, bytes]:
    """Every file under root except .git, as bytes (symlinks as their target)."""
    found: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            if name == ".git":
                continue
            full = Path(dirpath) / name
            rel = str(full.relative_to(root))
            found[rel] = os.readlink(full).encode() if full.is_symlink() else full.read_bytes()
    return found


def immutable(path: Path, on: bool) -> bool:
    """chattr +i/-i: makes a folder read-only even for root."""
    proc = subprocess.run(["chattr", "+i" if on else "-i", str(path)], capture_output=True)
    return proc.returncode == 0


def require_immutable(path: Path) -> None:
    """chattr +i on `path`, or skip where only root could (CAP_LINUX_IMMUTABLE); root without it fails."""
    import os

    import pytest

    if immutable(path, True):
        return
    if os.geteuid() != 0:
        pytest.skip("chattr +i needs root (CAP_LINUX_IMMUTABLE): this test makes a folder no process may change")
    raise AssertionError(f"chattr +i failed on {path} (a file system without the immutable flag?)")


def dirty_pair(make_repo: MakeRepo, wid: str = "a", seeds: tuple[int, int] = (1, 2)) -> tuple[Path, Path]:
    """A main checkout and one owned worktree `wid`, each with a mixed dirty state of its own."""
    from tests.workspace.ops_helpers import make_base, mixed_state

    repo = make_repo(files={"seed.txt": "seed\n"})
    make_base(repo)
    wt = Path(str(new(repo, wid)["path"]))
    mixed_state(wt, seed=seeds[0], tag="agent")
    mixed_state(repo, seed=seeds[1], tag="main")
    return repo, wt
