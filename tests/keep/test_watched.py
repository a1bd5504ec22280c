"""With `pylon ws watch` running, the keep before and after a shell command takes the watcher's
vouched state instead of scanning the tree (kept.py `_vouched`), and what it keeps is still whole:
`ws undo` gives back the tree, ignored files included, exactly. The oracle is git and the file
system (hookpath.whole_state); the count of scans is read from git's own trace (GIT_TRACE)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import MakeRepo, run_cmd, write_files
from tests.keep.hookpath import run_through_hooks, whole_state
from tests.workspace.test_watch import _start

FILES = {
    "src/app.py": "x = 1\n",
    "src/lib.py": "y = 2\n",
    "README.md": "readme\n",
    ".gitignore": ".env\nbuild/\n*.log\n",
}


@pytest.fixture
def repo(make_repo: MakeRepo) -> Path:
    root: Path = make_repo(FILES)
    write_files(root, {"notes.txt": "untracked\n", ".env": "SECRET=1\n", "build/out.o": "obj\n"})
    return root


def vouched(repo: Path, path: str | None = None, seconds: float = 20.0) -> None:
    """Wait until the watcher vouches for the tree as it is now (with `path` changed in it)."""
    deadline = time.monotonic() + seconds
    doc: dict[str, object] = {}
    while time.monotonic() < deadline:
        doc = run_cmd("pylon", "ws", "changes", "--since", "HEAD", "--json", cwd=repo).json()
        files = doc.get("files")
        named = [f.get("path") for f in files] if isinstance(files, list) else []
        if doc.get("source") == "watch" and (path is None or path in named):
            return
        time.sleep(0.1)
    raise AssertionError(f"the watcher never vouched: {doc}")


def users(repo: Path) -> dict[str, object]:
    """whole_state without pylon's own refs (the watcher anchors each state it reads in
    refs/pylon/current, so that ref moves while it watches)."""
    state = whole_state(repo)
    refs = str(state["refs"])
    state["refs"] = "".join(line for line in refs.splitlines(keepends=True) if not line.startswith("refs/pylon/"))
    return state


def stop(watcher: subprocess.Popen[bytes]) -> None:
    watcher.terminate()
    watcher.communicate(timeout=30)


def scans(trace: Path) -> int:
    """The `git status` runs in git's trace: the keep's scan of the tree."""
    text = trace.read_text(errors="replace") if trace.exists() else ""
    return sum(1 for line in text.splitlines() if "built-in: git" in line and " status " in line)


def test_a_watched_checkout_is_kept_without_a_scan_and_undone_exactly(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    watcher = _start(repo, "--timeout", "90")
    try:
        vouched(repo)
        run_through_hooks(repo, "true")  # the first keep reads the ignored files once
        trace = tmp_path / "git-trace.txt"
        monkeypatch.setenv("GIT_TRACE", str(trace))
        # a command that changes nothing: kept before and after from the watcher's vouch
        _answer, ran = run_through_hooks(repo, "cat README.md src/app.py")
        assert ran is not None and ran.returncode == 0
        assert run_cmd("pylon", "ws", "log", "--json", cwd=repo).code == 0  # waits for the capture
        assert scans(trace) == 0, trace.read_text(errors="replace")
        monkeypatch.delenv("GIT_TRACE")

        # an ignored file made between commands, then a command that removes it with the rest
        write_files(repo, {"build/late.o": "late\n"})
        (repo / ".env").write_text("SECRET=2\n")  # an ignored file changed in place
        vouched(repo)
        before = users(repo)
        _answer, ran = run_through_hooks(repo, "rm -rf src build .env && echo new > made.txt")
        assert ran is not None and ran.returncode == 0
        assert not (repo / "build").exists()
        undone = run_cmd("pylon", "ws", "undo", cwd=repo)
        assert undone.code == 0, undone
        assert users(repo) == before
        assert (repo / "build" / "late.o").read_text() == "late\n"
        assert (repo / ".env").read_text() == "SECRET=2\n"
    finally:
        stop(watcher)


def test_a_vouch_older_than_the_last_keep_is_not_trusted_for_ignored_files(repo: Path) -> None:
    """The keep reads the ignored files again whenever the watcher vouched anew since the last keep:
    an ignored file the watcher saw made in a folder that is not ignored (`src/run.log`) is kept,
    though the tree git tracks is the same and no ignored folder changed."""
    watcher = _start(repo, "--timeout", "90")
    try:
        vouched(repo)
        run_through_hooks(repo, "true")
        write_files(repo, {"src/run.log": "0123456789\n"})
        time.sleep(0.5)  # past the watcher's settling: it vouches anew for the same tracked tree
        vouched(repo)
        before = users(repo)
        _answer, ran = run_through_hooks(repo, "rm -rf src")
        assert ran is not None and ran.returncode == 0
        assert run_cmd("pylon", "ws", "undo", cwd=repo).code == 0
        assert users(repo) == before
        assert (repo / "src" / "run.log").read_text() == "0123456789\n"
    finally:
        stop(watcher)


def test_head_moved_without_a_file_event_is_read_again(repo: Path) -> None:
    """`git reset --soft` moves HEAD and touches no file the watcher sees: the state kept after it
    has the new HEAD (read from the ref files, then git), and `ws undo` puts HEAD back."""
    from tests.conftest import git

    write_files(repo, {"src/app.py": "x = 2\n"})
    git(repo, "commit", "-qam", "second")
    watcher = _start(repo, "--timeout", "90")
    try:
        vouched(repo)
        before = users(repo)
        _answer, ran = run_through_hooks(repo, "git reset -q --soft HEAD~1")
        assert ran is not None and ran.returncode == 0
        assert users(repo)["head"] != before["head"]
        shell = next(
            e for e in run_cmd("pylon", "ws", "log", "--json", cwd=repo).json()["entries"] if e["op_kind"] == "shell"
        )
        assert "HEAD" in shell["changed"], shell  # the state kept after it has the new HEAD, not the vouch's
        undone = run_cmd("pylon", "ws", "undo", cwd=repo)
        assert undone.code == 0, undone
        assert users(repo) == before
    finally:
        stop(watcher)
