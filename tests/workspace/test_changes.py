"""`pylon ws changes`: statuses, counts, bounds, `--since`, and the awkward cases git users hit."""

from __future__ import annotations

import os
from pathlib import Path

from tests.workspace.helpers import commit_all, git, pylon, write_files


def _files(repo: Path, *args: str) -> dict[str, dict]:
    r = pylon("ws", "changes", "--json", *args, cwd=repo)
    assert r.code == 0, r
    return {f["path"]: f for f in r.json()["files"]}


def test_every_status_with_counts(repo: Path) -> None:
    assert pylon("ws", "baseline", cwd=repo).code == 0
    write_files(
        repo, {"src/app.py": "print('hello')\nprint('more')\n", "added.txt": "a\nb\n", "blob.bin": b"\x00\x01\x02"}
    )
    (repo / "docs/guide.txt").unlink()
    os.chmod(repo / "src/util.py", 0o755)
    (repo / "README.md").unlink()
    os.symlink("src/app.py", repo / "README.md")  # file -> symlink is a type change
    files = _files(repo)
    assert files["src/app.py"]["status"] == "modified"
    assert (files["src/app.py"]["additions"], files["src/app.py"]["deletions"]) == (1, 0)
    assert files["added.txt"] == {
        "path": "added.txt",
        "status": "added",
        "additions": 2,
        "deletions": 0,
        "binary": False,
    }
    assert files["docs/guide.txt"]["status"] == "deleted" and files["docs/guide.txt"]["deletions"] == 3
    assert files["src/util.py"]["status"] == "mode"
    assert (files["src/util.py"]["old_mode"], files["src/util.py"]["new_mode"]) == ("100644", "100755")
    assert files["README.md"]["status"] == "type"
    assert files["blob.bin"]["binary"] is True and files["blob.bin"]["additions"] is None
    text = pylon("ws", "changes", cwd=repo)
    assert text.code == 0
    assert "modified +1 -0" in text.out.replace("  ", " ").replace("  ", " ") or "+1 -0" in text.out
    assert "binary" in text.out and "100644->100755" in text.out


def test_ignored_files_never_appear_and_no_changes_says_so(repo: Path) -> None:
    assert pylon("ws", "baseline", cwd=repo).code == 0
    write_files(repo, {"trace.log": "x\n", "build/out.o": "y\n"})
    r = pylon("ws", "changes", cwd=repo)
    assert r.code == 0 and r.out == ""
    assert "no changes since last" in r.err


def test_default_since_falls_back_to_head_then_uses_last(repo: Path) -> None:
    write_files(repo, {"new.txt": "n\n"})
    doc = pylon("ws", "changes", "--json", cwd=repo).json()
    assert doc["since"]["name"] == "HEAD" and [f["path"] for f in doc["files"]] == ["new.txt"]
    assert pylon("ws", "baseline", cwd=repo).code == 0
    doc = pylon("ws", "changes", "--json", cwd=repo).json()
    assert doc["since"]["name"] == "last" and doc["files"] == []
    rev = pylon("ws", "changes", "--since", "HEAD", "--json", cwd=repo).json()
    assert [f["path"] for f in rev["files"]] == ["new.txt"]


