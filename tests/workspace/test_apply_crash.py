"""SIGKILL inside `pylon ws apply` at random moments: `ws status` names the interrupted apply and
`ws undo` gives back the exact state before (0 differences, states.snapshot as the oracle).

The kill goes to the whole process group (pylon and the git processes it started), as a crash or
`kill -9` of a terminal's job would: a git child left running could finish the work and hide a
half-done state. The moments are spread over the measured duration of an uninterrupted apply of
the same change, so they fall before the intent, during the writes and after completion.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import script
from tests.workspace.helpers import pylon
from tests.workspace.states import Maker, build, differences, git, mutate, snapshot
from tests.workspace.wt_helpers import new


def prepared(folder: Path, seed: int) -> tuple[Path, random.Random]:
    """A checkout with random dirty state and a session with a big random change (many files, so
    the writes take long enough to be hit)."""
    rng = random.Random(seed)
    repo = build(folder / f"c{seed}", rng)
    mutate(repo, rng, rng.randint(0, 4))
    path = Path(str(new(repo, "s")["path"]))
    make = Maker(path, rng)
    for _ in range(rng.randint(80, 160)):
        make.write(make.fresh())
    mutate(path, rng, rng.randint(1, 6), commit=True, make=make)
    mutate(repo, rng, rng.randint(0, 3))
    return repo, rng


def apply_killed_after(repo: Path, delay: float) -> tuple[int | None, float]:
    """Start `ws apply s`, SIGKILL its process group after `delay` s; (exit code or None, duration)."""
    start = time.monotonic()
    proc = subprocess.Popen([script("pylon"), "ws", "apply", "s", "--json"], cwd=repo, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        code = proc.wait(timeout=delay)
        return code, time.monotonic() - start
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return None, time.monotonic() - start


def undo_count(repo: Path) -> int:
    return len(git(repo, "for-each-ref", "refs/pylon/ops/").splitlines())


def crash_round(folder: Path, seed: int, duration: float) -> str:
    repo, rng = prepared(folder, seed)
    before = snapshot(repo)
    delay = rng.uniform(0.0, duration * 1.2)
    code, _ = apply_killed_after(repo, delay)
    where = f"seed {seed}: killed after {delay:.3f} s (exit {code})"
    status = pylon("ws", "status", "--json", cwd=repo).json()
    stuck = status.get("interrupted")
    if undo_count(repo) == 0:  # killed before the intent was written: nothing may have changed
        assert code is None and differences(before, snapshot(repo)) == [], where
        return "before-intent"
    ops = pylon("ws", "undo", "--list", "--json", cwd=repo).json()["ops"]
    if stuck:
        assert stuck["kind"] == "apply" and stuck["title"] == "apply s", (where, status)
        text = pylon("ws", "status", cwd=repo)
        assert "interrupted: `apply s`" in text.out + text.err and "pylon ws undo" in text.out + text.err, where
    else:
        assert ops[0]["status"] == "done", (where, ops)
    undone = pylon("ws", "undo", "--json", cwd=repo)
    assert undone.code == 0, (where, undone)
    assert differences(before, snapshot(repo)) == [], where
    return "interrupted" if stuck else "completed"


def measured(folder: Path) -> float:
    """Wall time of one uninterrupted apply of a change like the ones killed."""
    repo, _ = prepared(folder, 999)
    code, took = apply_killed_after(repo, 120)
    assert code == 0
    return took


def test_sigkill_during_apply_fast(tmp_path: Path) -> None:
    duration = measured(tmp_path / "m")
    outcomes = [crash_round(tmp_path, seed, duration) for seed in range(8)]
    assert len(outcomes) == 8


@pytest.mark.slow
def test_sigkill_during_apply_100(tmp_path: Path) -> None:
    duration = measured(tmp_path / "m")
    outcomes = [crash_round(tmp_path, seed, duration) for seed in range(1000, 1100)]
    tally = {k: outcomes.count(k) for k in set(outcomes)}
    print(f"\n100 kills inside ws apply (apply takes {duration:.2f} s): {tally}")
    assert tally.get("interrupted", 0) > 0, tally
