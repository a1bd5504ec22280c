"""`pylon ws cat`: confined reads; every escape in the spec is refused (`path-outside`, `path-refused`...)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.workspace.helpers import git, pylon, write_files


def test_reads_a_file_relative_to_the_current_folder(repo: Path) -> None:
    r = pylon("ws", "cat", "app.py", cwd=repo / "src")
    assert r.code == 0 and r.out == "print('hello')\n" and r.err == ""
    j = pylon("ws", "cat", "src/app.py", "--json", cwd=repo).json()
    assert j["content"] == "print('hello')\n" and j["size"] == 15 and j["truncated"] is False


CODE_OF = {
    "absolute": ("path-outside", 2),
    "dotdot": ("path-outside", 2),
    "symlink-outside": ("path-outside", 2),
    "git-dir": ("path-refused", 1),
    "directory": ("is-directory", 1),
    "special-file": ("not-regular", 1),
    "symlink-loop": ("symlink-loop", 1),
}


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/etc/passwd", "absolute"),
        ("../outside.txt", "dotdot"),
        ("src/../README.md", "dotdot"),
        (".git/config", "git-dir"),
        (".GIT/HEAD", "git-dir"),
        ("src", "directory"),
    ],
)
def test_lexical_refusals(repo: Path, path: str, reason: str) -> None:
    r = pylon("ws", "cat", path, "--json", cwd=repo)
    code, status = CODE_OF[reason]  # one code per fault, the same as every other command's
    assert r.code == status, r
    err = r.json()["error"]
    assert err["code"] == code and err["reason"] == reason
    assert err["hint"]


def test_symlinks_fifos_and_git_files(repo: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("secret\n")
    os.symlink(secret, repo / "out-link")
    os.symlink("../" * 10 + "etc/passwd", repo / "rel-link")
    os.symlink(".git/config", repo / "git-link")
    os.symlink("src/app.py", repo / "ok-link")
    os.mkfifo(repo / "pipe")
    for name, reason in (
        ("out-link", "symlink-outside"),
        ("rel-link", "symlink-outside"),
        ("git-link", "git-dir"),
        ("pipe", "special-file"),
    ):
        r = pylon("ws", "cat", name, "--json", cwd=repo, timeout=20)
        assert r.code == CODE_OF[reason][1], (name, r)
        assert r.json()["error"]["reason"] == reason and r.json()["error"]["code"] == CODE_OF[reason][0], name
    ok = pylon("ws", "cat", "ok-link", cwd=repo)
    assert ok.code == 0 and ok.out == "print('hello')\n"
    text = pylon("ws", "cat", "out-link", cwd=repo)
    assert "error[path-outside]" in text.err and "secret" not in text.out


def test_dot_git_file_of_a_linked_worktree(repo: Path, tmp_path: Path) -> None:
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "--detach", str(wt))
    r = pylon("ws", "cat", ".git", "--json", cwd=wt)
    assert r.code == 1 and r.json()["error"]["reason"] == "git-dir"


def test_binary_is_reported_not_printed_and_cap(repo: Path) -> None:
    write_files(repo, {"bin.dat": b"abc\x00def", "big.txt": "0123456789\n" * 1000})
    b = pylon("ws", "cat", "bin.dat", cwd=repo)
    assert b.code == 0 and b.out == "" and "binary file" in b.err
    assert pylon("ws", "cat", "bin.dat", "--json", cwd=repo).json()["binary"] is True
    cut = pylon("ws", "cat", "big.txt", "--max-bytes", "100", cwd=repo)
    assert cut.code == 0 and len(cut.out) == 100
    assert "cut at 100 bytes of 10.7 KiB" in cut.err and "--max-bytes 11000" in cut.err


def test_missing_file_and_base_version(repo: Path) -> None:
    missing = pylon("ws", "cat", "nope.txt", cwd=repo)
    assert missing.code == 1 and "error[not-found]" in missing.err
    assert pylon("ws", "baseline", cwd=repo).code == 0
    write_files(repo, {"src/app.py": "print('new')\n", "later.txt": "l\n"})
    base = pylon("ws", "cat", "src/app.py", "--base", cwd=repo)
    assert base.code == 0 and base.out == "print('hello')\n"
    assert pylon("ws", "cat", "src/app.py", cwd=repo).out == "print('new')\n"
    nobase = pylon("ws", "cat", "later.txt", "--base", cwd=repo)
    assert nobase.code == 1 and "does not exist in last" in nobase.err
    refused = pylon("ws", "cat", "../x", "--base", cwd=repo)
    assert refused.code == 2 and "error[path-outside]" in refused.err


def test_symlinks_inside_are_walked_by_pylon(repo: Path) -> None:
    os.symlink("src", repo / "src-link")  # a folder link that stays inside
    os.symlink(str(repo / "docs" / "guide.txt"), repo / "abs-inside")  # absolute, but inside
    os.symlink("../README.md", repo / "src" / "up")  # `..` inside a target, staying inside
    os.symlink("loop-b", repo / "loop-a")
    os.symlink("loop-a", repo / "loop-b")
    assert pylon("ws", "cat", "src-link/app.py", cwd=repo).out == "print('hello')\n"
    assert pylon("ws", "cat", "abs-inside", cwd=repo).out == "one\ntwo\nthree\n"
    assert pylon("ws", "cat", "src/up", cwd=repo).out == "# demo\n"
    loop = pylon("ws", "cat", "loop-a", "--json", cwd=repo).json()
    assert loop["error"]["code"] == "symlink-loop" and loop["error"]["reason"] == "symlink-loop"
    on_file = pylon("ws", "cat", "README.md/x", "--json", cwd=repo).json()
    assert on_file["error"]["code"] == "not-found"


def test_limits_are_checked_before_reading(repo: Path) -> None:
    sparse = repo / "sparse.bin"
    with open(sparse, "wb") as fh:
        fh.truncate(2 * 1024**3)  # 2 GiB of holes: reading it all would take seconds and GBs
    r = pylon("ws", "cat", "sparse.bin", "--max-bytes", str(4 * 1024**3), "--json", cwd=repo)
    doc = r.json()  # bytes_read 0: the size was checked before any byte was read (no wall-clock bound)
    assert doc["binary"] is True and doc["size"] == 2 * 1024**3 and doc["bytes_read"] == 0
    # the same file in a baseline: the size comes from git before any byte is read
    write_files(repo, {"zeros.bin": b"\0" * 3_000_000, "text.txt": "abc\n" * 100_000})
    git(repo, "add", "zeros.bin", "text.txt")
    git(repo, "commit", "-q", "-m", "big")
    base = pylon("ws", "cat", "zeros.bin", "--base", "--since", "HEAD", "--json", cwd=repo).json()
    assert base["binary"] is True and base["size"] == 3_000_000
    cut = pylon("ws", "cat", "text.txt", "--base", "--since", "HEAD", "--max-bytes", "10", "--json", cwd=repo).json()
    assert cut["content"] == "abc\nabc\nab" and cut["truncated"] is True and cut["size"] == 400_000
