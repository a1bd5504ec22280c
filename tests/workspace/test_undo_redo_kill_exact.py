"""SIGKILL inside `ws undo` and `ws redo` at random moments, on a checkout with 600/640/700 files,
empty folders and a symlink, with work done after the apply (odd bits and an empty folder too).
Right after each kill, and after the command `ws status` names settles it either way (`ws undo`
resumes a killed undo or reverses a killed redo; `ws undo --finish` reverses a killed undo or
completes a killed redo: it always leaves the op in effect), the checkout is exactly the state that
command names, never a mix. Oracle: os.lstat of every entry (folders
included), `git ls-files -s`, HEAD and branch."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git, sized
from tests.workspace.crash_helpers import killed
from tests.workspace.helpers import pylon
from tests.workspace.ops_helpers import entries
from tests.workspace.test_apply_crash import prepared


def changed_from(ref: Path, first: bytes) -> Callable[[], bool]:
    """A kill's moment: once the ref no longer holds `first` (bound now, not at the loop's end)."""
    return lambda: ref.read_bytes() != first


def view(repo: Path) -> tuple[Any, ...]:
    return (
        entries(repo),
        git(repo, "ls-files", "-s"),
        git(repo, "rev-parse", "-q", "--verify", "HEAD", check=False),
        git(repo, "symbolic-ref", "-q", "HEAD", check=False),
    )


def odd(repo: Path) -> None:
    tracked = sorted(
        p for p in git(repo, "ls-files").splitlines() if (repo / p).is_file() and not (repo / p).is_symlink()
    )
    for rel, bits in zip(tracked[:3], (0o600, 0o640, 0o700)):
        os.chmod(repo / rel, bits)
    (repo / "empty-kept" / "deeper").mkdir(parents=True, exist_ok=True)
    if not (repo / "a-link").is_symlink():
        os.symlink(tracked[0], repo / "a-link")


def later(repo: Path) -> None:
    (repo / "later-secret.txt").write_text("after the apply\n")
    os.chmod(repo / "later-secret.txt", 0o640)
    (repo / "later-empty").mkdir(exist_ok=True)


def settle(repo: Path, rng: random.Random) -> str:
    """Settle whatever the kill left, the way `ws status` says, picking one way at random."""
    stuck = pylon("ws", "status", "--json", cwd=repo).json().get("interrupted")
    if not stuck:
        return "none"
    assert stuck["finish"] != stuck["reverse"], stuck
    way = rng.choice(["undo", "finish"])
    command = stuck["finish"] if (way == "finish") == (stuck["status"] != "undoing") else stuck["reverse"]
    assert command == "pylon ws undo" + (" --finish" if way == "finish" else ""), stuck
    done = pylon("ws", "undo", *(["--finish"] if way == "finish" else []), cwd=repo)
    assert done.code == 0, (way, done)
    return way


@pytest.mark.parametrize("seed", range(sized(1, 4)))
def test_killed_undo_and_redo_leave_one_state_or_the_other(tmp_path: Path, seed: int) -> None:
    repo, rng = prepared(tmp_path, seed, edits_after=False)
    odd(repo)
    before = view(repo)
    assert pylon("ws", "apply", "s", cwd=repo).code == 0
    later(repo)
    applied = view(repo)
    start = time.monotonic()
    assert pylon("ws", "undo", cwd=repo).code == 0
    span = time.monotonic() - start
    undone = view(repo)
    assert undone[0] == {**before[0], **{k: v for k, v in applied[0].items() if k.startswith("later")}}
    assert pylon("ws", "redo", cwd=repo).code == 0
    assert view(repo) == applied
    tally: dict[str, int] = {}
    for n in range(sized(2, 20)):
        for verb, was, goal in (("undo", applied, undone), ("redo", undone, applied)):
            late = rng.random() < 0.7  # most kills among the writes: after the op turned undoing/redoing
            ref = repo / ".git" / "refs" / "pylon" / "ops" / "00000001"
            first = ref.read_bytes()
            code, _ = killed(
                ["ws", verb],
                repo,
                rng.uniform(0.0, span * (0.1 if late else 1.1)),
                group=True,
                after=changed_from(ref, first) if late else None,
            )
            now = view(repo)
            if code is None:  # the kill landed: settled either way, never a mix
                way = settle(repo, rng)
                if way == "none":
                    assert view(repo) in (was, goal), (seed, n, verb, way)
                else:  # `ws undo` ends with the op undone, `--finish` with it in effect (ws status says so)
                    assert view(repo) == (goal if (verb == "undo") == (way == "undo") else was), (seed, n, verb, way)
                tally[f"{verb} killed, {way}"] = tally.get(f"{verb} killed, {way}", 0) + 1
            else:
                assert code == 0 and now == goal, (seed, n, verb, code)
                tally[f"{verb} finished"] = tally.get(f"{verb} finished", 0) + 1
            if view(repo) != goal:  # reversed (or never begun): on to the goal, as a user would
                again = pylon("ws", verb, cwd=repo)
                assert again.code == 0, again
                assert view(repo) == goal, (seed, n, verb)
    print("kills:", sorted(tally.items()))
    assert sum(tally.values()) == 2 * sized(2, 20), tally
