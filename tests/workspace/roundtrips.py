"""Randomised round trips on real repositories, driven through the installed `pylon`.

Each round picks one of: `ws apply` + `ws undo`, `ws rm --force` + `ws undo`, `ws move` + `ws move
--back`, `ws move` + `ws undo`, after random changes to the checkout and the sessions (states.py).
Every checkout that a round touches must come back with 0 differences as git plumbing and the
file system see it (states.snapshot: `ls-files -s`, HEAD and branch, every file's type, st_mode and
bytes or symlink target, ignored files included). A World is one repository that lives for a
batch of rounds, so states pile up the way they do in real use.
"""

from __future__ import annotations

import random
from pathlib import Path

from tests.conftest import Result
from tests.workspace.apply_oracle import ignored
from tests.workspace.helpers import pylon
from tests.workspace.states import Maker, build, differences, git, mutate, snapshot

KINDS = ("apply-undo", "rm-undo", "move-back", "move-undo")


def unignored(snap: dict[str, object]) -> dict[str, object]:
    """A snapshot without ignored files: `rm` deletes the whole folder, and ignored files are no
    part of a checkout state, so nothing can bring them back (the spec: they are never captured)."""
    found, dirs = snap["files"], snap.get("dirs", {})
    assert isinstance(found, dict) and isinstance(dirs, dict)
    kept = {p: v for p, v in found.items() if not ignored(p)}
    # a folder stays when it holds a file that stays, or nothing at all (an empty folder is kept)
    holders = {p[:i] for p in kept for i in range(len(p)) if p[i : i + 1] == b"/"}
    inner = {p[:i] for p in [*found, *dirs] for i in range(len(p)) if p[i : i + 1] == b"/"}
    return {
        **snap,
        "files": kept,
        "dirs": {d: m for d, m in dirs.items() if not ignored(d + b"/") and (d in holders or d not in inner)},
    }


def same(a: dict[str, object], b: dict[str, object], where: str) -> None:
    found = differences(a, b)
    assert found == [], (where, found)


def ok(result: Result, where: str) -> Result:
    assert result.code == 0, (where, result)
    return result


class World:
    def __init__(self, folder: Path, seed: int) -> None:
        self.rng = random.Random(seed)
        self.seed = seed
        self.repo = build(folder / f"w{seed}", self.rng)
        self.make = Maker(self.repo, self.rng)
        self.sessions: dict[str, Path] = {}
        self.serial = 0
        mutate(self.repo, self.rng, self.rng.randint(0, 5), make=self.make)

    def session(self, fresh: bool = False) -> tuple[str, Path]:
        if self.sessions and not fresh and self.rng.random() < 0.7:
            wid = self.rng.choice(sorted(self.sessions))
            return wid, self.sessions[wid]
        self.serial += 1
        wid = f"s{self.serial}"
        made = ok(pylon("ws", "new", wid, "--json", cwd=self.repo), f"seed {self.seed}: new").json()
        self.sessions[wid] = Path(made["path"])
        return wid, self.sessions[wid]

    def work(self, path: Path, steps: int, commit: bool = False) -> list[str]:
        return mutate(
            path, self.rng, steps, commit=commit, make=Maker(path, self.rng) if path != self.repo else self.make
        )

    def round(self, kind: str) -> str:
        """One round trip; returns its outcome (for the tallies in the report)."""
        return getattr(self, "_" + kind.replace("-", "_"))()

    def _apply_undo(self) -> str:
        wid, path = self.session()
        log = (
            self.work(path, self.rng.randint(1, 5), commit=True)
            + ["| checkout"]
            + self.work(self.repo, self.rng.randint(0, 4))
        )
        where = f"seed {self.seed} apply {wid}: {log}"
        before = snapshot(self.repo)
        result = pylon("ws", "apply", wid, "--json", cwd=self.repo)
        if result.code == 1 and result.json()["error"]["code"] == "apply-conflicts":
            same(before, snapshot(self.repo), where)
            return "conflict"
        ok(result, where)
        if not result.json()["applied"]:
            return "nothing"
        assert snapshot(self.repo)["index"] == before["index"], where
        ok(pylon("ws", "undo", "--json", cwd=self.repo), where)
        same(before, snapshot(self.repo), where)
        return "applied"

    def _rm_undo(self) -> str:
        wid, path = self.session(fresh=True)
        log = self.work(path, self.rng.randint(1, 5), commit=True)
        where = f"seed {self.seed} rm {wid}: {log}"
        before, main = unignored(snapshot(path)), snapshot(self.repo)
        tip = git(self.repo, "rev-parse", f"refs/heads/pylon-session-{wid}")
        ok(pylon("ws", "rm", wid, "--force", "--json", cwd=self.repo), where)
        assert not path.exists(), where
        ok(pylon("ws", "undo", "--json", cwd=self.repo), where)
        same(before, unignored(snapshot(path)), where)
        same(main, snapshot(self.repo), where)
        assert git(self.repo, "rev-parse", f"refs/heads/pylon-session-{wid}") == tip, where
        assert ok(pylon("ws", "path", wid, cwd=self.repo), where).out.strip() == str(path), where
        return "removed"

    def _move(self, back: str) -> str:
        wid, path = self.session()
        log = (
            self.work(path, self.rng.randint(0, 4), commit=True)
            + ["| checkout"]
            + self.work(self.repo, self.rng.randint(0, 4))
        )
        where = f"seed {self.seed} move {wid} then {back}: {log}"
        main, session = snapshot(self.repo), snapshot(path)
        ok(pylon("ws", "move", wid, "--json", cwd=self.repo), where)
        moved = snapshot(self.repo)
        assert moved["index"] == session["index"] and moved["head"] == session["head"], where
        if back == "back":
            ok(pylon("ws", "move", wid, "--back", "--json", cwd=self.repo), where)
        else:
            ok(pylon("ws", "undo", "--json", cwd=self.repo), where)
        same(main, snapshot(self.repo), where)
        same(session, snapshot(path), where)
        return "moved"

    def _move_back(self) -> str:
        return self._move("back")

    def _move_undo(self) -> str:
        return self._move("undo")


def run_rounds(
    folder: Path, seed: int, rounds: int, kinds: tuple[str, ...] = KINDS, per_world: int = 20
) -> dict[str, int]:
    """`rounds` round trips over fresh worlds of `per_world` rounds each; the outcome tallies."""
    tally: dict[str, int] = {}
    rng = random.Random(seed)
    world = None
    for n in range(rounds):
        if n % per_world == 0:
            world = World(folder, seed * 100_000 + n)
        assert world is not None
        kind = rng.choice(kinds)
        outcome = world.round(kind)
        tally[f"{kind}:{outcome}"] = tally.get(f"{kind}:{outcome}", 0) + 1
    return tally
