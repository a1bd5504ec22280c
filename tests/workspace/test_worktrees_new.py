"""`pylon ws new` / `ws path`: the dirty state carried over, ownership marks, copies, concurrency,
and failure injection (0 branches, admin folders, folders or refs left behind)."""

from __future__ import annotations

import os
import stat
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import MakeRepo, git, script, write_files
from tests.workspace.helpers import index_snapshot, pylon
from tests.workspace.wt_helpers import immutable, new, porcelain, require_immutable, status, tree_files, world


def dirty(repo: Path) -> None:
    write_files(repo, {"src/app.py": "print('changed')\n", "new dir/untracked é.txt": "fresh\n", "x.log": "ignored\n"})
    (repo / "docs" / "guide.txt").unlink()
    git(repo, "add", "src/app.py")


def test_new_carries_the_dirty_state_into_a_locked_worktree_outside_the_checkout(repo: Path, tmp_path: Path) -> None:
    dirty(repo)
    before_status = status(repo)  # plain `git status` may refresh the index: before the snapshot
    before_index = index_snapshot(repo)
    made = new(repo, "agent-1")
    path = Path(str(made["path"]))
    assert made["id"] == "agent-1" and made["branch"] == "pylon-session-agent-1" and made["dirty"] is True
    data_home = Path(os.environ["XDG_DATA_HOME"])
    assert path.parent.parent == data_home / "pylon" / "worktrees" and path.name == "agent-1"
    assert path.parent.name.startswith("repo-")
    assert repo not in path.parents
    # git's own view: registered, on the branch, locked with a reason naming pylon
    entry = next(e for e in porcelain(repo) if e["worktree"] == str(path))
    assert entry["branch"] == "refs/heads/pylon-session-agent-1"
    assert "pylon" in entry["locked"] and "agent-1" in entry["locked"]
    # the files are the checkout's state: tracked changes, deletion, untracked; not ignored ones
    expected = {k: v for k, v in tree_files(repo).items() if k != "x.log"}
    assert tree_files(path) == expected
    assert status(path) == ""
    # the baseline is one commit by pylon on top of HEAD, anchored under refs/pylon/sessions/
    assert git(path, "log", "-1", "--format=%an %P").split() == ["pylon", git(repo, "rev-parse", "HEAD").strip()]
    assert git(repo, "rev-parse", "refs/pylon/sessions/agent-1/baseline").strip() == made["baseline"]
    # the main checkout was not disturbed
    assert index_snapshot(repo) == before_index and status(repo) == before_status
    assert pylon("ws", "path", "agent-1", cwd=repo).out == f"{path}\n"
    changes = pylon("ws", "changes", "--json", cwd=path).json()
    assert changes["total"] == 0


def test_clean_and_from_start_without_the_dirty_state(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD").strip()
    write_files(repo, {"README.md": "# second\n"})
    git(repo, "commit", "-qam", "second")
    dirty(repo)
    clean = new(repo, "c1", "--clean")
    assert clean["baseline"] == git(repo, "rev-parse", "HEAD").strip() and clean["dirty"] is False
    assert status(Path(str(clean["path"]))) == ""
    assert (Path(str(clean["path"])) / "src/app.py").read_text() == "print('hello')\n"
    old = new(repo, "c2", "--from", "HEAD~1")
    assert old["baseline"] == first
    assert (Path(str(old["path"])) / "README.md").read_text() == "# demo\n"


def test_generated_ids_and_a_clean_checkout_start_at_head(repo: Path) -> None:
    made = new(repo)
    assert str(made["id"]).startswith("s-") and made["baseline"] == git(repo, "rev-parse", "HEAD").strip()


def test_copy_globs_and_worktreeinclude_copy_only_ignored_files(repo: Path) -> None:
    write_files(
        repo,
        {
            ".env": "SECRET=1\n",
            "conf/local.toml": "x = 1\n",
            "build/out.log": "b\n",
            ".worktreeinclude": "# local config\nconf/\n",
            "other.env": "tracked?\n",
            "run.sh": "#!/bin/sh\n",
        },
    )
    git(repo, "add", ".worktreeinclude", "other.env", "run.sh")
    git(repo, "commit", "-qm", "include file")
    with open(repo / ".gitignore", "a") as fh:
        fh.write(".env\nconf/\n")
    os.chmod(repo / ".env", 0o600)
    made = new(repo, "cp", "--copy", "*.env", "--copy", "build/")
    path = Path(str(made["path"]))
    assert (path / ".env").read_text() == "SECRET=1\n"
    assert stat.S_IMODE(os.stat(path / ".env").st_mode) == 0o600
    assert (path / "conf/local.toml").read_text() == "x = 1\n"
    assert (path / "build/out.log").read_text() == "b\n"
    assert made["copied"]["files"] == 3
    assert status(path) == ""  # the dirty .gitignore is in the baseline, so the copies are ignored there too


def test_eight_parallel_new_calls_all_succeed(repo: Path) -> None:
    dirty(repo)
    argv = [script("pylon"), "ws", "new", "--json"]

    def one(i: int) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*argv, f"p{i}"], cwd=repo, capture_output=True, text=True, timeout=120)

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(one, range(8)))
    for r in results:
        assert r.returncode == 0, r.stderr
        assert "lock" not in r.stderr
    branches = git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/pylon-session-*").split()
    assert sorted(branches) == [f"pylon-session-p{i}" for i in range(8)]
    assert len(porcelain(repo)) == 9
    listed = pylon("ws", "list", "--json", cwd=repo).json()
    assert sorted(w["id"] for w in listed["worktrees"]) == [f"p{i}" for i in range(8)]


