"""`pylon ws conflicts` and the overlaps of `ws list`: real merges, touching pairs, nothing written."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import MakeRepo, git, write_files
from tests.workspace.helpers import index_snapshot, pylon
from tests.workspace.wt_helpers import new, status

TEXT = "".join(f"line {i}\n" for i in range(1, 31))


def setup(make_repo: MakeRepo) -> tuple[Path, Path, Path, Path]:
    repo = make_repo(files={"shared.txt": TEXT, "other.txt": TEXT, "solo.txt": TEXT})
    write_files(repo, {"dirty.txt": "the person's dirty file\n"})
    a, b, c = (Path(str(new(repo, n)["path"])) for n in ("a", "b", "c"))
    write_files(
        a,
        {
            "shared.txt": TEXT.replace("line 5\n", "line 5 by a\n"),
            "other.txt": TEXT.replace("line 1\n", "line 1 by a\n"),
        },
    )
    write_files(
        b,
        {
            "shared.txt": TEXT.replace("line 5\n", "line 5 by b\n"),
            "other.txt": TEXT.replace("line 30\n", "line 30 by b\n"),
        },
    )
    write_files(c, {"solo.txt": TEXT.replace("line 9\n", "line 9 by c\n"), "c-new.txt": "c\n"})
    return repo, a, b, c


def test_conflicts_names_paths_with_context_and_touching_pairs(make_repo: MakeRepo) -> None:
    repo, a, b, c = setup(make_repo)
    states = {p: status(p) for p in (repo, a, b, c)}
    index = index_snapshot(repo)
    result = pylon("ws", "conflicts", "--json", cwd=repo)
    assert result.code == 1, result
    doc = result.json()
    pairs = {(p["a"], p["b"]): p for p in doc["pairs"]}
    ab = pairs[("a", "b")]
    assert [c["path"] for c in ab["conflicts"]] == ["shared.txt"]
    hunk = ab["conflicts"][0]["hunks"][0]
    assert hunk["line"] == 5 and "line 5 by a" in hunk["lines"] and "line 5 by b" in hunk["lines"]
    assert "CONFLICT (contents)" in ab["conflicts"][0]["types"][0]
    assert ab["touching"] == ["other.txt"]  # both changed it, the merge is clean
    assert not any("c" in key for key in pairs)  # c touches nothing the others do
    assert doc["checked"] == 6 and doc["conflicting"] == 1
    # the checkout's own dirty file is in every baseline: not a change on both sides
    assert all(p["with"] == "worktree" for p in doc["pairs"])
    text = pylon("ws", "conflicts", cwd=repo)
    assert "conflict: a <-> b: 1 path(s)" in text.out and "touching: a <-> b: other.txt" in text.out
    assert "at line 5" in text.out
    # nothing was written to any checkout
    assert index_snapshot(repo) == index and {p: status(p) for p in (repo, a, b, c)} == states
    listed = {w["id"]: w["overlaps"] for w in pylon("ws", "list", "--json", cwd=repo).json()["worktrees"]}
    assert listed == {"a": ["b"], "b": ["a"], "c": []}


def test_conflicts_against_the_checkout_and_with_named_ids(make_repo: MakeRepo) -> None:
    repo, a, b, c = setup(make_repo)
    write_files(
        repo,
        {
            "solo.txt": TEXT.replace("line 9\n", "line 9 by the person\n"),
            "dirty.txt": "the person's dirty file\nmore\n",
        },
    )
    doc = pylon("ws", "conflicts", "c", "--json", cwd=repo).json()
    assert doc["worktrees"] == ["c"]
    assert [(p["a"], p["b"], p["with"]) for p in doc["pairs"]] == [("c", None, "checkout")]
    assert [x["path"] for x in doc["pairs"][0]["conflicts"]] == ["solo.txt"]
    clean = pylon("ws", "conflicts", "a", "--json", cwd=repo)
    assert clean.code == 0 and clean.json()["pairs"] == []
    assert "no conflicts" in pylon("ws", "conflicts", "a", cwd=repo).out


def test_an_old_git_is_named_clearly(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo, *_ = setup(make_repo)
    fake = tmp_path / "fakebin"
    fake.mkdir()
    real = git(repo, "--exec-path").strip() + "/git"
    (fake / "git").write_text(
        f'#!/bin/sh\nif [ "$1" = version ]; then echo "git version 2.37.1"; exit 0; fi\nexec {real} "$@"\n'
    )
    os.chmod(fake / "git", 0o755)
    env = {"PATH": f"{fake}:{os.environ['PATH']}"}
    result = pylon("ws", "conflicts", cwd=repo, env=env)
    assert result.code == 2 and "error[git-too-old]" in result.err and "2.38" in result.err
    listed = pylon("ws", "list", "--json", cwd=repo, env=env).json()
    assert all(w["overlaps"] is None for w in listed["worktrees"]) and listed["notes"][0]["kind"] == "git-too-old"
