"""Benchmark: what recording permission bits and empty folders in every capture costs
(exact_quick.py), as `pylon ws baseline` (the quick `last` one) against `git status --porcelain`
and against the same command of the tree before the change (4ef2f1e), all in one run.

The 80,000-file repository of bench/workspace.py is copied twice (`cp -a`), so each pylon keeps
its own private index and record; the same dirty state is in both. Samples alternate git, the
pylon before and the pylon now, so machine load hits all three alike. Three situations:

- steady: nothing changed since the last capture (the bar of bench/workspace.py: <= 1.2x git);
- a new untracked file before each sample (folders changed: the empty-folder listing runs);
- a chmod of one tracked file before each sample (an index entry refreshed: the entries compared).

    .venv/bin/python bench/ws_exact.py [--runs N] [--before REV]

`--before REV` compares with another tree (recorded in a section of its own, `ws-exact-REV`, with
a fourth situation: a chmod of one folder, which only folder bits notice).
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import workspace as ws
from _harness import ROOT, WORK, Timing, record, table, time_command, tool, verdict

BEFORE_REV = "4ef2f1e"


def old_pylon(rev: str = BEFORE_REV) -> str:
    """A `pylon` script running the package as it was at `rev` (extracted once)."""
    old = WORK / f"pylon-{rev}"
    if not (old / "pylon").exists():
        old.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", rev, "pylon"], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
        compileall.compile_dir(str(old / "pylon"), quiet=1)
    script = old / "pylon-old"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(old)!r})\n"
        "from pylon.cli.main import pylon\nsys.exit(pylon())\n"
    )
    script.chmod(0o755)
    return str(script)


def copy(name: str) -> Path:
    dest = WORK / name
    if dest.exists():
        shutil.rmtree(dest)
    subprocess.run(["cp", "-a", str(ws.REPO), str(dest)], check=True)
    shutil.rmtree(dest / ".git" / "pylon", ignore_errors=True)
    return dest


def three(runs: int, setup: str | None, repos: dict[str, Path], commands: dict[str, list[str]]) -> dict[str, Timing]:
    found = {label: Timing(label, []) for label in commands}
    for i in range(runs + 1):
        for label, argv in commands.items():
            t = time_command(
                label,
                argv,
                runs=1,
                warmup=0,
                cwd=repos[label],
                setup=setup.replace("{i}", f"{i}-{label[:3]}") if setup else None,
                shell=False,
            )
            if i:
                found[label].samples.extend(t.samples)
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--before", default=BEFORE_REV)
    args = parser.parse_args()
    compileall.compile_dir(str(ROOT / "pylon"), quiet=1)
    ws.build(False)
    dirty = ws.make_dirty()
    new_repo, old_repo = copy("ws-80k-now"), copy("ws-80k-before")
    now, before = tool("pylon"), old_pylon(args.before)
    for repo, exe in ((new_repo, now), (old_repo, before)):
        subprocess.run([exe, "ws", "baseline"], cwd=repo, check=True, capture_output=True)  # warm, as any first use
    # git's samples in a copy of their own: a `git status` that refreshes the real index would make
    # the next capture in its copy start afresh (the rows of the section above pay that for `now`)
    git_repo = new_repo if args.before == BEFORE_REV else copy("ws-80k-git")
    repos = {
        "git status --porcelain": git_repo,
        "pylon ws baseline (before)": old_repo,
        "pylon ws baseline (now)": new_repo,
    }
    commands = {
        "git status --porcelain": ["git", "status", "--porcelain"],
        "pylon ws baseline (before)": [before, "ws", "baseline"],
        "pylon ws baseline (now)": [now, "ws", "baseline"],
    }
    load0 = os.getloadavg()[0]
    situations = [
        ("steady (nothing changed since the last capture)", None),
        ("a new untracked file before each sample", "echo x > pkg03/mod0300/fresh-{i}.py"),
        # 600 and 640 in turn: every sample follows a chmod
        (
            "a chmod of one tracked file before each sample",
            'f=pkg05/mod0500/file01.py; if [ "$(stat -c %a $f)" = 600 ]; then chmod 640 $f; else chmod 600 $f; fi',
        ),
    ]
    if args.before != BEFORE_REV:
        situations.append(
            (
                "a chmod of one folder before each sample",
                'd=pkg07/mod0700; if [ "$(stat -c %a $d)" = 700 ]; then chmod 750 $d; else chmod 700 $d; fi',
            )
        )
    rows: list[tuple[str, ...]] = []
    steady = (0.0, 0.0)
    for label, setup in situations:
        got = three(args.runs, setup, repos, commands)
        g, b, n = (got[k].median for k in commands)
        if setup is None:
            steady = (b / g, n / g)
        rows.append(
            (
                label,
                f"{g * 1000:.0f} ms",
                f"{b * 1000:.0f} ms ({b / g:.2f}x)",
                f"{n * 1000:.0f} ms ({n / g:.2f}x)",
                f"{(n - b) * 1000:+.0f} ms",
            )
        )
    load1 = os.getloadavg()[0]
    rows.append(
        ("bar: steady `ws baseline` <= 1.2x `git status`", "", "", f"{steady[1]:.2f}x", verdict(steady[1] <= 1.2))
    )
    if args.before != BEFORE_REV:
        md = "\n\n".join(
            [
                (
                    f"## every capture exact, folder bits too: `ws baseline` against {args.before} "
                    f"(`bench/ws_exact.py --before {args.before}`)"
                ),
                (
                    f"The same repository and samples as above ({dirty} "
                    "dirty paths; `git status` in a third copy, so it "
                    f"changes no index either pylon keeps), the pylon before being {args.before} "
                    "(file bits and empty folders) and now also recording "
                    "folder bits: the last record's folders and those "
                    "above what the capture staged are lstat()ed, and when git's untracked cache changed, its "
                    "folders' stat data before and after status are compared "
                    "(indexfile.py) to find the folders git looked at again. "
                    f"Medians of {args.runs} samples each, alternating. "
                    f"1-minute load average {load0:.1f} at the start, "
                    f"{load1:.1f} at the end."
                ),
                table(rows, ("situation", "git status", "ws baseline before", "ws baseline now", "now - before")),
            ]
        )
        record(f"ws-exact-{args.before}", md)
        print(md)
        return
    md = "\n\n".join(
        [
            "## every capture exact: `ws baseline` (`bench/ws_exact.py`)",
            (
                f"The 80,000-file repository of bench/workspace.py ({dirty} dirty paths), copied twice so the pylon "
                f"before ({BEFORE_REV}, no bits recorded by the quick baseline) and the pylon now (bits and empty "
                "folders recorded in every capture, exact_quick.py) each keep their own private index. Medians of "
                f"{args.runs} samples each, git / before / now alternating, after a warm-up round. 1-minute load "
                f"average {load0:.1f} at the start, {load1:.1f} at the end."
            ),
            table(rows, ("situation", "git status", "ws baseline before", "ws baseline now", "now - before")),
            (
                "What the rows pay for: steady, two reads of the private index and a `memcmp`. A new untracked "
                "file changes the untracked cache, so the capture that sees it (and the next one, whose status "
                "rewrites that cache again) lists the empty folders with `git ls-files --others --directory`. "
                "In the chmod row the `git status` sample run in between refreshes the real index (a chmod "
                "changes the file's ctime), so the private index is copied afresh and the capture walks with "
                "`find` beside its status, as a named baseline does: that is the cost after any change of the "
                "real index (`git add`, a commit, a `git status` that refreshed it). A chmod with no other git "
                "command in between costs a compare of the entries (a few tens of ms)."
            ),
        ]
    )
    record("ws-exact", md)
    print(md)


if __name__ == "__main__":
    main()
