"""SIGKILL inside `pylon ws apply` at random moments: `ws status` names the interrupted apply and
`ws undo` gives back the exact state before (0 differences, states.snapshot as the oracle).

The kill goes to the whole process group, as killing a terminal's job would. The git commands that
hold a lock run in a group of their own (pylon/workspace/git.py), so each finishes its one step; the test
waits for them, then looks. The moments are spread over an uninterrupted apply of the same kind of
change and then follow the rounds (tests/workspace/crash_helpers.py), so they fall before the
intent, during the writes and after completion.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.conftest import sized
from tests.workspace.crash_helpers import Moments, killed, op_refs_above, timed
from tests.workspace.helpers import pylon
from tests.workspace.states import Maker, build, differences, git, mutate, snapshot
from tests.workspace.wt_helpers import new


def prepared(folder: Path, seed: int, *, edits_after: bool = True) -> tuple[Path, random.Random]:
    """A checkout with random dirty state and a session with a big random change (many files, so
    the writes take long enough to be hit); `edits_after`: the checkout changes again after the
    session started (an apply may then conflict)."""
    rng = random.Random(seed)
    repo = build(folder / f"c{seed}", rng)
    mutate(repo, rng, rng.randint(0, 4))
    path = Path(str(new(repo, "s")["path"]))
    make = Maker(path, rng)
    for _ in range(rng.randint(80, 160)):
        make.write(make.fresh())
    mutate(path, rng, rng.randint(1, 6), commit=True, make=make)
    if edits_after:
        mutate(repo, rng, rng.randint(0, 3))
    return repo, rng


def apply_killed(repo: Path, delay: float, after_intent: bool) -> tuple[int | None, float]:
    """`ws apply s`, its process group SIGKILLed `delay` s after the start (or after the op's intent
    appeared, so the kill lands among the writes): (exit code or None when killed, the time from
    that start point to the end of the process)."""
    intent = op_refs_above(repo / ".git" / "refs" / "pylon" / "ops", 0)
    return killed(["ws", "apply", "s", "--json"], repo, delay, after=intent if after_intent else None, group=True)


def undo_count(repo: Path) -> int:
    return len(git(repo, "for-each-ref", "refs/pylon/ops/").splitlines())


def crash_round(folder: Path, seed: int, moments: Moments) -> str:
    repo, rng = prepared(folder, seed)
    before = snapshot(repo)
    delay, after_intent = moments.pick(rng)
    code, took = apply_killed(repo, delay, after_intent)
    moments.saw(after_intent, code, took)
    where = f"seed {seed}: killed {delay:.3f} s after the {'intent' if after_intent else 'start'} (exit {code})"
    changed = bool(differences(before, snapshot(repo)))  # did the kill leave files changed (half-written)?
    status = pylon("ws", "status", "--json", cwd=repo).json()
    stuck = status.get("interrupted")
    if undo_count(repo) == 0:  # killed before the intent was written, or refused (a conflict): nothing changed
        assert code in (None, 1) and differences(before, snapshot(repo)) == [], where
        return "before-intent" if code is None else "refused"
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
    if not stuck:
        return "completed"
    return "interrupted, files changed" if changed else "interrupted, nothing written yet"


def measured(folder: Path) -> Moments:
    """Kill moments from one uninterrupted apply of a change like the ones killed."""
    repo, _ = prepared(folder, 999)
    intent, end = timed(["ws", "apply", "s"], repo, op_refs_above(repo / ".git" / "refs" / "pylon" / "ops", 0))
    return Moments(end, end - intent)


def test_sigkill_during_apply_fast(tmp_path: Path) -> None:
    moments = measured(tmp_path / "m")
    rounds = sized(3, 8)
    outcomes = [crash_round(tmp_path, seed, moments) for seed in range(rounds)]
    assert len(outcomes) == rounds


@pytest.mark.slow
def test_sigkill_during_apply_100(tmp_path: Path) -> None:
    moments = measured(tmp_path / "m")
    first = (moments.end, moments.writes)
    outcomes = [crash_round(tmp_path, seed, moments) for seed in range(1000, 1100)]
    tally = {k: outcomes.count(k) for k in set(outcomes)}
    print(f"\n100 kills inside ws apply (first run {first[0]:.3f} s, {first[1]:.3f} s after the intent): {tally}")
    assert tally.get("interrupted, files changed", 0) > 0, tally


def test_apply_waits_for_an_interrupted_op_to_be_settled(tmp_path: Path) -> None:
    # The kill follows the intent by one poll; on a loaded host the apply can finish its writes first
    # (then it exits 0, or the kill lands after its op is done): then the next seed's checkout is
    # tried (the interrupted op, not the race, is what this test is about).
    for seed in range(5, 10):
        repo, _ = prepared(tmp_path, seed)
        before = snapshot(repo)
        if (
            apply_killed(repo, 0.0, after_intent=True)[0] is None
            and pylon("ws", "status", "--json", cwd=repo).json()["interrupted"]
        ):
            break
    else:
        pytest.fail("in five applies, no kill sent right after the intent landed before the op was done")
    refused = pylon("ws", "apply", "s", "--json", cwd=repo)
    assert refused.code == 1 and refused.json()["error"]["code"] == "op-interrupted", refused
    assert "pylon ws undo" in refused.json()["error"]["hint"]
    finished = pylon("ws", "undo", "--finish", "--json", cwd=repo)
    assert finished.code == 0, finished
    applied = snapshot(repo)
    assert applied["index"] == before["index"] and applied["head"] == before["head"]
    assert pylon("ws", "apply", "s", "--json", cwd=repo).json()["applied"] is False  # finished: nothing left to apply
    assert pylon("ws", "undo", "--json", cwd=repo).code == 0
    assert differences(before, snapshot(repo)) == []