def _root(repo: Path) -> Path:
    made = new(repo, "probe")
    root = Path(str(made["path"])).parent
    assert pylon("ws", "rm", "probe", cwd=repo).code == 0
    return root


@pytest.mark.parametrize("case", ["path-taken", "branch-taken", "bad-from", "read-only-parent", "bad-id"])
def test_a_failed_new_leaves_nothing_behind(repo: Path, case: str) -> None:
    dirty(repo)
    root = _root(repo)
    args = ["ws", "new", "victim"]
    if case == "path-taken":
        (root / "victim").mkdir()
    elif case == "branch-taken":
        git(repo, "branch", "pylon-session-victim")
    elif case == "bad-from":
        args += ["--from", "no-such-rev"]
    elif case == "bad-id":
        args = ["ws", "new", "bad/id"]
    before = world(repo, root)
    if case == "read-only-parent":
        require_immutable(root)
    try:
        result = pylon(*args, cwd=repo)
    finally:
        if case == "read-only-parent":
            immutable(root, False)
    assert result.code != 0, result
    assert "Traceback" not in result.err
    assert world(repo, root) == before
    codes = {
        "path-taken": "path-taken",
        "branch-taken": "branch-taken",
        "bad-from": "bad-revision",
        "bad-id": "bad-worktree-id",
    }
    if case in codes:
        assert f"error[{codes[case]}]" in result.err


def test_a_root_inside_the_checkout_is_refused(repo: Path) -> None:
    result = pylon("ws", "new", "x", cwd=repo, env={"PYLON_WORKTREE_ROOT": str(repo / "wt")})
    assert result.code == 2 and "worktree-root-inside-checkout" in result.err
    assert not (repo / "wt").exists() and len(porcelain(repo)) == 1


def test_pylon_worktree_root_gets_a_folder_per_repository(repo: Path, tmp_path: Path, make_repo: MakeRepo) -> None:
    # Two repositories under one $PYLON_WORKTREE_ROOT used to collide on ids (`path-taken`).
    root = tmp_path / "roots" / "mine"
    env = {"PYLON_WORKTREE_ROOT": str(root)}
    other = make_repo({"b.txt": "b\n"}, name="other")
    made = [pylon("ws", "new", "r1", "--json", cwd=where, env=env) for where in (repo, other)]
    assert [m.code for m in made] == [0, 0], made
    paths = [Path(m.json()["path"]) for m in made]
    assert [p.name for p in paths] == ["r1", "r1"] and paths[0] != paths[1]
    assert {p.parent.parent for p in paths} == {root}
    assert paths[0].parent.name.startswith("repo-") and paths[1].parent.name.startswith("other-")
    for where, path in zip((repo, other), paths):
        listed = pylon("ws", "list", "--json", cwd=where, env=env).json()
        assert [w["path"] for w in listed["worktrees"]] == [str(path)]


def test_a_worktree_made_under_another_root_stays_owned_and_removable(repo: Path, tmp_path: Path) -> None:
    # After a change of root, ws new used to suggest a `ws rm` that was then refused as foreign.
    old = pylon("ws", "new", "w1", "--json", cwd=repo, env={"PYLON_WORKTREE_ROOT": str(tmp_path / "old")})
    assert old.code == 0, old
    env = {"PYLON_WORKTREE_ROOT": str(tmp_path / "new")}
    listed = pylon("ws", "list", "--json", cwd=repo, env=env).json()
    assert [w["id"] for w in listed["worktrees"]] == ["w1"] and listed.get("foreign", 0) in (0, [])
    removed = pylon("ws", "rm", "w1", cwd=repo, env=env)
    assert removed.code == 0, removed
    assert not Path(old.json()["path"]).exists()
    assert pylon("ws", "new", "w1", "--json", cwd=repo, env=env).code == 0
