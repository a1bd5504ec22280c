"""SIGKILL at random moments inside `ws move`, `move --back`, `rm --force` and `restore`.

After each kill: `ws status` names the op when it was interrupted, and `ws undo` (or, for a kill
before the intent was written, nothing at all) gives back the exact prior state, compared with
git's own view and every byte on disk. Half of the interrupted ops are first completed with
`ws undo --finish` and then undone, so both ways out are exercised. The kill goes to pylon's own
process (as `kill -9 <pid>` would); a git child it started runs to its end, and the test waits
for it (tests/workspace/crash_helpers.py). Three quarters of the kills land after the op's intent
is on disk, at moments spread over the rest of the run as measured by the rounds themselves, so
the spread follows the machine's load. The normal suite runs 10 moments per command; the `slow`
run 100 (the issue's bar).
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeRepo, git, sized
from tests.workspace.crash_helpers import Moments, killed, op_refs_above, timed
from tests.workspace.helpers import pylon
from tests.workspace.ops_helpers import diff_snapshots, make_base, mixed_state, snapshot
from tests.workspace.wt_helpers import new

COMMANDS = ["move", "move-back", "rm", "restore"]


def last_seq(repo: Path) -> int:
    ops = pylon("ws", "undo", "--list", "--json", cwd=repo).json()["ops"]
    return int(ops[0]["seq"]) if ops else 0


class Scene:
    """One repository set up for one command; `views()` is what must come back after each kill."""

    def __init__(self, repo: Path, command: str) -> None:
        self.repo, self.command = repo, command
        make_base(repo)
        self.wt = Path(str(new(repo, "a")["path"]))
        mixed_state(self.wt, seed=11, tag="agent")
        (self.wt / "keep.log").unlink()  # ignored files are no part of a state (rm --force loses them by design)
        mixed_state(repo, seed=12, tag="main")
        self.args = {
            "move": ["ws", "move", "a"],
            "move-back": ["ws", "move", "a", "--back"],
            "rm": ["ws", "rm", "a", "--force"],
            "restore": ["ws", "restore", "b1"],
        }[command]
        if command == "move-back":
            assert pylon("ws", "move", "a", cwd=repo).code == 0
        if command == "restore":
            assert pylon("ws", "baseline", "b1", cwd=repo).code == 0
            git(repo, "reset", "-q", "--hard")
            git(repo, "clean", "-qfd")
            mixed_state(repo, seed=13, tag="later")

    def views(self) -> dict[str, Any]:
        return {"main": snapshot(self.repo), "wt": snapshot(self.wt) if self.wt.exists() else None}

    def ops(self) -> Path:
        return self.repo / ".git" / "refs" / "pylon" / "ops"

    def moments(self) -> Moments:
        """Kill moments from one uninterrupted run (then undone, so the scene is as before)."""
        intent, end = timed(self.args, self.repo, op_refs_above(self.ops(), last_seq(self.repo)))
        assert pylon("ws", "undo", cwd=self.repo).code == 0
        return Moments(end, end - intent)


def crash_rounds(repo: Path, command: str, rounds: int, seed: int) -> dict[str, int]:
    scene = Scene(repo, command)
    prior = scene.views()
    moments = scene.moments()
    assert diff_snapshots(scene.views()["main"], prior["main"]) == []
    rnd = random.Random(seed)
    seen = {"before-intent": 0, "interrupted": 0, "finished": 0, "completed": 0}
    before = last_seq(repo)
    for i in range(rounds):
        delay, after_intent = moments.pick(rnd)
        code, took = killed(scene.args, repo, delay, after=op_refs_above(scene.ops(), before) if after_intent else None)
        moments.saw(after_intent, code, took)
        status = pylon("ws", "status", "--json", cwd=repo).json()
        ops = status["ops"]
        new_op = ops[0] if ops and int(ops[0]["seq"]) > before else None
        if new_op is not None:
            before = int(new_op["seq"])
            if status["interrupted"] is not None:
                new_op = dict(new_op, status="interrupted (" + new_op["status"] + ")")
        moment = "intent" if after_intent else "start"
        where = f"round {i}: killed {delay:.3f} s after the {moment} (exit {code}), seed {seed}"
        if new_op is None:
            seen["before-intent"] += 1
            assert status["interrupted"] is None, where
        elif new_op["status"].startswith("interrupted"):
            seen["interrupted"] += 1
            assert status["interrupted"] and status["interrupted"]["seq"] == new_op["seq"], where
            assert status["interrupted"]["reverse"] == "pylon ws undo", where
            if rnd.random() < 0.5:
                finished = pylon("ws", "undo", "--finish", cwd=repo)
                assert finished.code == 0, (where, finished)
                seen["finished"] += 1
            undone = pylon("ws", "undo", cwd=repo)
            assert undone.code == 0, (where, undone)
        else:
            seen["completed"] += 1
            assert new_op["status"] == "done" and status["interrupted"] is None, (where, new_op)
            undone = pylon("ws", "undo", cwd=repo)
            assert undone.code == 0, (where, undone)
        now = scene.views()
        assert diff_snapshots(now["main"], prior["main"]) == [], where
        assert now["wt"] is not None, where
        assert diff_snapshots(now["wt"], prior["wt"]) == [], where
        if command == "rm":
            listed = pylon("ws", "list", "--json", cwd=repo).json()
            assert [w["id"] for w in listed["worktrees"]] == ["a"], (where, listed)
    print(f"{command}: {rounds} kills: {seen}")  # shown with -s: where the kills landed
    return seen


@pytest.mark.parametrize("command", COMMANDS)
def test_sigkill_inside_an_op_loses_nothing(make_repo: MakeRepo, command: str) -> None:
    repo = make_repo(files={"seed.txt": "seed\n"})
    kills = sized(2, 10)
    seen = crash_rounds(repo, command, kills, seed=COMMANDS.index(command))
    assert seen["before-intent"] + seen["interrupted"] + seen["completed"] == kills


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
def test_sigkill_at_100_moments(make_repo: MakeRepo, command: str) -> None:
    repo = make_repo(files={"seed.txt": "seed\n"})
    seen = crash_rounds(repo, command, 100, seed=100 + COMMANDS.index(command))
    assert seen["interrupted"] > 0 and seen["completed"] > 0, seen  # kills landed between intent and done


def undo_rounds(repo: Path, rounds: int, seed: int) -> dict[str, int]:
    """SIGKILL inside `ws undo` of an `rm --force` (the re-creation of the worktree): the next `undo`
    carries on, and the worktree comes back exactly, owned again."""
    scene = Scene(repo, "rm")
    prior = scene.views()
    assert pylon(*scene.args, cwd=repo).code == 0
    start = time.monotonic()
    assert pylon("ws", "undo", cwd=repo).code == 0
    took = time.monotonic() - start
    rnd = random.Random(seed)
    seen = {"not-started": 0, "interrupted": 0, "completed": 0}
    for i in range(rounds):
        assert pylon(*scene.args, cwd=repo).code == 0
        killed(["ws", "undo"], repo, rnd.uniform(0.1 * took, 1.05 * took))
        status = pylon("ws", "status", "--json", cwd=repo).json()
        newest = status["ops"][0]["status"]
        # the window follows the load: later when the kills come too early, sooner when too late
        took *= 1.0 if newest == "undoing" else 1.1 if newest != "undone" else 0.9
        where = f"round {i}, seed {seed}, op status {newest}"
        if newest != "undone":
            seen["interrupted" if newest == "undoing" else "not-started"] += 1
            assert (status["interrupted"] is not None) == (newest == "undoing"), where
            again = pylon("ws", "undo", cwd=repo)
            assert again.code == 0, (where, again)
        else:
            seen["completed"] += 1
        assert diff_snapshots(snapshot(scene.wt), prior["wt"]) == [], where
        assert [w["id"] for w in pylon("ws", "list", "--json", cwd=repo).json()["worktrees"]] == ["a"], where
    print(f"undo of rm: {rounds} kills: {seen}")
    return seen


def test_sigkill_inside_undo_of_rm(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"seed.txt": "seed\n"})
    rounds = sized(2, 6)  # the 40-round test beside it is `slow`
    seen = undo_rounds(repo, rounds, seed=7)
    assert sum(seen.values()) == rounds


@pytest.mark.slow
def test_sigkill_inside_undo_of_rm_many(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"seed.txt": "seed\n"})
    seen = undo_rounds(repo, 40, seed=70)
    assert seen["interrupted"] > 0, seen
