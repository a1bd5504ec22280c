"""Benchmark: `pylon ws apply` + `pylon ws undo` on the synthetic 80,000-file repository.

The checkout carries the 349-path dirty state of bench/workspace.py; an owned session started from
it changes 300 files and adds 50 (committed). Measured as whole processes, alternating samples:

- pylon: `pylon ws apply s` then `pylon ws undo` (two captures, a three-way merge, the op log,
  the writes; then the restore);
- baseline, git doing the same change without a merge base, conflict check, index protection
  or log: `git diff --binary <baseline> <session> | git apply` then the same diff `git apply -R`.

Then `pylon ws undo` alone (the bar: under 1 s; also against `git stash push -u` + `git stash pop
--index` of the checkout's dirty state, git's own way to put work aside and back), and undo after
later work (20 other files edited and 5 of the applied files edited on another line, so the undo
merges three-way and keeps them), followed by `pylon ws redo`; the later edits are put back by
hand between rounds.

    .venv/bin/python bench/ws_apply.py [--runs N] [--rebuild]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import record, table, tool
from workspace import REPO, build, make_dirty, path_of
from worktrees import reset, run

PYLON = tool("pylon")


def session() -> tuple[Path, str, str]:
    made = run([PYLON, "ws", "new", "s", "--json"]).stdout
    import json

    doc = json.loads(made)
    path = Path(doc["path"])
    for i in range(300):
        with open(path / path_of((i * 7919 + 13) % 80000), "a") as fh:
            fh.write("# agent\n")
    for i in range(50):
        p = path / "agent" / f"new{i}.py"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"agent {i}\n")
    run(["git", "add", "-A"], cwd=path)
    run(["git", "commit", "-qm", "agent"], cwd=path)
    tip = run(["git", "rev-parse", "HEAD"], cwd=path).stdout.strip()
    return path, str(doc["baseline"]), tip


LATER, FIRST = b"# later\n", b"# later, first line\n"


def later_edits() -> list[Path]:
    """Work done after the apply: 20 files it did not touch appended to, and 5 it touched given a
    new first line (the apply appended); returns them, for take_back()."""
    picks = [path_of((i * 104729 + 5) % 80000) for i in range(20)] + [
        path_of((i * 7919 + 13) % 80000) for i in range(5)
    ]
    done: list[Path] = []
    for n, rel in enumerate(picks):
        full = REPO / rel
        if not full.exists() or full in done:
            continue
        data = full.read_bytes()
        full.write_bytes(data + LATER if n < 20 else FIRST + data)
        done.append(full)
    return done


def take_back(edited: list[Path]) -> None:
    """The later edits out of the files again, whatever else undo and redo left in them."""
    for full in edited:
        data = full.read_bytes()
        if data.startswith(FIRST):
            data = data[len(FIRST) :]
        elif data.endswith(LATER):
            data = data[: -len(LATER)]
        else:
            raise RuntimeError(f"{full}: the later edit is gone")
        full.write_bytes(data)


def timed(args: list[str] | str) -> float:
    start = time.perf_counter()
    if isinstance(args, str):
        import subprocess

        subprocess.run(args, shell=True, cwd=REPO, check=True, capture_output=True)
    else:
        run(args)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--rebuild", action="store_true")
    opts = parser.parse_args()
    build(opts.rebuild)
    reset()
    dirty = make_dirty()
    _, baseline, tip = session()
    diff = f"git diff --binary {baseline} {tip}"
    pylon_t: list[float] = []
    git_t: list[float] = []
    scan_t: list[float] = []
    undo_t: list[float] = []
    later_t: list[float] = []
    redo_t: list[float] = []
    stash_t: list[float] = []
    for i in range(opts.runs + 1):
        applied = timed([PYLON, "ws", "apply", "s"])
        undone = timed([PYLON, "ws", "undo"])
        b = timed(f"{diff} | git apply") + timed(f"{diff} | git apply -R")
        c = timed("git status --porcelain")
        stash = timed("git stash push -u -q && git stash pop -q --index")
        timed([PYLON, "ws", "apply", "s"])
        edited = later_edits()
        merged = timed([PYLON, "ws", "undo"])
        redone = timed([PYLON, "ws", "redo"])
        timed([PYLON, "ws", "undo"])
        take_back(edited)
        if i:  # the first round warms the caches
            pylon_t.append(applied + undone)
            undo_t.append(undone)
            git_t.append(b)
            scan_t.append(c)
            later_t.append(merged)
            redo_t.append(redone)
            stash_t.append(stash)
    p, g, c = statistics.median(pylon_t), statistics.median(git_t), statistics.median(scan_t)
    u, m, r = statistics.median(undo_t), statistics.median(later_t), statistics.median(redo_t)
    st = statistics.median(stash_t)
    rows = [
        ("`pylon ws apply` + `pylon ws undo`", f"{p * 1000:.0f} ms", f"{p / g:.2f}x"),
        ("`git diff --binary B S \\| git apply` + `git apply -R`", f"{g * 1000:.0f} ms", "1.00x"),
        ("`git status --porcelain` (one scan, for scale)", f"{c * 1000:.0f} ms", f"{c / g:.2f}x"),
        ("`pylon ws undo` of the apply (bar: under 1 s)", f"{u * 1000:.0f} ms", f"{u / g:.2f}x"),
        ("`pylon ws undo` after later edits (three-way, 25 paths kept)", f"{m * 1000:.0f} ms", f"{m / g:.2f}x"),
        ("`pylon ws redo` of that undo", f"{r * 1000:.0f} ms", f"{r / g:.2f}x"),
        (
            "`git stash push -u` + `git stash pop --index` of the dirty checkout",
            f"{st * 1000:.0f} ms",
            f"{st / g:.2f}x",
        ),
    ]
    text = (
        f"Checkout with {dirty} dirty paths; the session changes 350 paths (300 modified, "
        f"50 added), committed. Medians of {opts.runs} alternating samples. apply captures both "
        "checkouts (each about one status scan, in parallel), merges, writes the intent, the 350 "
        "paths and the completion; undo captures again and restores. The baseline has no merge base, "
        "no conflict check, no untracked files, no log and no undo of its own. Undo alone costs "
        f"{u / c:.2f}x one status scan of the same run (its capture is one; the plan, the last look at "
        "the 350 files and their writes are the rest); with later edits it merges three-way first "
        f"({m / c:.2f}x), and redo reverses that undo ({r / c:.2f}x). Undo against git's stash pair "
        f"of the same checkout: {u / st:.2f}x.\n\n" + table(rows, ("what", "median", "ratio"))
    )
    print(text)
    record("ws-apply", "### ws apply + undo (80,000 files)\n\n" + text)
    reset()


if __name__ == "__main__":
    main()
