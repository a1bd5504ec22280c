"""`pylon ws baseline`: capture under refs/pylon/, never touching index, HEAD, stash or files."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import MakeRepo
from tests.workspace.helpers import git, index_snapshot, pylon, write_files


def test_baseline_captures_dirty_state_without_touching_the_checkout(repo: Path) -> None:
    write_files(repo, {"src/app.py": "print('changed')\n", "new file.txt": "new\n", "debug.log": "ignored\n"})
    (repo / "docs/guide.txt").unlink()
    git(repo, "add", "src/app.py")
    status_before = git(repo, "status", "--porcelain=v2", "--branch")
    index_before = index_snapshot(repo)
    head_before = git(repo, "rev-parse", "HEAD")

    r = pylon("ws", "baseline", "--json", cwd=repo)

    assert r.code == 0, r
    doc = r.json()
    assert doc["ok"] is True and doc["name"] == "last"
    assert doc["ref"] == "refs/pylon/baselines/last"
    assert doc["head"] == head_before.strip() and doc["branch"] == "main"
    assert doc["replaced"] is None
    assert git(repo, "rev-parse", "refs/pylon/baselines/last").strip() == doc["commit"]
    # the working tree as a tree: untracked non-ignored included, ignored and deleted not
    listing = git(repo, "ls-tree", "-r", "--name-only", doc["commit"]).split("\n")
    assert "new file.txt" in listing and "debug.log" not in listing and "docs/guide.txt" not in listing
    assert git(repo, "show", f"{doc['commit']}:src/app.py") == "print('changed')\n"
    # the staged index is kept as its own tree
    assert git(repo, "show", f"{doc['index_tree']}:src/app.py") == "print('changed')\n"
    assert "new file.txt" not in git(repo, "ls-tree", "-r", "--name-only", doc["index_tree"])
    # nothing the user sees changed (the index first: the test's own `git status` may refresh it)
    assert index_snapshot(repo) == index_before
    assert git(repo, "status", "--porcelain=v2", "--branch") == status_before
    assert git(repo, "rev-parse", "HEAD") == head_before
    assert git(repo, "stash", "list") == ""
    assert not (repo / ".git" / "index.lock").exists()


def test_baseline_text_output_and_replacement(repo: Path) -> None:
    first = pylon("ws", "baseline", cwd=repo)
    assert first.code == 0, first
    assert first.out.startswith("baseline last: ")
    write_files(repo, {"README.md": "# changed\n"})
    second = pylon("ws", "baseline", "--json", cwd=repo)
    assert second.code == 0
    assert second.json()["replaced"] is not None
    assert second.json()["replaced"] != second.json()["commit"]


def test_named_baselines_stay_and_delete(repo: Path) -> None:
    assert pylon("ws", "baseline", "before-refactor", cwd=repo).code == 0
    assert pylon("ws", "baseline", cwd=repo).code == 0
    refs = git(repo, "for-each-ref", "--format=%(refname)", "refs/pylon/baselines/")
    assert "refs/pylon/baselines/before-refactor" in refs and "refs/pylon/baselines/last" in refs
    status = pylon("ws", "status", "--json", cwd=repo).json()
    assert {b["name"] for b in status["baselines"]} == {"before-refactor", "last"}
    gone = pylon("ws", "baseline", "before-refactor", "--delete", "--json", cwd=repo)
    assert gone.code == 0 and gone.json()["deleted"]
    assert "before-refactor" not in git(repo, "for-each-ref", "refs/pylon/baselines/")
    again = pylon("ws", "baseline", "before-refactor", "--delete", cwd=repo)
    assert again.code == 1 and "error[unknown-baseline]" in again.err


def test_bad_baseline_name_is_a_usage_error(repo: Path) -> None:
    for bad in ("a/b", "..", "x.lock", "-x", "a" * 65, "sp ace"):
        r = (
            pylon("ws", "baseline", "--json", "--", bad, cwd=repo)
            if bad.startswith("-")
            else pylon("ws", "baseline", bad, "--json", cwd=repo)
        )
        assert r.code == 2, (bad, r)
        assert r.json()["error"]["code"] == "bad-baseline-name"
    assert git(repo, "for-each-ref", "refs/pylon/") == ""


def test_outside_a_repository(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    r = pylon("ws", "baseline", cwd=plain)
    assert r.code == 2
    assert "error[not-a-git-checkout]" in r.err and "hint:" in r.err
    j = pylon("ws", "changes", "--json", cwd=plain)
    assert j.code == 2 and j.json()["error"]["code"] == "not-a-git-checkout"


def test_unborn_head(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"a.txt": "a\n"}, commit=False)
    r = pylon("ws", "baseline", "--json", cwd=repo)
    assert r.code == 0, r
    doc = r.json()
    assert doc["head"] is None and doc["branch"] == "main"
    assert git(repo, "show", f"{doc['commit']}:a.txt") == "a\n"
    changes = pylon("ws", "changes", "--since", "HEAD", "--json", cwd=repo).json()
    assert [(f["path"], f["status"]) for f in changes["files"]] == [("a.txt", "added")]
    assert changes["since"]["kind"] == "empty"


def test_detached_head(repo: Path) -> None:
    git(repo, "checkout", "-q", "--detach", "HEAD")
    r = pylon("ws", "baseline", "--json", cwd=repo)
    assert r.code == 0, r
    assert r.json()["branch"] is None
    assert "detached" in pylon("ws", "status", cwd=repo).out


def test_linked_worktree_has_its_own_baselines(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other wt"
    git(repo, "worktree", "add", "-q", str(other), "-b", "feature")
    write_files(other, {"only-there.txt": "x\n"})
    r = pylon("ws", "baseline", "--json", cwd=other)
    assert r.code == 0, r
    assert r.json()["ref"] == "refs/pylon/worktrees/other wt/baselines/last" or r.json()["ref"].startswith(
        "refs/pylon/worktrees/"
    )
    assert pylon("ws", "baseline", cwd=repo).code == 0
    main_changes = pylon("ws", "changes", "--json", cwd=repo).json()
    other_changes = pylon("ws", "changes", "--json", cwd=other).json()
    assert main_changes["since"]["ref"] == "refs/pylon/baselines/last"
    assert other_changes["since"]["ref"] == r.json()["ref"]
    assert main_changes["files"] == [] and other_changes["files"] == []
    # the linked worktree's git dir is separate: its private index lives there
    assert (Path(git(other, "rev-parse", "--absolute-git-dir").strip()) / "pylon").is_dir()


def test_baseline_survives_gc_prune_now_from_another_worktree(repo: Path, tmp_path: Path) -> None:
    write_files(repo, {"untracked-only.txt": "precious\n", "src/app.py": "print('dirty')\n"})
    doc = pylon("ws", "baseline", "keep", "--json", cwd=repo).json()
    other = tmp_path / "gc-wt"
    git(repo, "worktree", "add", "-q", "--detach", str(other))
    (repo / "untracked-only.txt").unlink()  # nothing else references the blob now
    git(other, "gc", "-q", "--prune=now")
    assert git(repo, "cat-file", "-t", doc["commit"]).strip() == "commit"
    assert git(repo, "show", f"{doc['commit']}:untracked-only.txt") == "precious\n"
    git(repo, "fsck", "--no-progress", "--connectivity-only")  # raises on a missing object
    r = pylon("ws", "changes", "--since", "keep", "--json", cwd=repo)
    assert r.code == 0, r
    assert [(f["path"], f["status"]) for f in r.json()["files"]] == [("untracked-only.txt", "deleted")]
    # and the current-state cache is still usable after the prune
    assert pylon("ws", "fingerprint", cwd=repo).code == 0


def test_deleted_anchor_and_gc_do_not_break_the_next_capture(repo: Path) -> None:
    write_files(repo, {"only-untracked.txt": "u1\n"})
    assert pylon("ws", "fingerprint", cwd=repo).code == 0
    write_files(repo, {"only-untracked.txt": "u2\n"})
    assert pylon("ws", "fingerprint", cwd=repo).code == 0
    git(repo, "pack-refs", "--all")  # the anchor ref is now packed: still found
    assert pylon("ws", "changes", cwd=repo).code == 0
    git(repo, "update-ref", "-d", "refs/pylon/current")
    git(repo, "gc", "-q", "--prune=now")
    r = pylon("ws", "changes", "--since", "HEAD", "--json", cwd=repo)
    assert r.code == 0, r
    assert [f["path"] for f in r.json()["files"]] == ["only-untracked.txt"]
    assert pylon("ws", "diff", "--since", "HEAD", cwd=repo).out.endswith("+u2\n")
