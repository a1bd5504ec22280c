"""Every capture records permission bits and empty folders (exact_quick.py) without walking the
checkout: a randomized differential test against `find` (exact.scan, the walk named baselines use)
after chmods, new files made with odd bits, files deleted, rewritten in place or replaced by
rename, folders made empty, filled, removed, and `git add`/`commit` between captures."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

from pylon.workspace import exact, exact_quick
from pylon.workspace.repo import locate
from pylon.workspace.state import capture
from tests.conftest import MakeRepo, git, sized
from tests.workspace.helpers import pylon

MODES = (0o600, 0o640, 0o700, 0o644, 0o755, 0o664, 0o444)


def walked(root: Path, tree: str) -> dict[str, object]:
    return exact.meta_for(str(root), tree, exact.scan(str(root)))


def step(root: Path, rng: random.Random, n: int) -> None:
    files = [p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts]
    dirs = [p for p in root.rglob("*") if p.is_dir() and ".git" not in p.parts]
    kind = rng.choice(
        ["chmod", "chmod", "new", "delete", "edit", "rename", "mkdir", "rmdir", "fill", "touch", "add", "ignored"]
    )
    if kind == "chmod" and files:
        os.chmod(rng.choice(files), rng.choice(MODES))
    elif kind == "new":
        folder = rng.choice([root, *dirs])
        path = folder / f"n{n}.txt"
        path.write_text(f"{n}\n")
        os.chmod(path, rng.choice(MODES))
    elif kind == "delete" and files:
        rng.choice(files).unlink()
    elif kind == "edit" and files:
        path = rng.choice(files)
        os.chmod(path, 0o644 | (path.stat().st_mode & 0o777))
        with open(path, "a") as fh:
            fh.write(f"edit {n}\n")
    elif kind == "rename" and files:  # an editor's save: a new file renamed over the old one
        path = rng.choice(files)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(f"saved {n}\n")
        os.chmod(tmp, rng.choice(MODES))
        os.replace(tmp, path)
    elif kind == "mkdir":
        (rng.choice([root, *dirs]) / f"e{n}" / "inner").mkdir(parents=True)
    elif kind == "rmdir":
        empty = [d for d in dirs if not any(d.iterdir())]
        if empty:
            rng.choice(empty).rmdir()
    elif kind == "fill":
        empty = [d for d in dirs if not any(d.iterdir())]
        if empty:
            (rng.choice(empty) / f"f{n}").write_text("x\n")
    elif kind == "touch" and files:
        os.utime(rng.choice(files), (n * 1000.0, n * 1000.0))
    elif kind == "add":
        git(root, "add", "-A")
        if rng.random() < 0.5:
            git(root, "commit", "-q", "-m", f"c{n}", "--allow-empty")
    elif kind == "ignored":
        (root / "build" / f"b{n}").mkdir(parents=True, exist_ok=True)  # ignored: never recorded
        (root / "build" / f"b{n}.o").write_text("o\n")
        os.chmod(root / "build" / f"b{n}.o", 0o600)


@pytest.mark.parametrize("seed", range(sized(2, 10)))
def test_every_capture_records_what_find_sees(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    repo = make_repo(files={"a.txt": "a\n", "src/b.py": "b\n", "src/deep/c.py": "c\n", ".gitignore": "build/\n"})
    walks: list[tuple[Any, ...]] = []
    real_start = exact.start

    def start(*a: Any, **k: Any) -> Any:
        walks.append(a)
        return real_start(*a, **k)

    monkeypatch.setattr(exact_quick.exact, "start", start)
    rng = random.Random(seed)
    co = locate(str(repo))
    rounds = sized(25, 120)
    walked_here = 0
    for n in range(rounds):
        for _ in range(rng.randint(1, 3)):
            step(repo, rng, n)
        seen = len(walks)
        state = capture(co)
        walked_here += len(walks) - seen
        got = exact.decode(state.meta_raw or "")
        assert got == walked(repo, state.worktree), (seed, n)
    # the walk ran for the first capture and after the real index changed, not every time
    assert walked_here < rounds * 0.6, walked_here


def test_the_quick_baseline_is_exact_and_restores(make_repo: MakeRepo) -> None:
    """`ws baseline` (the `last` one) keeps 600/640/700 bits and empty folders: `ws restore last`
    brings them back after they were changed."""
    repo = make_repo(files={"a.txt": "a\n", "conf/b.ini": "b\n"})
    assert pylon("ws", "baseline", cwd=repo).code == 0  # warm: the record exists
    os.chmod(repo / "a.txt", 0o600)
    os.chmod(repo / "conf/b.ini", 0o640)
    (repo / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(repo / "run.sh", 0o700)
    (repo / "empty" / "deeper").mkdir(parents=True)
    assert pylon("ws", "baseline", cwd=repo).code == 0
    os.chmod(repo / "a.txt", 0o644)
    os.chmod(repo / "conf/b.ini", 0o644)
    os.chmod(repo / "run.sh", 0o755)
    (repo / "empty" / "deeper").rmdir()
    (repo / "empty").rmdir()
    done = pylon("ws", "restore", "last", cwd=repo)
    assert done.code == 0, done
    assert {p: os.lstat(repo / p).st_mode & 0o7777 for p in ("a.txt", "conf/b.ini", "run.sh")} == {
        "a.txt": 0o600,
        "conf/b.ini": 0o640,
        "run.sh": 0o700,
    }
    assert (repo / "empty" / "deeper").is_dir()


def test_a_baseline_vouched_by_a_running_watcher_records_bits_too(make_repo: MakeRepo) -> None:
    import subprocess
    import time

    from tests.conftest import script

    repo = make_repo(files={"a.txt": "a\n"})
    proc = subprocess.Popen(
        [script("pylon"), "ws", "watch", "--debounce", "0.1", "--timeout", "20"],
        cwd=repo,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stderr is not None and "watching" in proc.stderr.readline().decode()
        os.chmod(repo / "a.txt", 0o600)
        (repo / "empty").mkdir()
        deadline = time.time() + 15
        doc: dict[str, object] = {}
        want = {"m": {"600": ["a.txt"]}, "d": ["empty"], "dm": {}}
        while time.time() < deadline:  # until the watcher has seen both changes (it used to wait out the 15 s)
            doc = pylon("ws", "baseline", "--json", cwd=repo).json()
            meta = exact.decode(git(repo, "cat-file", "commit", str(doc["commit"])).split("pylon-meta: ")[-1])
            if doc["source"] == "watch" and meta == want:
                break
            time.sleep(0.2)
        assert doc["source"] == "watch", doc
        assert meta == want, meta
    finally:
        proc.terminate()
        proc.wait(timeout=30)
