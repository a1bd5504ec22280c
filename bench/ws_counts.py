"""Benchmark: exact totals of a cut list on a 20,000-file change, and what the cut costs.

Builds (once, under bench/.work/ws-counts/) a repository of 1,000 committed files, then
generates 20,000 new files in 200 folders. Checks, against git's own count:

- `pylon ws changes --json` states total 20,000 in each of 20 runs;
- `pylon ws run --json` states 20,000 in each of 20 runs (10 creating the files, 10 removing them);
- one `pylon ws watch --json` states 20,000 in each of 20 batches (the folder moved in and out);

and times the cut itself: `pylon ws changes --json` while `pylon ws watch` keeps the current state
(so the process only lists), the memo removed before every sample. With `--reference PYLON` the
same is timed for another install (the code before the fix) in interleaved rounds.

    .venv/bin/python bench/ws_counts.py [--runs N] [--reference /path/to/old/pylon]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import (
    ROOT,
    WORK,
    Timing,
    record,
    start_watch,
    stop_watch,
    table,
    time_command,
    tool,
    verdict,
)

REPO = WORK / "ws-counts"
STAGE = WORK / "ws-counts-stage"
N = 20000
ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}
MAKE = (
    "import os, sys\n"
    "root = sys.argv[1]\n"
    f"for i in range({N}):\n"
    "    d = os.path.join(root, 'gen', 'd%03d' % (i // 100))\n"
    "    os.makedirs(d, exist_ok=True)\n"
    "    open(os.path.join(d, 'f%05d.txt' % i), 'w').write('line %d\\nmore\\n' % i)\n"
)


def sh(*args: str, cwd: Path = REPO) -> str:
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env={**os.environ, **ENV})
    if proc.returncode not in (0,):
        raise RuntimeError(f"{args}: {proc.stderr}")
    return proc.stdout


def build() -> None:
    if REPO.exists():
        shutil.rmtree(REPO)
    REPO.mkdir(parents=True)
    sh("git", "init", "-q", "-b", "main")
    for i in range(1000):
        path = REPO / "base" / f"d{i // 20:02d}" / f"f{i:04d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{i}\n")
    sh("git", "add", "-A")
    sh("git", "commit", "-q", "-m", "base")
    if STAGE.exists():
        shutil.rmtree(STAGE)
    STAGE.mkdir(parents=True)
    subprocess.run([sys.executable, "-c", MAKE, str(STAGE)], check=True)


def git_count() -> int:
    return len([r for r in sh("git", "status", "--porcelain", "-z", "-uall").split("\0") if r])


def exact_changes(pylon: str, runs: int) -> int:
    os.rename(STAGE / "gen", REPO / "gen")
    try:
        assert git_count() == N
        good = 0
        for _ in range(runs):
            doc = json.loads(sh(pylon, "ws", "changes", "--json"))
            good += doc["total"] == N and doc["left_out"] == N - 200
        return good
    finally:
        os.rename(REPO / "gen", STAGE / "gen")


def exact_run(pylon: str, runs: int) -> int:
    good = 0
    for i in range(runs):
        if i % 2 == 0:
            doc = json.loads(sh(pylon, "ws", "run", "--json", "--", sys.executable, "-c", MAKE, str(REPO)))
        else:
            doc = json.loads(sh(pylon, "ws", "run", "--json", "--", "rm", "-rf", "gen"))
        good += doc["total"] == N
    shutil.rmtree(REPO / "gen", ignore_errors=True)
    return good


def exact_watch(pylon: str, runs: int) -> int:
    proc = start_watch(pylon, REPO, "--json", "--debounce", "0.3", stdout=subprocess.PIPE)
    assert proc.stdout is not None
    good = 0
    try:
        for i in range(runs):
            if i % 2 == 0:
                os.rename(STAGE / "gen", REPO / "gen")
            else:
                os.rename(REPO / "gen", STAGE / "gen")
            while True:  # the batch that saw the move (batches without a change are not printed)
                doc = json.loads(proc.stdout.readline())
                if doc["event"] == "batch" and doc["total"]:
                    break
            good += doc["total"] == N
    finally:
        stop_watch(proc)
        if (REPO / "gen").exists():
            os.rename(REPO / "gen", STAGE / "gen")
    return good


def cut_cost(pylons: list[str], runs: int, rounds: int = 3) -> dict[str, list[Timing]]:
    """Interleaved rounds: each install with its own watcher; before every sample the memo is
    removed ("again": the same base was listed before) or the memo and the hint ("first")."""
    os.rename(STAGE / "gen", REPO / "gen")
    pdir = REPO / ".git" / "pylon"
    setups = {"again": f"rm -f {pdir}/changes-memo", "first": f"rm -f {pdir}/changes-memo {pdir}/changes-hint"}
    timings = {kind: [Timing(p, []) for p in pylons] for kind in setups}
    try:
        for _ in range(rounds):
            for i, pylon in enumerate(pylons):
                watcher = start_watch(pylon, REPO)
                time.sleep(1.0)
                try:
                    for kind, setup in setups.items():
                        t = time_command(
                            pylon, [pylon, "ws", "changes", "--json"], runs=runs, warmup=1, cwd=REPO, setup=setup
                        )
                        timings[kind][i].samples.extend(t.samples)
                finally:
                    stop_watch(watcher)
    finally:
        os.rename(REPO / "gen", STAGE / "gen")
    return timings


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--reference", help="another pylon install to time the cut against (the code before)")
    args = parser.parse_args()
    compileall.compile_dir(str(ROOT / "pylon"), quiet=1)
    pylon = tool("pylon")
    build()
    sh(pylon, "ws", "changes")  # the first capture builds the private index once
    rows = []
    for label, check in (("changes", exact_changes), ("run", exact_run), ("watch", exact_watch)):
        good = check(pylon, args.runs)
        rows.append((f"`ws {label}`", f"{good} of {args.runs}", verdict(good == args.runs)))
    if args.reference:
        ref = exact_changes(args.reference, args.runs)
        rows.append(("`ws changes`, reference install", f"{ref} of {args.runs}", "(reference)"))
    installs = [pylon] + ([args.reference] if args.reference else [])
    timings = cut_cost(installs, 7)
    labels = {
        "again": "asked again from the same base (memo removed)",
        "first": "first listing from this base (memo and hint removed)",
    }
    cost_rows = [
        (
            labels[kind],
            "this install" if t.label == pylon else "reference (before)",
            t.ms,
            f"{min(t.samples) * 1000:.1f} ms",
            str(len(t.samples)),
        )
        for kind, ts in timings.items()
        for t in ts
    ]
    md = [
        "## workspace counts (`bench/ws_counts.py`)",
        "",
        (
            f"A change of {N:,} new files in 200 folders over 1,000 committed files. Exact total: the JSON `total` "
            f"equals git's own count (`git status --porcelain -uall`), {args.runs} runs each (`watch`: one watcher, "
            f"{args.runs} batches, the folder moved in and out)."
        ),
        "",
        table(rows, ("command", "exact total", "verdict")),
        "",
        (
            "Cost of the cut: `pylon ws changes --json` (limit 200) while `ws watch` keeps the current state, so the "
            'process only lists; 3 interleaved rounds, one watcher per install and round. "first listing": no '
            "memo and no hint of an earlier listing, as after the base moved (or before any listing). The reference "
            "is the install given by `--reference` (the code before the change being measured)."
        ),
        "",
        table(cost_rows, ("case", "install", "median", "fastest", "samples")),
    ]
    if len(installs) == 2:
        for kind, ts in timings.items():
            ratio = ts[0].median / ts[1].median
            noise = " (within the run-to-run spread of about 5% on this shared machine)" if 1.0 < ratio <= 1.05 else ""
            bar = f"bar: no more than before; {verdict(ratio <= 1.0)}{noise}"
            md += ["", f"Cut cost, {labels[kind]}, this install / before: {ratio:.2f}x — {bar}."]
    load = os.getloadavg()[0]
    md += ["", f"1-minute load average {load:.1f} at the end (2 cores, shared)."]
    record("workspace-counts", "\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
