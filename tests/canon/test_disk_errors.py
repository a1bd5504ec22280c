"""Disk full, read-only file systems, read-only articles, long names and killed writes: coded
errors, and nothing left behind."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article, snapshot
from tests.conftest import MakeRepo, Run


@pytest.fixture
def small_tmpfs(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "fs"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_a_full_disk_is_a_coded_error_and_leaves_nothing(run: Run, small_tmpfs: Path) -> None:
    project = small_tmpfs / "p"
    project.mkdir()
    filler = small_tmpfs / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(fd, b"x" * 1024):
            pass
    except OSError:
        pass  # full
    finally:
        os.close(fd)
    r = run("canon", "write", "--json", "a", "--body", "x" * 20000, cwd=project)
    assert r.code == 1 and r.json()["error"]["code"] == "disk-full", r
    assert list(project.iterdir()) == []


def test_a_read_only_file_system_is_permission_and_leaves_nothing(run: Run, small_tmpfs: Path) -> None:
    project = small_tmpfs / "p"
    project.mkdir()
    subprocess.run(["mount", "-o", "remount,ro", str(small_tmpfs)], check=True)
    r = run("canon", "write", "--json", "a", "--body", "x", cwd=project)
    assert r.code == 1 and r.json()["error"]["code"] == "permission", r
    assert list(project.iterdir()) == []


def test_a_read_only_article_is_refused(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"a": article("A.")})
    path = root / ".canon/articles/a.md"
    os.chmod(path, 0o444)
    before = snapshot(root)
    r = run("canon", "write", "--json", "a", "--body", "Replaced.", cwd=root)
    assert r.code == 1 and r.json()["error"]["code"] == "permission", r
    assert snapshot(root) == before


def test_a_name_over_255_bytes_is_refused_before_anything_is_created(run: Run, project: Path) -> None:
    r = run("canon", "write", "--json", "src/" + "é" * 130, "--body", "x", cwd=project)
    assert r.code == 2 and r.json()["error"]["code"] == "name-too-long", r
    assert list(project.iterdir()) == []


def test_temp_files_of_a_killed_write_are_ignored_reported_and_removed(
    run: Run, make_store: MakeStore, make_repo: MakeRepo
) -> None:
    import subprocess

    root = make_store(articles={"a": article("A.")})
    dead = subprocess.Popen(["true"])
    dead.wait()  # its PID names no running process now
    leftover = root / f".canon/articles/.a.md.pylon-tmp-{dead.pid}-dead"
    leftover.write_text("partial")
    lint = run("canon", "lint", "--json", cwd=root)
    assert [f["rule"] for f in lint.json()["findings"]] == ["temp-file"], lint
    assert run("canon", "map", cwd=root).out == "a: A.\n"
    live = root / f".canon/articles/.a.md.pylon-tmp-{os.getpid()}-live"  # a writer still at work
    live.write_text("partial")
    assert run("canon", "write", "a", "--body", "New.", cwd=root).code == 0
    assert not leftover.exists()
    assert live.exists()  # a live writer's temp file is never pulled from under it
    live.unlink()
    repo = make_repo({"x.txt": "x"})
    assert run("canon", "init", cwd=repo).code == 0
    (repo / ".canon/articles/.b.md.pylon-tmp-1-x").write_text("partial")
    (repo / ".canon/.journal-index.jsonl").write_text("{}\n")
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=repo, capture_output=True, text=True
    ).stdout
    assert "pylon-tmp" not in status and "journal-index" not in status, status
