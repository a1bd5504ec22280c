"""Benchmark: `pylon ws move ID` + `pylon ws move ID --back` against `git stash push -u` + `git stash pop`.

The synthetic 80,000-file repository of bench/workspace.py with its dirty state (349 paths:
200 modified, 50 deleted, 100 untracked, ignored noise). One owned worktree, started clean from
HEAD, with 20 edited and 5 new files of its own: a move parks the main checkout's 349 dirty paths
and brings the worktree's 25 in; `--back` reverses both. git's nearest equivalent on the same
state parks the same 349 paths and brings them back: `git stash push -u` then `git stash pop`.
The pairs alternate sample by sample (machine load hits both alike). Every pylon pair is checked
to give back the exact state (`git status --porcelain -uall` and `git ls-files -s` the same as
before) and to leave `refs/stash` alone. Bar: pylon within 2x of git.

    .venv/bin/python bench/ws_move.py [--runs N] [--rebuild] [--before REV]

`--before REV` also times the same pair by the pylon of REV (bench/ws_exact.py's copy of it), in
the same rounds, and says the ratio of now to before.
"""

from __future__ import annotations

import argparse
import compileall
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import ROOT, Timing, record, table, verdict
from workspace import build, make_dirty, path_of
from worktrees import PYLON, reset, run


def timed(args: list[str]) -> float:
    start = time.perf_counter()
    run(args)
    return time.perf_counter() - start


def view() -> tuple[str, str]:
    return run(["git", "status", "--porcelain", "-uall"]).stdout, run(["git", "ls-files", "-s"]).stdout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--before", default=None)
    ns = parser.parse_args()
    old = None
    if ns.before:
        from ws_exact import old_pylon

        old = old_pylon(ns.before)
    compileall.compile_dir(str(ROOT / "pylon"), quiet=1)
    load_before = os.getloadavg()[0]
    build(ns.rebuild)
    reset()
    dirty = make_dirty()
    wt = Path(run([PYLON, "ws", "new", "agent", "--clean"]).stdout.strip())
    for k in range(20):
        with open(wt / path_of((k * 3989 + 11) % 80000), "a") as fh:
            fh.write("# agent\n")
    for k in range(5):
        (wt / f"agent-new{k}.py").write_text(f"new {k}\n")
    before = view()
    pylon_t, move_t, back_t = Timing("pylon ws move + --back", []), Timing("move", []), Timing("back", [])
    git_t = Timing("git stash push -u + git stash pop", [])
    old_t = Timing("before", [])
    for i in range(ns.runs + 1):
        if old is not None:
            o = timed([old, "ws", "move", "agent"]) + timed([old, "ws", "move", "agent", "--back"])
            if view() != before:
                raise RuntimeError("the older pylon's pair did not give back the exact state")
            if i:
                old_t.samples.append(o)
        m = timed([PYLON, "ws", "move", "agent"])
        b = timed([PYLON, "ws", "move", "agent", "--back"])
        if view() != before:
            raise RuntimeError("pylon ws move + --back did not give back the exact state")
        if run(["git", "rev-parse", "-q", "--verify", "refs/stash"], check=False).returncode == 0:
            raise RuntimeError("refs/stash exists after pylon's pair")
        g = timed(["git", "stash", "push", "-u", "-q"]) + timed(["git", "stash", "pop", "-q"])
        if view() != before:
            raise RuntimeError("git stash push -u + pop changed the state")
        if i:  # the first round warms the caches (and builds each checkout's private index)
            pylon_t.samples.append(m + b)
            move_t.samples.append(m)
            back_t.samples.append(b)
            git_t.samples.append(g)
    load_after = os.getloadavg()[0]
    ratio = pylon_t.median / git_t.median
    rows = [
        ("git stash push -u + git stash pop", git_t.ms, "1.00x"),
        ("pylon ws move + pylon ws move --back", pylon_t.ms, f"{ratio:.2f}x"),
        ("of which pylon ws move", move_t.ms, "—"),
        ("of which pylon ws move --back", back_t.ms, "—"),
        *(
            [(f"the same pair by the pylon of {ns.before}", old_t.ms, f"{old_t.median / git_t.median:.2f}x")]
            if old is not None
            else []
        ),
    ]
    pylon_samples = ", ".join(f"{s:.2f}" for s in pylon_t.samples)
    git_samples = ", ".join(f"{s:.2f}" for s in git_t.samples)
    text = f"""## ws move + --back (`bench/ws_move.py`)

Repository: the 80,000-file one of `bench/workspace.py`, {dirty} dirty paths in the main checkout; one
owned worktree started `--clean` with 25 changed paths of its own. A pylon pair parks the 349 paths
and brings the worktree's state in, then sends it back and restores the 349 exactly (checked after
every pair, together with `refs/stash` left alone); git's pair parks and restores the same 349.
{ns.runs} samples of each, alternating, after one warm-up round.

{table(rows, ("command", "median", "vs git stash"))}

- `ws move` + `--back` within 2x of `git stash push -u` + `git stash pop` ({ratio:.2f}x): {verdict(ratio <= 2.0)}.
- Samples: pylon {pylon_samples} s; git {git_samples} s.
- 1-minute load average {load_before:.1f} before and {load_after:.1f} after (2 cores, shared machine).
"""
    print(text)
    record("ws-move", text)


if __name__ == "__main__":
    main()
