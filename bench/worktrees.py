"""Benchmark: owned worktrees on the synthetic 80,000-file repository of bench/workspace.py.

Measures, as whole processes and ratios against git in the same run:

- `pylon ws new` (from the 349-path dirty state: capture, baseline commit, locked worktree,
  registry) against `git worktree add` of HEAD on the same tree, samples alternating (bar: 1.3x);
  `pylon ws new --clean` for reference;
- the same reads while the watcher `ws new --watch` starts runs in every worktree (readers then
  sync with it instead of scanning);
- `pylon ws list` with 10 owned worktrees, each with a few changes, some pairs conflicting
  (bar: under 1 s), next to `git status --porcelain` in one of them;
- `pylon ws conflicts` over the same 10 worktrees and the checkout (bar: under 2 s).

    .venv/bin/python bench/worktrees.py [--runs N] [--rebuild]
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import ROOT, WORK, Timing, record, table, time_command, tool, verdict
from workspace import REPO, build, make_dirty, path_of

WT_ROOT = WORK / "ws-80k-worktrees"
ENV = {
    "PYLON_WORKTREE_ROOT": str(WT_ROOT),
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "b@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "b@example.com",
}
PYLON = tool("pylon")


def run(args: list[str], cwd: Path = REPO, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env={**os.environ, **ENV})
    if check and proc.returncode != 0:
        raise RuntimeError(f"{args}: {proc.stderr[-2000:]}")
    return proc


def timed(args: list[str], cwd: Path = REPO) -> float:
    start = time.perf_counter()
    run(args, cwd)
    return time.perf_counter() - start


def reset() -> None:
    """Remove every worktree, pylon record and session branch left by an earlier run."""
    run(["git", "worktree", "list", "--porcelain"])
    for line in run(["git", "worktree", "list", "--porcelain"]).stdout.splitlines()[1:]:
        if line.startswith("worktree "):
            run(["git", "worktree", "remove", "--force", "--force", line[9:]], check=False)
    run(["git", "worktree", "prune"])
    shutil.rmtree(WT_ROOT, ignore_errors=True)
    shutil.rmtree(REPO / ".git" / "pylon" / "owned", ignore_errors=True)
    refs = run(
        [
            "git",
            "for-each-ref",
            "--format=delete %(refname)",
            "refs/heads/pylon-session-*",
            "refs/heads/gitwt-*",
            "refs/pylon/",
        ]
    ).stdout
    subprocess.run(["git", "update-ref", "--stdin"], cwd=REPO, input=refs, text=True, check=True)


def bench_new(runs: int) -> tuple[Timing, Timing, Timing]:
    git_t, new_t, clean_t = (
        Timing("git worktree add", []),
        Timing("pylon ws new", []),
        Timing("pylon ws new --clean", []),
    )
    WT_ROOT.mkdir(parents=True, exist_ok=True)
    for i in range(runs + 1):
        g = timed(["git", "worktree", "add", "-q", "-b", f"gitwt-{i}", str(WT_ROOT / f"git-{i}"), "HEAD"])
        run(["git", "worktree", "remove", "--force", str(WT_ROOT / f"git-{i}")])
        run(["git", "branch", "-D", f"gitwt-{i}"])
        p = timed([PYLON, "ws", "new", f"n{i}"])
        run([PYLON, "ws", "rm", f"n{i}"])
        c = timed([PYLON, "ws", "new", f"c{i}", "--clean"])
        run([PYLON, "ws", "rm", f"c{i}"])
        if i:  # the first round warms the caches
            git_t.samples.append(g)
            new_t.samples.append(p)
            clean_t.samples.append(c)
    return git_t, new_t, clean_t


def ten_worktrees() -> list[Path]:
    paths = []
    for n in range(10):
        out = run([PYLON, "ws", "new", f"agent-{n}"]).stdout.strip()
        path = Path(out)
        paths.append(path)
        # each agent edits 20 files of its own, one shared file, and adds 5 new files; in the shared
        # file agents 0-3 change the same line (they conflict pairwise), agents 4-9 each a line of
        # their own two apart (they only touch)
        for k in range(20):
            with open(path / path_of((n * 1000 + k * 37) % 80000), "a") as fh:
                fh.write(f"# agent {n}\n")
        shared = path / path_of(12345)
        lines = shared.read_text().splitlines(keepends=True)
        line = 3 if n < 4 else 5 + 2 * (n - 4)
        lines[line] = f"# line {line} changed by agent {n}\n"
        shared.write_text("".join(lines))
        for k in range(5):
            (path / f"agent{n}-new{k}.py").write_text(f"new {n} {k}\n")
    return paths


def start_watch(path: Path) -> int:
    """The watcher `ws new --watch` starts (the same library call), once its first capture vouches."""
    from pylon.workspace.worktrees import owned, watchers

    admin = owned.admin_dir_of(str(path))
    assert admin
    pid = watchers.start(str(path), admin)
    if pid is None:
        raise RuntimeError(f"watch did not start in {path}: see {admin}/pylon/watch.log")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if '"source": "watch"' in run([PYLON, "ws", "changes", "--json"], cwd=path).stdout:
            return pid
        time.sleep(0.2)
    raise RuntimeError(f"the watcher in {path} never vouched")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--keep", action="store_true", help="leave the 10 worktrees in place (for profiling)")
    parser.add_argument(
        "--reads-only",
        action="store_true",
        help="time list/conflicts on the 10 worktrees a --keep run left (section worktrees-reads)",
    )
    ns = parser.parse_args()
    compileall.compile_dir(str(ROOT / "pylon"), quiet=1)
    load_before = os.getloadavg()[0]
    if ns.reads_only:
        paths = sorted(WT_ROOT.glob("agent-*"))
        assert len(paths) == 10, "run with --keep first"
        dirty = len(run(["git", "status", "--porcelain", "-uall"]).stdout.splitlines())
        git_t = new_t = clean_t = Timing("not measured", [float("nan")])
    else:
        build(ns.rebuild)
        reset()
        dirty = make_dirty()
        git_t, new_t, clean_t = bench_new(ns.runs)
        paths = ten_worktrees()
    run([PYLON, "ws", "list"])  # the first read of each worktree builds its private index
    list_t = time_command("pylon ws list", [PYLON, "ws", "list"], runs=ns.runs + 2, cwd=REPO, env=ENV)
    status_t = time_command(
        "git status --porcelain (one worktree)",
        ["git", "status", "--porcelain"],
        runs=ns.runs + 2,
        cwd=paths[0],
        env=ENV,
    )
    each = " ".join(f"'{p}'" for p in paths)
    par_t = time_command(
        "git status in all 10 at once",
        ["bash", "-c", (f'for d in {each}; do git -C "$d" status --porcelain >/dev/null & done; wait')],
        runs=ns.runs + 2,
        cwd=REPO,
        env=ENV,
    )
    conf_t = time_command(
        "pylon ws conflicts", [PYLON, "ws", "conflicts"], runs=ns.runs + 2, cwd=REPO, env=ENV, ok_codes=(0, 1)
    )
    # the same reads while `pylon ws watch` runs in every worktree: their states are then vouched
    # for by the watchers and no worktree is scanned
    from pylon.workspace.worktrees import owned, watchers

    pids = [start_watch(p) for p in paths]
    try:
        run([PYLON, "ws", "list"])
        wlist_t = time_command("pylon ws list (watchers)", [PYLON, "ws", "list"], runs=ns.runs + 2, cwd=REPO, env=ENV)
        wconf_t = time_command(
            "pylon ws conflicts (watchers)",
            [PYLON, "ws", "conflicts"],
            runs=ns.runs + 2,
            cwd=REPO,
            env=ENV,
            ok_codes=(0, 1),
        )
    finally:
        for path in paths:  # as `ws rm` does
            watchers.stop(str(owned.admin_dir_of(str(path))))
    assert len(pids) == 10
    doc = run([PYLON, "ws", "conflicts", "--json"], check=False).stdout
    import json

    report = json.loads(doc)
    load_after = os.getloadavg()[0]
    ratio = new_t.median / git_t.median
    rows = [
        ("git worktree add (80,000 files)", git_t.ms, "1.00x"),
        (f"pylon ws new (from {dirty} dirty paths)", new_t.ms, f"{ratio:.2f}x"),
        ("pylon ws new --clean", clean_t.ms, f"{clean_t.median / git_t.median:.2f}x"),
        ("pylon ws list (10 owned worktrees)", list_t.ms, "—"),
        ("git status --porcelain in one of them", status_t.ms, "—"),
        ("git status --porcelain in all 10 at once (the scan floor)", par_t.ms, "—"),
        ("pylon ws conflicts (10 worktrees + checkout)", conf_t.ms, "—"),
        ("pylon ws list, each worktree watched (`ws new --watch`)", wlist_t.ms, "—"),
        ("pylon ws conflicts, each worktree watched (`ws new --watch`)", wconf_t.ms, "—"),
    ]
    text = f"""## owned worktrees (`bench/worktrees.py`)

