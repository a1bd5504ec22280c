"""No capture wedges on a type change (symlink <-> folder <-> file), whatever op or restore made it.

The reproduction: a session turned the symlink `link` into a folder, `ws finish` brought that in,
`ws restore op-1:before link` (the command `ws log` names) put the symlink back; the kept private
index still held `link/f`, git's `update-index` refuses a path beyond a symlink, and every later
capture (`ws undo`, `ws baseline`) failed with `capture-failed` until a `git status` rewrote the
real index. The property turns paths into every type and back through ops and restores; after each
command no capture may fail, and the state `ws baseline` captures must be git's own (`git add -A`
of the working tree into a copy of the real index, then `git write-tree`).
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import MakeRepo, git
from tests.workspace.helpers import pylon

COUNTER = itertools.count()
KINDS = ["file", "exec", "symlink-file", "symlink-dir", "dangling", "folder", "empty", "absent"]
PATHS = ["link", "a", "d", "d/f", "n"]
BROKEN = {"capture-failed", "internal-error", "git-failed"}


def oracle_tree(repo: Path) -> str:
    """The working tree as git itself stages it: `git add -A` into a copy of the real index."""
    index = repo / ".git" / "oracle-index"
    shutil.copy2(repo / ".git" / "index", index)  # its mtime kept: git's racy-entry check stays exact
    env = {**os.environ, "GIT_INDEX_FILE": str(index)}
    try:
        subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True, capture_output=True)
        return subprocess.run(
            ["git", "write-tree"], cwd=repo, env=env, check=True, capture_output=True, text=True
        ).stdout.strip()
    finally:
        index.unlink()


def clear(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def make(root: Path, rel: str, kind: str, tag: str) -> None:
    """Turn `rel` into `kind`: whatever was there (and in the way above it) goes first."""
    path = root / rel
    parent = path.parent
    while parent != root:
        if parent.is_symlink() or (parent.exists() and not parent.is_dir()):
            clear(parent)
        parent = parent.parent
    clear(path)
    if kind == "absent":
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind in ("file", "exec"):
        path.write_text(f"{rel} {tag}\n")
        os.chmod(path, 0o755 if kind == "exec" else 0o644)
    elif kind == "symlink-file":
        os.symlink("a" if rel.count("/") == 0 else "../a", path)
    elif kind == "symlink-dir":
        os.symlink("d" if rel.count("/") == 0 else "..", path)
    elif kind == "dangling":
        os.symlink(f"missing-{tag}", path)
    elif kind == "folder":
        path.mkdir()
        (path / "f").write_text(f"in {rel} {tag}\n")
        (path / "sub").mkdir()
        (path / "sub" / "g").write_text("g\n")
    elif kind == "empty":
        path.mkdir()


def run(repo: Path | str, *args: str) -> str | None:
    """Run a ws command; the error code it refused with (None on success). A broken capture fails."""
    result = pylon("ws", *args, "--json", cwd=repo)
    if result.code == 0:
        return None
    code = str(result.json()["error"]["code"])
    assert code not in BROKEN, (args, result)
    return code


def check(repo: Path) -> None:
    assert run(repo, "baseline") is None
    captured = git(repo, "rev-parse", "refs/pylon/baselines/last^{tree}").strip()
    assert captured == oracle_tree(repo)


def base_repo(make_repo: MakeRepo) -> Path:
    repo = make_repo(files={"a": "a\n", "d/f": "f\n", ".gitignore": "*.log\n"}, name=f"repo-{next(COUNTER)}")
    os.symlink("a", repo / "link")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "link")
    return repo


def test_a_restored_symlink_does_not_wedge_later_captures(make_repo: MakeRepo) -> None:
    """The issue's sequence, command for command."""
    repo = base_repo(make_repo)
    assert run(repo, "new", "s1") is None
    wt = Path(git(repo, "worktree", "list", "--porcelain").split("worktree ")[2].splitlines()[0])
    make(wt, "link", "folder", "session")
    assert run(repo, "finish", "s1") is None
    assert (repo / "link").is_dir() and not (repo / "link").is_symlink()
    assert run(repo, "restore", "op-1:before", "link") is None
    assert os.readlink(repo / "link") == "a"
    for _ in range(3):  # the capture of each one failed five times in a row
        assert run(repo, "undo") in (None, "nothing-to-undo")
        check(repo)
    assert run(repo, "baseline") is None


steps = st.lists(
    st.tuples(
        st.sampled_from(PATHS),
        st.sampled_from(KINDS),
        st.sampled_from(["baseline", "named", "restore", "restore-path", "undo", "redo", "finish", "apply-undo"]),
    ),
    min_size=3,
    max_size=int(os.environ.get("PYLON_TYPE_STEPS", "6")),
)


@settings(
    max_examples=int(os.environ.get("PYLON_TYPE_EXAMPLES", "3")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(plan=steps)
def test_type_changes_through_ops_and_restores_never_wedge(
    make_repo: MakeRepo, plan: list[tuple[str, str, str]]
) -> None:
    repo = base_repo(make_repo)
    named: list[str] = []
    sessions = itertools.count(1)
    for n, (rel, kind, op) in enumerate(plan):
        make(repo, rel, kind, f"p{n}")
        if op == "named":
            named.append(f"b{n}")
            assert run(repo, "baseline", f"b{n}") is None
        elif op in ("restore", "restore-path") and named:
            run(repo, "restore", named[n % len(named)], *([rel] if op == "restore-path" else []))
        elif op in ("undo", "redo"):
            run(repo, op)
        elif op in ("finish", "apply-undo"):
            wid = f"s{next(sessions)}"
            if run(repo, "new", wid) is None:
                wt = Path(str(pylon("ws", "path", wid, "--json", cwd=repo).json()["path"]))
                other = PATHS[(PATHS.index(rel) + 1) % len(PATHS)]
                make(wt, other, KINDS[(KINDS.index(kind) + 3) % len(KINDS)], f"s{n}")
                if op == "finish":
                    run(repo, "finish", wid)
                elif run(repo, "apply", wid) is None:
                    run(repo, "undo")
        check(repo)
