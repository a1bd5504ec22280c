"""`pylon ws diff`: git's headers, bounded output with one honest note, --output for all of it."""

from __future__ import annotations

from pathlib import Path

from tests.workspace.helpers import commit_all, git, pylon, write_files


def test_diff_matches_git_diff_for_tracked_changes(repo: Path) -> None:
    write_files(repo, {"src/app.py": "print('hello')\nprint('again')\n", "docs/guide.txt": "one\nTWO\nthree\n"})
    (repo / "src/util.py").chmod(0o755)
    r = pylon("ws", "diff", "--since", "HEAD", cwd=repo)
    assert r.code == 0, r
    assert r.out == git(repo, "diff", "HEAD")
    assert r.err.startswith("pylon: since HEAD (commit ") and len(r.err.splitlines()) == 1


def test_untracked_and_deleted_files_show_as_new_and_deleted(repo: Path) -> None:
    write_files(repo, {"brand new.txt": "hi\n"})
    (repo / "README.md").unlink()
    out = pylon("ws", "diff", cwd=repo).out
    assert "diff --git a/brand new.txt b/brand new.txt\nnew file mode 100644\n" in out
    assert "diff --git a/README.md b/README.md\ndeleted file mode 100644\n" in out


def test_literal_paths_no_glob_magic(repo: Path) -> None:
    write_files(repo, {"glob[ab].txt": "1\n", "globa.txt": "2\n", "sub dir/x.txt": "3\n"})
    out = pylon("ws", "diff", "glob[ab].txt", cwd=repo).out
    assert "glob[ab].txt" in out and "globa.txt" not in out
    sub = pylon("ws", "diff", "x.txt", cwd=repo / "sub dir").out  # relative to the current folder
    assert "b/sub dir/x.txt" in sub and "glob" not in sub
    star = pylon("ws", "diff", "*.txt", cwd=repo)
    assert star.code == 0 and star.out == ""


def test_bounds_cut_at_whole_files_with_one_note(repo: Path) -> None:
    write_files(repo, {f"gen/f{i:02d}.txt": "".join(f"line {j}\n" for j in range(10)) for i in range(30)})
    r = pylon("ws", "diff", "--max-files", "5", cwd=repo)
    assert r.code == 0
    assert r.out.count("diff --git ") == 5
    since, cut = r.err.strip().splitlines()  # what it compares against, then the one cut note
    assert since.startswith("pylon: since HEAD (no baseline, commit ")
    assert "diff cut at 5 of 30 files" in r.err and "25 more files not diffed" in r.err
    assert "pylon ws diff --output FILE" in r.err
    lines = pylon("ws", "diff", "--max-lines", "40", cwd=repo)
    assert lines.out.count("diff --git ") == 2  # each file's patch is 16 lines: 2 fit in 40
    assert len(lines.out.splitlines()) <= 40
    assert "of 28 diffed files" in lines.err or "28" in lines.err
    small = pylon("ws", "diff", "--max-bytes", "100", cwd=repo)
    assert len(small.out.encode()) <= 100 and "the rest of gen/f00.txt" in small.err


def test_out_writes_the_complete_diff(repo: Path, tmp_path: Path) -> None:
    write_files(repo, {f"gen/f{i:03d}.txt": f"{i}\n" for i in range(250)})
    target = tmp_path / "all.diff"
    r = pylon("ws", "diff", "--output", str(target), cwd=repo)
    assert r.code == 0, r
    assert r.out.strip() == str(target)
    assert target.read_text().count("diff --git ") == 250
    bounded = pylon("ws", "diff", cwd=repo)
    assert bounded.out.count("diff --git ") == 200
    assert "50 more files not diffed" in bounded.err
    missing = pylon("ws", "diff", "--output", str(tmp_path / "nope" / "x.diff"), cwd=repo)
    assert missing.code == 2 and "error[bad-out-path]" in missing.err


def test_output_never_replaces_a_fifo_or_device(repo: Path, tmp_path: Path) -> None:
    # `--output /dev/zero` run as root once replaced the machine's /dev/zero with a diff.
    import os
    import stat

    write_files(repo, {"a.txt": "changed\n"})
    fifo = tmp_path / "sink"
    os.mkfifo(fifo)
    for target in (fifo, tmp_path / "link-to-sink"):
        if target.name == "link-to-sink":
            target.symlink_to(fifo)
        r = pylon("ws", "diff", "--output", str(target), cwd=repo, timeout=20)
        assert r.code == 1 and "error[not-regular]" in r.err, r
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_binary_oversize_and_json(repo: Path) -> None:
    write_files(repo, {"img.bin": b"\x00\x89PNG" * 10, "huge.txt": "x" * (1024 * 1024 + 10) + "\n", "a.txt": "a\n"})
    doc = pylon("ws", "diff", "--json", cwd=repo).json()
    assert doc["ok"] is True
    assert "Binary files /dev/null and b/img.bin differ" in doc["diff"]
    assert doc["binary"] == ["img.bin"]
    assert doc["left_out"]["oversize"] == ["huge.txt"] and doc["truncated"] is True
    assert "diff --git a/a.txt b/a.txt" in doc["diff"]
    text = pylon("ws", "diff", cwd=repo)
    assert "1 oversize files (> 1 MiB) skipped" in text.err


def test_diff_since_baseline_shows_only_later_edits(repo: Path) -> None:
    write_files(repo, {"src/app.py": "print('dirty before')\n"})
    assert pylon("ws", "baseline", cwd=repo).code == 0
    write_files(repo, {"docs/guide.txt": "changed later\n"})
    out = pylon("ws", "diff", cwd=repo).out
    assert "docs/guide.txt" in out and "src/app.py" not in out


def test_out_is_a_patch_git_applies_binaries_included(repo: Path, tmp_path: Path) -> None:
    import os
    import shutil

    write_files(repo, {"img.bin": bytes(range(256)) * 8, "gone.bin": b"\x00\x01old"})
    commit_all(repo, "binaries")
    write_files(
        repo,
        {
            "img.bin": bytes(reversed(range(256))) * 8,
            "new.bin": b"\x00new\xff" * 100,
            "src/app.py": "print('changed')\n",
            "added.txt": "a\n",
        },
    )
    os.unlink(repo / "gone.bin")
    os.chmod(repo / "README.md", 0o755)
    target = tmp_path / "all.diff"
    r = pylon("ws", "diff", "--since", "HEAD", "--output", str(target), cwd=repo)
    assert r.code == 0, r
    assert b"GIT binary patch" in target.read_bytes()
    copy = tmp_path / "copy"
    git(tmp_path, "clone", "-q", str(repo), str(copy))  # the committed state, clean
    git(copy, "apply", "--check", str(target))  # the oracle: git accepts the whole patch
    git(copy, "apply", str(target))
    for name in ("img.bin", "new.bin", "src/app.py", "added.txt", "README.md"):
        assert (copy / name).read_bytes() == (repo / name).read_bytes(), name
    assert not (copy / "gone.bin").exists()
    assert os.stat(copy / "README.md").st_mode & 0o111
    shutil.rmtree(copy)