def test_since_a_revision_and_an_unknown_name(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD").strip()
    write_files(repo, {"src/app.py": "print('v2')\n"})
    commit_all(repo, "v2")
    files = _files(repo, "--since", first)
    assert list(files) == ["src/app.py"]
    files = _files(repo, "--since", "HEAD~1")
    assert list(files) == ["src/app.py"]
    bad = pylon("ws", "changes", "--since", "no-such-thing", cwd=repo)
    assert bad.code == 2
    assert "error[bad-revision]" in bad.err and "hint:" in bad.err
    badj = pylon("ws", "changes", "--since", "no-such-thing", "--json", cwd=repo)
    assert badj.json()["error"]["code"] == "bad-revision"


def test_limit_cuts_with_one_note(repo: Path) -> None:
    write_files(repo, {f"many/f{i:03d}.txt": f"{i}\n" for i in range(30)})
    r = pylon("ws", "changes", "--limit", "10", cwd=repo)
    assert r.code == 0
    assert len(r.out.splitlines()) == 10
    assert "showed 10 of 30 changed paths" in r.err and "20 left out" in r.err
    doc = pylon("ws", "changes", "--limit", "10", "--json", cwd=repo).json()
    assert doc["total"] == 30 and doc["truncated"] is True and doc["left_out"] == 20 and len(doc["files"]) == 10
    bad = pylon("ws", "changes", "--limit", "0", cwd=repo)
    assert bad.code == 2 and "error[usage]" in bad.err


def test_staged_only_change_and_subdirectory(repo: Path) -> None:
    write_files(repo, {"src/app.py": "print('staged')\n"})
    git(repo, "add", "src/app.py")
    r = pylon("ws", "changes", "--json", cwd=repo / "src")
    assert r.code == 0, r
    assert [f["path"] for f in r.json()["files"]] == ["src/app.py"]  # paths are root-relative
    # the staged/unstaged split is part of the state: staging alone changes the fingerprint
    fp1 = pylon("ws", "fingerprint", cwd=repo).out
    git(repo, "reset", "-q")
    fp2 = pylon("ws", "fingerprint", cwd=repo).out
    assert fp1 != fp2


def test_awkward_paths(repo: Path) -> None:
    assert pylon("ws", "baseline", cwd=repo).code == 0
    names = ["with space.txt", "ünïcødé/naïve.txt", "glob[ab]*?.txt", "tab\there.txt", 'quote"d.txt']
    write_files(repo, dict.fromkeys(names, "x\n"))
    files = _files(repo)
    assert set(files) == set(names)
    text = pylon("ws", "changes", cwd=repo)
    assert '"tab\\there.txt"' in text.out and "ünïcødé/naïve.txt" in text.out


def test_symlink_and_deleted_directory(repo: Path) -> None:
    assert pylon("ws", "baseline", cwd=repo).code == 0
    os.symlink("../outside/target", repo / "link")
    for p in (repo / "src").iterdir():
        p.unlink()
    (repo / "src").rmdir()
    files = _files(repo)
    assert files["link"]["status"] == "added"
    assert files["src/app.py"]["status"] == "deleted" and files["src/util.py"]["status"] == "deleted"
    tree = pylon("ws", "fingerprint", "--json", cwd=repo).json()["worktree_tree"]
    assert git(repo, "cat-file", "-p", f"{tree}:link") == "../outside/target"
    assert git(repo, "ls-tree", tree, "link").startswith("120000")


def test_same_size_rewrite_in_the_same_second_is_seen(repo: Path) -> None:
    target = repo / "docs/guide.txt"
    for _ in range(5):
        write_files(repo, {"docs/guide.txt": "aaa\n"})
        git(repo, "commit", "-q", "--allow-empty", "-am", "reset content")
        assert pylon("ws", "baseline", cwd=repo).code == 0
        st = os.stat(target)
        target.write_text("bbb\n")  # same size, written right after the capture
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # and even the very same mtime
        files = _files(repo)
        assert list(files) == ["docs/guide.txt"], files
        assert files["docs/guide.txt"]["status"] == "modified"


def test_repeated_captures_follow_edits(repo: Path) -> None:
    """The private index is reused between captures; every edit must still show up."""
    assert pylon("ws", "baseline", cwd=repo).code == 0
    expected: set[str] = set()
    for i in range(4):
        write_files(repo, {f"step{i}.txt": f"{i}\n"})
        expected.add(f"step{i}.txt")
        assert set(_files(repo)) == expected
    # a path that becomes ignored after it was seen as untracked drops out
    with open(repo / ".gitignore", "a") as fh:
        fh.write("step0.txt\n")
    files = _files(repo)
    assert "step0.txt" not in files and ".gitignore" in files
    # the real index changing (git add) is picked up as well
    git(repo, "add", "step1.txt")
    assert "step1.txt" in _files(repo)


def test_repeated_question_is_answered_the_same_and_attributes_count(repo: Path) -> None:
    write_files(repo, {"data.txt": "a\nb\n"})
    first = _files(repo)
    assert _files(repo) == first  # the second answer may come from the memo: same result
    assert first["data.txt"]["binary"] is False
    info = repo / ".git" / "info"
    info.mkdir(exist_ok=True)
    (info / "attributes").write_text("*.txt binary\n")
    assert _files(repo)["data.txt"]["binary"] is True


def test_same_size_edit_of_an_untracked_file_with_mtime_restored_untrusted_ctime(repo: Path) -> None:
    # git itself hashes an untracked file every time; pylon's kept private index must not trust
    # its stat data more than the content: with core.trustctime=false only the ctime moves
    git(repo, "config", "core.trustctime", "false")
    path = repo / "notes.txt"
    path.write_text("aaaa\n")
    os.utime(path, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))  # old: never racy
    for _ in range(2):
        doc = pylon("ws", "changes", "--json", cwd=repo).json()
        assert git(repo, "show", f"{doc['worktree_tree']}:notes.txt") == "aaaa\n"
    before = os.stat(path)
    path.write_text("bbbb\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)
    doc = pylon("ws", "changes", "--json", cwd=repo).json()
    assert git(repo, "show", f"{doc['worktree_tree']}:notes.txt") == "bbbb\n"
    assert (
        git(repo, "hash-object", "notes.txt").strip()
        == git(repo, "rev-parse", f"{doc['worktree_tree']}:notes.txt").strip()
    )
