"""Benchmark: the last look a restore takes before it writes (pylon/workspace/ops/lastlook.py).

On the synthetic 80,000-file repository of bench/workspace.py with its dirty state, the files a
restore would replace are the dirty ones (modified and untracked, about 300). Timed in one run:

- `lastlook.changed()` over those files, as captured (in-process: what restore() adds);
- `git status --porcelain` of the same checkout (one scan, the unit every op is made of);
- `pylon ws move` + `--back` is in bench/ws_move.py; this gives the share the look adds to it.

    .venv/bin/python bench/lastlook.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import ROOT, Timing, record, table, time_command
from workspace import REPO, build, make_dirty
from worktrees import reset

sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    ns = parser.parse_args()
    from pylon.workspace import git
    from pylon.workspace.ops.lastlook import changed
    from pylon.workspace.repo import locate
    from pylon.workspace.state import capture

    load_before = os.getloadavg()[0]
    build(False)
    reset()
    make_dirty()
    checkout = locate(str(REPO))
    state = capture(checkout, label="bench")
    head_tree = git.run(["rev-parse", "HEAD^{tree}"], cwd=str(REPO)).decode().strip()
    raw = git.run(["diff-tree", "-r", "-z", "--no-renames", "--raw", head_tree, state.worktree], cwd=str(REPO))
    fields = raw.split(b"\0")
    entries = []
    for meta, path in zip(fields[0::2], fields[1::2]):
        parts = meta.decode().split()
        if parts and parts[4] != "D":  # the files on disk that a restore to HEAD would replace
            entries.append((parts[1], parts[3], path.decode()))
    assert changed(str(REPO), entries) == [], "the checkout changed while measuring"
    samples = []
    for i in range(ns.runs + 2):
        start = time.perf_counter()
        changed(str(REPO), entries)
        if i >= 2:
            samples.append(time.perf_counter() - start)
    look = Timing("last look", samples)
    status = time_command("git status --porcelain", ["git", "status", "--porcelain"], runs=ns.runs, cwd=REPO)
    load_after = os.getloadavg()[0]
    rows = [
        (
            f"last look over {len(entries)} files (hash-object, in-process)",
            look.ms,
            f"{look.median / status.median:.3f}x",
        ),
        ("git status --porcelain (one scan of 80,000 files)", status.ms, "1.00x"),
    ]
    text = f"""## the last look before a restore writes (`bench/lastlook.py`)

The files a restore of the dirty 80,000-file checkout would replace ({len(entries)} modified or
untracked files) are re-hashed as captured, as `restore()` does before its first write; timed against
one `git status --porcelain` of the same checkout in the same run. {ns.runs} samples each.

{table(rows, ("what", "median", "vs one status scan"))}

- Spread of the look: {min(samples) * 1000:.1f} to {max(samples) * 1000:.1f} ms (median
  {statistics.median(samples) * 1000:.1f} ms). `ws move` + `--back` runs three restores (bench/ws_move.py).
- 1-minute load average {load_before:.1f} before and {load_after:.1f} after (2 cores, shared machine).
"""
    print(text)
    record("lastlook", text)


if __name__ == "__main__":
    main()
