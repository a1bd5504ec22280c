"""SIGKILL inside `ws undo` and `ws redo` at random moments, with work done after the apply: the op
is left `done`, `undoing`/`redoing` (named by `ws status`), or settled, and settling it gives the
same checkout an uninterrupted undo or redo gives: the state before the apply plus the later
work (undo), or the state after the apply plus the later work (redo). states.snapshot is the oracle.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from tests.conftest import sized
from tests.workspace.crash_helpers import killed
from tests.workspace.helpers import pylon
from tests.workspace.states import differences, snapshot
from tests.workspace.test_apply_crash import prepared

LATER = {"later/one.txt": b"written after the apply\n", "later/two.txt": b"also later\n"}


SEEDS = sized(2, 6)  # kills of undo and of redo per seed: 4 by default, 12 in the full tier


def add_later(repo: Path) -> None:
    for rel, data in LATER.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(data)


def drop_later(repo: Path, where: str) -> None:
    for rel, data in LATER.items():
        assert (repo / rel).read_bytes() == data, (where, rel)
        (repo / rel).unlink()
    (repo / "later").rmdir()


def op_changed(repo: Path) -> Callable[[], bool]:
    ref = repo / ".git" / "refs" / "pylon" / "ops" / "00000001"
    first = ref.read_bytes()
    return lambda: ref.read_bytes() != first


def settle(repo: Path, verb: str, where: str) -> str:
    """Bring a killed undo (or redo) to its end the way `ws status` says; what it saw (for a failure's
    message)."""
    status = pylon("ws", "status", "--json", cwd=repo).json()
    ops = pylon("ws", "undo", "--list", "--json", cwd=repo).json()["ops"]
    stuck = status.get("interrupted")
    seen = f"interrupted={stuck and stuck.get('title')!r}, ops={[(o.get('title'), o.get('status')) for o in ops[:3]]}"
    if stuck:
        assert stuck["title"] == "apply s", (where, stuck)
        finished = pylon("ws", "undo", *(["--finish"] if verb == "redo" else []), "--json", cwd=repo)
        assert finished.code == 0, (where, finished)
    elif ops[0]["status"] == ("done" if verb == "undo" else "undone"):  # killed before it began: again
        again = pylon("ws", verb, "--json", cwd=repo)
        assert again.code == 0, (where, again)
    return seen


def test_sigkill_during_undo_and_redo_keeps_later_work(tmp_path: Path) -> None:
    repo, _ = prepared(tmp_path / "m", 999, edits_after=False)  # one uninterrupted round for the length of each
    assert pylon("ws", "apply", "s", cwd=repo).code == 0
    start = time.monotonic()
    assert pylon("ws", "undo", cwd=repo).code == 0
    span = time.monotonic() - start
    tally: dict[str, int] = {}
    for seed in range(SEEDS):
        repo, rng = prepared(tmp_path, seed, edits_after=False)
        before = snapshot(repo)
        assert pylon("ws", "apply", "s", cwd=repo).code == 0
        add_later(repo)
        after = snapshot(repo)
        verb = "undo"
        for verb in ("undo", "redo"):
            where = f"seed {seed}, {verb}"
            late = rng.random() < 0.7
            delay = rng.uniform(0.0, span * (0.6 if late else 1.2))
            code, took = killed(["ws", verb], repo, delay, after=op_changed(repo) if late else None, group=True)
            kind = "finished" if code is not None else "killed"
            tally[f"{verb} {kind}"] = tally.get(f"{verb} {kind}", 0) + 1
            where += f" ({kind} after {took:.3f} s; {settle(repo, verb, where)})"
            if verb == "undo":
                drop_later(repo, where)
                assert differences(before, snapshot(repo)) == [], where
                add_later(repo)
            else:
                assert differences(after, snapshot(repo)) == [], where
    assert sum(tally.values()) == 2 * SEEDS, tally
