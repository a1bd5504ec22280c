"""Layouts pylon must be honest about: sparse checkout, filters, submodules, merges in progress."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import MakeRepo
from tests.workspace.helpers import commit_all, git, pylon, write_files


def _kinds(doc: dict) -> set[str]:
    return {n["kind"] for n in doc["notes"]}


def test_sparse_checkout_never_reports_out_of_cone_files_as_deleted(repo: Path) -> None:
    git(repo, "sparse-checkout", "set", "src")
    assert not (repo / "docs" / "guide.txt").exists()
    doc = pylon("ws", "changes", "--since", "HEAD", "--json", cwd=repo).json()
    assert doc["files"] == []
    assert "sparse-checkout" in _kinds(doc)
    write_files(repo, {"src/app.py": "print('in cone')\n"})
    doc = pylon("ws", "changes", "--since", "HEAD", "--json", cwd=repo).json()
    assert [f["path"] for f in doc["files"]] == ["src/app.py"]
    base = pylon("ws", "baseline", "--json", cwd=repo).json()
    assert git(repo, "show", f"{base['commit']}:docs/guide.txt") == "one\ntwo\nthree\n"
    r = pylon("ws", "changes", cwd=repo)
    assert "sparse checkout" in r.err


def test_filter_drivers_are_named_and_content_is_captured_cleaned(repo: Path) -> None:
    git(repo, "config", "filter.fake.clean", "sed s/^/CLEAN:/")
    git(repo, "config", "filter.fake.smudge", "cat")
    write_files(repo, {".gitattributes": "*.dat filter=fake\n"})
    commit_all(repo, "attributes")
    write_files(repo, {"x.dat": "payload\n"})
    doc = pylon("ws", "fingerprint", "--json", cwd=repo).json()
    assert "filters" in _kinds(doc)
    assert git(repo, "show", f"{doc['worktree_tree']}:x.dat") == "CLEAN:payload\n"  # what `git add` stores
    text = pylon("ws", "changes", cwd=repo)
    assert "content filters" in text.err and "fake" in text.err


def test_dirty_submodule_is_reported(repo: Path, make_repo: MakeRepo) -> None:
    sub = make_repo(files={"lib.txt": "lib\n"}, name="sublib")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendor/lib")
    commit_all(repo, "submodule")
    write_files(repo / "vendor" / "lib", {"lib.txt": "edited inside the submodule\n"})
    doc = pylon("ws", "changes", "--since", "HEAD", "--json", cwd=repo).json()
    assert "submodule-dirty" in _kinds(doc)
    assert doc["files"] == []  # its checked-out commit did not move
    assert "vendor/lib" in pylon("ws", "changes", cwd=repo).err


def test_merge_in_progress_read_commands_work_and_say_so(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "other")
    write_files(repo, {"docs/guide.txt": "other side\n"})
    commit_all(repo, "other")
    git(repo, "checkout", "-q", "main")
    write_files(repo, {"docs/guide.txt": "main side\n"})
    commit_all(repo, "main")
    merge = git(repo, "merge", "other", check=False)
    assert (repo / ".git" / "MERGE_HEAD").exists(), merge
    for args in (
        ("changes", "--since", "HEAD"),
        ("diff", "--since", "HEAD"),
        ("fingerprint",),
        ("baseline",),
        ("status",),
    ):
        r = pylon("ws", *args, cwd=repo)
        assert r.code == 0, r
        assert "merge is in progress" in r.err, args
    doc = pylon("ws", "changes", "--since", "HEAD", "--json", cwd=repo).json()
    assert {"merge-in-progress", "index-unmerged"} <= _kinds(doc)
    assert [f["path"] for f in doc["files"]] == ["docs/guide.txt"]
    base = pylon("ws", "baseline", "--json", cwd=repo).json()
    assert base["index_tree"] is None
    assert "<<<<<<<" in git(repo, "show", f"{base['commit']}:docs/guide.txt")
    assert (repo / ".git" / "MERGE_HEAD").exists()
    assert git(repo, "diff", "--name-only", "--diff-filter=U") == "docs/guide.txt\n"  # still unmerged


def test_embedded_repository_is_recorded_as_git_does_and_named(repo: Path, make_repo: MakeRepo) -> None:
    other = make_repo(files={"lib.txt": "lib\n"}, name="other")
    git(repo, "clone", "-q", str(other), "vendor")  # a clone inside the checkout, no .gitmodules
    write_files(repo / "vendor", {"lib.txt": "edited inside the clone\n"})
    doc = pylon("ws", "changes", "--since", "HEAD", "--json", cwd=repo).json()
    assert "embedded-repo" in _kinds(doc)
    assert [f["path"] for f in doc["files"]] == ["vendor"]
    # what git itself records for it: a gitlink to the clone's checked-out commit
    entry = git(repo, "ls-tree", doc["worktree_tree"], "vendor").split()
    assert entry[:3] == ["160000", "commit", git(repo / "vendor", "rev-parse", "HEAD").strip()]
    text = pylon("ws", "changes", "--since", "HEAD", cwd=repo)
    assert "vendor" in text.err and "cannot see edits inside" in text.err


def test_empty_nested_repository_captures_with_a_note(repo: Path) -> None:
    git(repo, "init", "-q", "scratch")  # no commit: git itself cannot record it
    (repo / "nested").mkdir()
    git(repo / "nested", "init", "-q", "inner")
    write_files(repo, {"scratch/notes.txt": "n\n", "top.txt": "t\n"})
    for command in (["changes", "--json"], ["fingerprint", "--json"], ["baseline", "--json"]):
        r = pylon("ws", *command, cwd=repo)
        assert r.code == 0, r
        assert "embedded-repo-empty" in _kinds(r.json())
    doc = pylon("ws", "changes", "--since", "HEAD", "--json", cwd=repo).json()
    assert [f["path"] for f in doc["files"]] == ["top.txt"]
    note = [n["message"] for n in doc["notes"] if n["kind"] == "embedded-repo-empty"][0]
    assert "scratch/" in note and "nested/inner/" in note


def test_a_failing_clean_filter_is_named(repo: Path) -> None:
    git(repo, "config", "filter.broken.clean", "exit 3")  # not `required`: git stores the file raw
    write_files(repo, {".gitattributes": "*.dat filter=broken\n"})
    commit_all(repo, "attributes")
    write_files(repo, {"x.dat": "raw payload\n"})
    for _ in range(2):  # still named on the next capture, which would otherwise see a clean file
        doc = pylon("ws", "changes", "--since", "HEAD", "--json", cwd=repo).json()
        assert "filter-failed" in _kinds(doc), doc["notes"]
        assert git(repo, "show", f"{doc['worktree_tree']}:x.dat") == "raw payload\n"  # what git add stores
    text = pylon("ws", "changes", "--since", "HEAD", cwd=repo)
    assert "external filter 'exit 3' failed" in text.err
    git(repo, "config", "filter.broken.clean", "cat")  # fixed: the note goes away
    assert "filter-failed" not in _kinds(pylon("ws", "changes", "--json", cwd=repo).json())
