"""Files outside the checkout that shape git's answers: a changed one is noticed at once.

`core.excludesFile` and `core.attributesFile` may name any file; pylon keeps its private index and
memoises tree diffs while those files are unchanged, so it must watch the configured ones too.
"""

from __future__ import annotations

from pathlib import Path

from tests.workspace.helpers import commit_all, git, pylon, write_files


def _git_untracked(repo: Path) -> set[str]:
    """git's answer, without refreshing the real index (which would make pylon start afresh)."""
    out = git(repo, "--no-optional-locks", "status", "--porcelain", "-uall")
    return {ln[3:] for ln in out.splitlines() if ln.startswith("??")}


def test_a_changed_custom_excludes_file_is_noticed(repo: Path, tmp_path: Path) -> None:
    rules = tmp_path / "rules" / "my-ignore"
    rules.parent.mkdir()
    rules.write_text("# nothing yet\n")
    git(repo, "config", "core.excludesFile", str(rules))
    write_files(repo, {"a.tmp": "a\n", "keep.txt": "k\n"})
    for _ in range(2):  # the second answer comes from the kept private index
        doc = pylon("ws", "changes", "--json", cwd=repo).json()
        assert {f["path"] for f in doc["files"]} == _git_untracked(repo) == {"a.tmp", "keep.txt"}
    rules.write_text("*.tmp\n")
    doc = pylon("ws", "changes", "--json", cwd=repo).json()
    assert {f["path"] for f in doc["files"]} == _git_untracked(repo) == {"keep.txt"}
    rules.write_text("")
    doc = pylon("ws", "changes", "--json", cwd=repo).json()
    assert {f["path"] for f in doc["files"]} == _git_untracked(repo) == {"a.tmp", "keep.txt"}


def test_a_changed_custom_attributes_file_is_noticed(repo: Path, tmp_path: Path) -> None:
    attrs = tmp_path / "my-attributes"
    attrs.write_text("")
    git(repo, "config", "core.attributesFile", str(attrs))
    write_files(repo, {"data.txt": "v1\n"})
    commit_all(repo, "data")
    write_files(repo, {"data.txt": "v2\n"})

    def numstat() -> tuple[object, object, object]:
        doc = pylon("ws", "changes", "--since", "HEAD", "--json", cwd=repo).json()
        (entry,) = [f for f in doc["files"] if f["path"] == "data.txt"]
        return entry["additions"], entry["deletions"], entry["binary"]

    assert numstat() == numstat() == (1, 1, False)  # the second answer is the memo's
    assert git(repo, "--no-optional-locks", "diff", "--numstat").split()[:2] == ["1", "1"]
    attrs.write_text("*.txt binary\n")
    assert git(repo, "--no-optional-locks", "diff", "--numstat").split()[:2] == ["-", "-"]  # git's answer changed
    assert numstat() == (None, None, True)
