"""Killing a running `pylon` at a chosen moment, for the crash tests.

`killed(...)` starts pylon, optionally waits until its op's intent is on disk, then SIGKILLs it
(alone, as `kill -9 <pid>` does, or with its whole process group, as killing a terminal's job
does) once `delay` seconds have passed. pylon starts the git commands that hold a lock as they write in a process
group of their own, so they survive the kill and finish their one step; the helper waits for them
(found through /proc before the kill) so that what the test inspects next is the state the kill
left, not a write still landing.

`Moments` picks the delays. Where a kill lands depends on the machine's load, which changes
during a run of the suite, so the length of the part after the intent is learnt from the rounds
themselves rather than from one measurement made at the start.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from tests.conftest import script


def op_refs_above(ops: Path, seq: int) -> Callable[[], bool]:
    """A check: is an op newer than `seq` on disk (as a loose ref file under refs/pylon/ops/)?"""

    def present() -> bool:
        try:
            return any(name.isdigit() and int(name) > seq for name in os.listdir(ops))
        except FileNotFoundError:
            return False

    return present


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return found
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as handle:
                found += [int(x) for x in handle.read().split()]
        except (FileNotFoundError, ProcessLookupError):
            pass
    return found


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie has finished its work
    except (FileNotFoundError, ProcessLookupError):
        return True


def killed(
    args: list[str], cwd: Path, delay: float, *, after: Callable[[], bool] | None = None, group: bool = False
) -> tuple[int | None, float]:
    """Run `pylon ARGS`; SIGKILL it `delay` s after its start (or after `after()` first holds).
    Returns (exit code, or None when the kill landed; seconds from that start point to the end)."""
    proc = subprocess.Popen(
        [script("pylon"), *args], cwd=cwd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    if after is not None:
        while proc.poll() is None and not after():
            time.sleep(0.001)
    start = time.monotonic()
    try:
        return proc.wait(timeout=delay), time.monotonic() - start
    except subprocess.TimeoutExpired:
        pass
    try:  # stopped first, so it cannot start another child between the look and the kill
        os.killpg(proc.pid, signal.SIGSTOP) if group else os.kill(proc.pid, signal.SIGSTOP)
    except ProcessLookupError:
        pass
    survivors = _children(proc.pid)
    try:
        os.killpg(proc.pid, signal.SIGKILL) if group else os.kill(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    code = proc.wait()
    took = time.monotonic() - start
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        survivors = [pid for pid in survivors if not _gone(pid)]
        try:
            os.killpg(proc.pid, 0)  # children left in pylon's own group (readers) count too
        except ProcessLookupError:
            if not survivors:
                break
        time.sleep(0.005)
    return (None if code < 0 else code), took


class Moments:
    """Kill moments: a quarter anywhere in the run, the rest after the intent. `writes` (intent to
    end) follows the rounds: a round that finished before its kill shrinks it, a kill grows it."""

    def __init__(self, end: float, writes: float) -> None:
        self.end = end
        self.writes = max(writes, 0.01)

    def pick(self, rng: random.Random) -> tuple[float, bool]:
        if rng.random() < 0.25:
            return rng.uniform(0.0, self.end * 1.1), False
        return rng.uniform(0.0, self.writes * 1.1), True

    def saw(self, after_intent: bool, code: int | None, took: float) -> None:
        if after_intent and code is not None:
            self.writes = (self.writes + took) / 2
        elif after_intent:
            self.writes *= 1.05


def timed(args: list[str], cwd: Path, intent: Callable[[], bool]) -> tuple[float, float]:
    """(when the intent appeared, when the command ended) for one uninterrupted run, in seconds."""
    start = time.monotonic()
    proc = subprocess.Popen([script("pylon"), *args], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen = None
    while proc.poll() is None:
        if seen is None and intent():
            seen = time.monotonic() - start
        time.sleep(0.001)
    end = time.monotonic() - start
    assert proc.returncode == 0, (args, proc.returncode)
    return (seen if seen is not None else end * 0.8), end
