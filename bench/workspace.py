"""Benchmark: `pylon ws` on a synthetic 80,000-file repository, as ratios against git in one run.

Builds (once, under bench/.work/ws-80k/) a repository of 80,000 files in 2,000 folders, packs it,
then makes a few hundred paths dirty (modified, deleted, untracked). Measures, alternating the
pylon and git commands sample by sample so load on the machine hits both alike:

- `pylon ws baseline` and `pylon ws fingerprint` against `git status --porcelain` (bar: 1.2x);
- `pylon ws changes --since last` while `pylon ws watch` keeps the current state (bar: 50 ms),
  and without a watcher (one scan), for reference;
- `pylon ws run -- true` overhead over `true` against two `git status` scans (bar: at most 2);
- `pylon ws diff` with default bounds after 50,000 files changed, against `git diff --stat`
  (bar: no slower), plus the first run after the change (which hashes the changed files);
- the engine choice: the same operations through pygit2 (import included) and the git CLI.

pylon's modules are byte-compiled first, as an install does (this machine sets
PYTHONDONTWRITEBYTECODE, which would otherwise make every run compile them from source).

    .venv/bin/python bench/workspace.py [--runs N] [--rebuild]
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import ROOT, WORK, Timing, record, stop_watch, table, time_command, tool, verdict
from _harness import start_watch as harness_start_watch

REPO = WORK / "ws-80k"
FOLDERS, PER_FOLDER = 2000, 40
ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}


def sh(*args: str, cwd: Path = REPO, check: bool = True) -> str:
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env={**os.environ, **ENV})
    if check and proc.returncode != 0:
        raise RuntimeError(f"{args}: {proc.stderr}")
    return proc.stdout


def path_of(i: int) -> Path:
    folder = i // PER_FOLDER
    return Path(f"pkg{folder // 100:02d}") / f"mod{folder:04d}" / f"file{i % PER_FOLDER:02d}.py"


def build(rebuild: bool) -> None:
    if REPO.exists() and not rebuild and (REPO / ".git" / "packed-refs").exists():
        sh("git", "reset", "-q", "--hard")
        sh("git", "clean", "-qfdx")
        refs = sh("git", "for-each-ref", "--format=delete %(refname)", "refs/pylon/")
        subprocess.run(["git", "update-ref", "--stdin"], cwd=REPO, input=refs, text=True, check=True)
        shutil.rmtree(REPO / ".git" / "pylon", ignore_errors=True)
        return
    if REPO.exists():
        shutil.rmtree(REPO)
    REPO.mkdir(parents=True)
    sh("git", "init", "-q", "-b", "main")
    for i in range(FOLDERS * PER_FOLDER):
        p = REPO / path_of(i)
        if i % PER_FOLDER == 0:
            p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"# file {i}\n" + "".join(f"value_{j} = {i * j}\n" for j in range(20)))
    (REPO / ".gitignore").write_text("*.log\nbuild/\n")
    sh("git", "add", "-A")
    sh("git", "-c", "gc.auto=0", "commit", "-q", "-m", "80,000 files")
    sh("git", "gc", "-q")
    sh("git", "pack-refs", "--all")


def make_dirty() -> int:
    """A few hundred dirty paths: 200 modified, 50 deleted, 100 untracked, plus ignored noise."""
    for i in range(200):
        with open(REPO / path_of(i * 397 % 80000), "a") as fh:
            fh.write("# edited\n")
    for i in range(50):
        (REPO / path_of(i * 1601 % 80000 + 7)).unlink(missing_ok=True)
    for i in range(100):
        p = REPO / f"pkg{i % 20:02d}" / "new" / f"untracked{i}.py"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"new {i}\n")
    (REPO / "build").mkdir(exist_ok=True)
    (REPO / "build" / "out.log").write_text("ignored\n")
    return len(sh("git", "status", "--porcelain", "-uall").splitlines())


def paired(
    a: tuple[str, list[str] | str], b: tuple[str, list[str] | str], runs: int, warmup: int = 2
) -> tuple[Timing, Timing]:
    """Alternate two commands sample by sample; medians of each."""
    ta, tb = Timing(a[0], []), Timing(b[0], [])
    for i in range(warmup + runs):
        for (label, argv), timing in ((a, ta), (b, tb)):
            t = time_command(label, argv, runs=1, warmup=0, cwd=REPO, shell=isinstance(argv, str))
            if i >= warmup:
                timing.samples.extend(t.samples)
    return ta, tb


def start_watch() -> subprocess.Popen:
    proc = harness_start_watch(tool("pylon"), REPO)
    time.sleep(0.5)
    return proc


def engine_rows(runs: int) -> list[tuple[str, str, str, str]]:
    """The same operations through pygit2 (a fresh interpreter, import included) and the git CLI.

    pygit2 is the optional `bench` extra (`pip install -e '.[bench]'`): no command uses it."""
    py = sys.executable
    if subprocess.run([py, "-c", "import pygit2"], capture_output=True).returncode != 0:
        return [("(pygit2 not installed: pip install -e '.[bench]')", "-", "-", "-")]
    index_copy = REPO / ".git" / "bench-index"
    copy = f"cp -p .git/index {index_copy}"
    base = sh("git", "rev-parse", "HEAD^{tree}").strip()
    cur = sh("git", "rev-parse", "refs/pylon/current^{tree}").strip()
    rows = []
    cases = [
        ("import only", [py, "-c", "import pygit2"], [py, "-c", "pass"]),
        ("status scan", [py, "-c", "import pygit2; pygit2.Repository('.').status()"], ["git", "status", "--porcelain"]),
        # pygit2 stages in memory only (the real index is never written); git works on a copy
        (
            "stage all + write tree",
            [py, "-c", "import pygit2; r=pygit2.Repository('.'); i=r.index; i.add_all(); i.write_tree()"],
            f"{copy} && GIT_INDEX_FILE={index_copy} git add -A && GIT_INDEX_FILE={index_copy} git write-tree",
        ),
        (
            "tree-to-tree diff (names)",
            [
                py,
                "-c",
                (
                    f"import pygit2; r=pygit2.Repository('.'); d=r.diff(r['{base}'], r['{cur}']); "
                    "[p.delta.new_file.path for p in d]"
                ),
            ],
            ["git", "diff-tree", "-r", "--raw", base, cur],
        ),
    ]
    for label, pg, cli in cases:
        try:
            a = time_command(f"pygit2 {label}", pg, runs=runs, warmup=1, cwd=REPO, shell=isinstance(pg, str))
            b = time_command(f"git {label}", cli, runs=runs, warmup=1, cwd=REPO, shell=isinstance(cli, str))
            rows.append((label, a.ms, b.ms, "git CLI" if b.median <= a.median else "pygit2"))
        except RuntimeError as exc:
            rows.append((label, f"failed: {str(exc)[:60]}", "", "git CLI"))
    index_copy.unlink(missing_ok=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    runs = args.runs
    compileall.compile_dir(str(ROOT / "pylon"), quiet=1)
    pylon = tool("pylon")
    t0 = time.time()
    build(args.rebuild)
    dirty = make_dirty()
    print(f"repository ready ({time.time() - t0:.0f}s), {dirty} dirty paths", file=sys.stderr)
    rows: list[tuple[str, ...]] = []
    sh(pylon, "ws", "baseline")  # warm the private index once, as any first use does

    status, base = paired(
        ("git status --porcelain", ["git", "status", "--porcelain"]),
        ("pylon ws baseline", [pylon, "ws", "baseline"]),
        runs,
    )
    status2, fp = paired(
        ("git status --porcelain", ["git", "status", "--porcelain"]),
        ("pylon ws fingerprint", [pylon, "ws", "fingerprint"]),
        runs,
    )
    r_base, r_fp = base.median / status.median, fp.median / status2.median
    rows.append(
        (
            "`ws baseline` / `git status --porcelain`",
            f"{base.ms} / {status.ms}",
            f"{r_base:.2f}x",
            "<= 1.2x",
            verdict(r_base <= 1.2),
        )
    )
    rows.append(
        (
            "`ws fingerprint` / `git status --porcelain`",
            f"{fp.ms} / {status2.ms}",
            f"{r_fp:.2f}x",
            "<= 1.2x",
            verdict(r_fp <= 1.2),
        )
    )

    scan = time_command("changes (scan)", [pylon, "ws", "changes", "--since", "last"], runs=runs, cwd=REPO)
    watcher = start_watch()
    try:
        ch = time_command("changes (watch)", [pylon, "ws", "changes", "--since", "last"], runs=runs * 2, cwd=REPO)
        chj = time_command(
            "changes --json (watch)", [pylon, "ws", "changes", "--since", "last", "--json"], runs=runs * 2, cwd=REPO
        )
        status_w, run_w = paired(
            ("git status --porcelain", ["git", "status", "--porcelain"]),
            ("pylon ws run -- true (watch)", [pylon, "ws", "run", "--", "true"]),
            runs,
        )
    finally:
        stop_watch(watcher)
    rows.append(
        (
            "`ws changes --since last`, current state kept by `ws watch`",
            ch.ms,
            "",
            "< 50 ms",
            verdict(ch.median < 0.050),
        )
    )
    rows.append(("same, `--json`", chj.ms, "", "< 50 ms", verdict(chj.median < 0.050)))
    rows.append(("`ws changes --since last`, no watcher (one scan)", scan.ms, "", "(reference)", ""))

    status3, run_t = paired(
        ("git status --porcelain", ["git", "status", "--porcelain"]),
        ("pylon ws run -- true", [pylon, "ws", "run", "--", "true"]),
        runs,
    )
    true_t = time_command("true", ["true"], runs=runs, cwd=REPO)
    overhead = run_t.median - true_t.median
    scans = overhead / status3.median
    rows.append(
        (
            "`ws run -- true` overhead, in `git status` scans",
            f"{overhead * 1000:.1f} ms / {status3.ms}",
            f"{scans:.2f} scans",
            "<= 2 scans",
            verdict(scans <= 2),
        )
    )
    w_scans = (run_w.median - true_t.median) / status_w.median
    rows.append(
        (
            "same, with `ws watch` running",
            f"{(run_w.median - true_t.median) * 1000:.1f} ms",
            f"{w_scans:.2f} scans",
            "(less)",
            verdict(w_scans < scans),
        )
    )

    engines = engine_rows(max(3, runs // 2))

    # 50,000 changed files: bounded diff vs git diff --stat; the first run after such a change
    # (which must store 50,000 new blobs) against `git add -A` doing the same storing work.
    sh(pylon, "ws", "baseline", "before-big")

    def change_50k(tag: str) -> None:
        for i in range(50000):
            with open(REPO / path_of(i), "a") as fh:
                fh.write(f"# big change {tag}\n")

    firsts: list[float] = []
    adds: list[float] = []
    note = ""
    stat = diff = None
    for round_ in range(2):
        change_50k(f"{round_}a")
        start = time.perf_counter()
        first = subprocess.run([pylon, "ws", "diff", "--since", "before-big"], cwd=REPO, capture_output=True)
        firsts.append(time.perf_counter() - start)
        assert first.returncode == 0, first.stderr
        if stat is None:
            note = first.stderr.decode().strip().splitlines()[-1] if first.stderr else ""
            stat, diff = paired(
                ("git diff --stat", ["git", "diff", "--stat"]),
                ("pylon ws diff", [pylon, "ws", "diff", "--since", "before-big"]),
                max(3, runs // 2),
                warmup=1,
            )
        change_50k(f"{round_}b")
        shutil.copy2(REPO / ".git" / "index", REPO / ".git" / "bench-index")
        start = time.perf_counter()
        subprocess.run(
            ["git", "add", "-A"],
            cwd=REPO,
            check=True,
            env={**os.environ, "GIT_INDEX_FILE": str(REPO / ".git" / "bench-index")},
        )
        adds.append(time.perf_counter() - start)
        (REPO / ".git" / "bench-index").unlink()
    assert stat is not None and diff is not None
    r_diff = diff.median / stat.median
    rows.append(
        (
            "`ws diff` (default bounds) / `git diff --stat`, 50,000 files changed",
            f"{diff.ms} / {stat.ms}",
            f"{r_diff:.2f}x",
            "<= 1.0x",
            verdict(r_diff <= 1.0),
        )
    )
    first_s, add_s = statistics.median(firsts), statistics.median(adds)
    rows.append(
        (
            "`ws diff`, first run after the change (stores 50,000 new blobs) / `git add -A` of such a change",
            f"{first_s * 1000:.0f} ms / {add_s * 1000:.0f} ms",
            f"{first_s / add_s:.2f}x",
            "(reference)",
            "",
        )
    )
    sh("git", "checkout", "-q", "--", ".")

    md = "\n\n".join(
        [
            "## workspace (`bench/workspace.py`)",
            (
                f"Synthetic repository: {FOLDERS * PER_FOLDER:,} files in {FOLDERS:,} folders, packed; {dirty} dirty "
                "paths (200 modified, 50 deleted, 100 untracked) plus ignored files. Medians of whole processes; "
                "pylon and git samples alternate so machine load hits both alike. `baseline`/`fingerprint` "
                "run on a warm private index (the first capture after the real index changes costs about "
                "one `git status` more)."
            ),
            table(rows, ("measure", "time (pylon / git)", "ratio", "bar", "verdict")),
            "Engine choice, same operations as whole processes (pygit2 timings include its import):",
            table(engines, ("operation", "pygit2", "git CLI", "faster")),
            f"Note printed by the bounded diff: `{note}`",
        ]
    )
    record("workspace", md)
    print(md)


if __name__ == "__main__":
    main()