Repository: the 80,000-file one of `bench/workspace.py` ({dirty} dirty paths in the main checkout).
`ws new` and `git worktree add` alternate sample by sample ({ns.runs} each, after one warm-up round).
`list` and `conflicts` run over 10 owned worktrees, each with 20 edited and 5 new files and one
shared file (4 of them change the same line of it: {report["conflicting"]} conflicting pairs,
{report["touching_pairs"]} touching pairs; {report["merged"]} of {report["checked"]} pairs needed a merge).

{table(rows, ("command", "median", "vs git worktree add"))}

- `ws new` within 1.3x of `git worktree add` ({ratio:.2f}x): {verdict(ratio <= 1.3)}.
- `ws list` with 10 owned worktrees under 1 s: {list_t.ms} scanning, {verdict(list_t.median < 1.0)}; {wlist_t.ms} with
  watchers, {verdict(wlist_t.median < 1.0)}.
- `ws conflicts` over 10 worktrees under 2 s: {conf_t.ms} scanning, {verdict(conf_t.median < 2.0)}; {wconf_t.ms} with
  watchers, {verdict(wconf_t.median < 2.0)}.
- Without watchers both are bound by reading ten 80,000-file worktrees: one capture each (a `git status`-sized
  scan, {status_t.ms} for git alone in one of them), run in parallel on {os.cpu_count()} cores; the merges
  themselves take a few ms each. Ten `git status` at once, the same reads with nothing else, take
  {par_t.ms}: `ws list` costs {list_t.median / par_t.median:.2f}x of that floor, `ws conflicts`
  {conf_t.median / par_t.median:.2f}x.
- Samples: new {", ".join(f"{s:.2f}" for s in new_t.samples)} s; git {", ".join(f"{s:.2f}" for s in git_t.samples)} s.
- 1-minute load average {load_before:.1f} before and {load_after:.1f} after (2 cores, shared machine).
"""
    if ns.reads_only:  # only the read rows: the new/add figures stay those of the last full run
        text = text.replace(
            "## owned worktrees (`bench/worktrees.py`)",
            "## owned worktrees: list and conflicts (`bench/worktrees.py --reads-only`)",
        )
        text = "\n".join(
            ln for ln in text.splitlines() if not ("nan" in ln or ln.startswith(("- `ws new`", "- Samples")))
        )
        text = text.replace(
            f"`ws new` and `git worktree add` alternate sample by sample ({ns.runs} each, after one warm-up round).\n",
            "",
        )
    print(text)
    record("worktrees-reads" if ns.reads_only else "worktrees", text)
    if not ns.keep and not ns.reads_only:
        reset()


if __name__ == "__main__":
    main()
