"""Benchmark: `pylon serve` on the 80,000-file repository with a 20,000-article store and 10 owned
worktrees (bench/workspace.py's tree, bench/worktrees.py's ten agents).

Measures, in the same run:

- first useful paint in headless Chromium: from navigation start to the first view's data drawn
  (Agents: the worktree table and the conflicts matrix; Memory: the folded article graph), bar 1.5 s;
- each data answer of the board (HTTP, median) against the CLI command it stands for (a whole
  process, median), bar: within 2x.

    .venv/bin/python bench/serve.py [--runs N] [--rebuild]

Generated data stays under bench/.work/ (ignored by git). When PYLON_BENCH_80K names the tree generated
already elsewhere (another checkout's bench/.work/ws-80k), it is cloned instead of generated.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import Timing, record, table, time_command, tool, verdict
from workspace import REPO, build
from worktrees import ENV, WT_ROOT, reset, run, start_watch, ten_worktrees

PYLON, CANON = tool("pylon"), tool("canon")
SOURCE = Path(os.environ.get("PYLON_BENCH_80K") or REPO)
ARTICLES = 20_000


def tree() -> None:
    if not REPO.exists() and (SOURCE / ".git").is_dir():
        REPO.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", str(SOURCE), str(REPO)], check=True)
        subprocess.run(["git", "pack-refs", "--all"], cwd=REPO, check=True)
    build(False)


def store() -> int:
    """20,000 articles governing the tree's folders and files (pkgNN, pkgNN/modNNNN, then files),
    each linking its parent and a sibling, and a journal; committed, so the tree starts clean."""
    if (REPO / ".canon" / "articles").is_dir() and run(["git", "ls-files", ".canon/articles"]).stdout.count(
        "\n"
    ) >= ARTICLES:
        return ARTICLES
    addresses = [f"pkg{p:02d}" for p in range(20)] + [f"pkg{f // 100:02d}/mod{f:04d}" for f in range(2000)]
    i = 0
    while len(addresses) < ARTICLES:
        folder, n = divmod(i, 9)
        addresses.append(f"pkg{folder // 100:02d}/mod{folder:04d}/file{n * 4:02d}")
        i += 1
    base = REPO / ".canon" / "articles"
    for k, address in enumerate(addresses):
        parent = address.rpartition("/")[0]
        links = (f"Part of [[{parent}]]. " if parent else "") + f"See [[{addresses[(k * 7919) % ARTICLES]}]]."
        path = base / f"{address}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"---\ncapsule: What {address} does, in one line.\nupdated: 2026-01-{1 + k % 28:02d}\n---\n"
            f"{links}\nIt must never block the event loop.\n",
            encoding="utf-8",
        )
    journal = REPO / ".canon" / "journal"
    journal.mkdir(parents=True, exist_ok=True)
    for n in range(500):
        (journal / f"2026-02-{1 + n % 28:02d}-event-{n}.md").write_text(
            f"---\nsubject: [{addresses[n * 37 % ARTICLES]}]\nlogged: 2026-02-{1 + n % 28:02d}T10:00:{n % 60:02d}Z\n"
            f"---\nEvent {n}: latency rose to {n % 500} ms.\n",
            encoding="utf-8",
        )
    (REPO / ".canon" / ".gitignore").write_text(".cache/\n")
    run(["git", "add", ".canon"])
    run(["git", "-c", "gc.auto=0", "commit", "-q", "-m", "memory: 20,000 articles"])
    return ARTICLES


KEY: list[str] = [""]  # the running board's key (paint() logs in with a link minted from it)


def start_board() -> tuple[subprocess.Popen[bytes], str, int, str]:
    """(process, the bare address, port, the board's key for the X-Pylon-Token header)."""
    proc = subprocess.Popen(
        [PYLON, "serve", "--json"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **ENV},
    )
    assert proc.stdout is not None
    doc = json.loads(proc.stdout.readline())
    return proc, doc["address"], doc["port"], doc["token"]


def get(port: int, token: str, path: str) -> float:
    start = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    conn.request("GET", path, headers={"X-Pylon-Token": token})
    res = conn.getresponse()
    body = res.read()
    conn.close()
    if res.status != 200:
        raise RuntimeError(f"{path}: {res.status} {body[:300]!r}")
    return time.perf_counter() - start


def endpoint(label: str, port: int, token: str, path: str, runs: int) -> Timing:
    get(port, token, path)  # warm-up, as time_command warms up
    return Timing(label, [get(port, token, path) for _ in range(runs)])


def watching(port: int, token: str, wait: float = 600) -> bool:
    """Whether the board's watcher is in place (it may then keep its surveys), waiting up to `wait` s."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", "/api/meta", headers={"X-Pylon-Token": token})
        if json.loads(conn.getresponse().read()).get("watching"):
            return True
        conn.close()
        time.sleep(0.5)
    return False


def paint(
    url: str, runs: int, memory: bool = True, change: Path | None = None, agents: bool = True, key: str = ""
) -> tuple[Timing, Timing, Timing]:
    """Page loads after one warm-up; `change`: a worktree where a scratch file is written before each
    load (and time given for the board's watcher to see it), so the page waits for a survey made anew.
    Measure the Memory view last: its answers (lint, stale, coverage of 20,000 articles) run on in
    the board after the page is gone, and would slow whatever is measured next."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1400,1000",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    found: dict[str, list[float]] = {"firstPaint": [], "conflictsPaint": [], "graphPaint": []}
    try:
        from pylon.serve.security import login_link

        driver.get(login_link(int(url.rstrip("/").rsplit(":", 1)[1]), key or KEY[0]))  # the session cookie, once
        views = (("", "conflicts", ("firstPaint", "conflictsPaint")), ("#memory", "graph", ("graphPaint",)))
        for view, ready, marks in [v for v, on in zip(views, (agents, memory)) if on]:
            for k in range(runs + 1):
                driver.get("about:blank")
                if change is not None:
                    (change / "bench-scratch.txt").write_text(f"load {k} {time.time()}\n")
                    time.sleep(1.0)  # the watcher sees it at once; the debounced event follows 0.3 s later
                driver.get(url + view)
                deadline = time.monotonic() + 120
                while not driver.execute_script(
                    "return document.body && " + " && ".join(f"window.pylonBoard.{mark}" for mark in marks)
                ):
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"{ready} never drawn")
                    time.sleep(0.02)
                if k:  # the first load warms the server's caches and the browser
                    for mark in marks:  # performance.now() when drawn: ms since navigation start
                        found[mark].append(driver.execute_script(f"return window.pylonBoard.{mark}") / 1000)
    finally:
        driver.quit()
        if change is not None:
            (change / "bench-scratch.txt").unlink(missing_ok=True)
    return (
        Timing("Agents: the worktree table", found["firstPaint"]),
        Timing("Agents: the conflicts matrix", found["conflictsPaint"]),
        Timing("Memory: the folded graph", found["graphPaint"] or [float("nan")]),
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--reuse", action="store_true", help="keep the 10 worktrees an earlier run made")
    parser.add_argument(
        "--paint-only", action="store_true", help="only the first paint, scanning and watched (section serve-paint)"
    )
    ns = parser.parse_args()
    load_before = os.getloadavg()[0]
    reuse = (
        ns.reuse
        and REPO.is_dir()
        and len(json.loads(run([PYLON, "ws", "list", "--json"], check=False).stdout or "{}").get("worktrees", [])) == 10
    )
    if not reuse:  # build() resets the checkout and pylon's state: only when the worktrees are made anew
        tree()
    articles = store()
    if not reuse:
        reset()
        ten_worktrees()
    run([PYLON, "ws", "list"])  # the first read of each worktree builds its private index
    proc, url, port, token = start_board()
    KEY[:] = [token]
    if ns.paint_only:
        try:
            paint_only(url, ns.runs)
        finally:
            proc.terminate()
            proc.wait(timeout=60)
        return
    try:
        pairs = [
            ("/api/agents?fresh=1", [PYLON, "ws", "list", "--json"]),  # surveyed anew, as the CLI does
            ("/api/conflicts?fresh=1", [PYLON, "ws", "conflicts", "--json"]),
            ("/api/timeline", [PYLON, "ws", "log", "--json"]),
            ("/api/diff?id=agent-0", [PYLON, "ws", "diff", "--in", "agent-0", "--json"]),
            ("/api/graph", [CANON, "graph", "--format", "json"]),  # folded; the whole graph kept until .canon/ changes
            ("/api/graph?address=pkg03", [CANON, "graph", "pkg03", "--format", "json"]),  # built on every request
            ("/api/search?q=event+loop", [CANON, "search", "event", "loop", "--journal", "--json"]),
            ("/api/article?address=pkg03/mod0321", [CANON, "read", "pkg03/mod0321", "--json"]),
            ("/api/coverage?fresh=1", [CANON, "coverage", "--json"]),
            ("/api/stale?fresh=1", [CANON, "stale", "--json"]),
            ("/api/lint?fresh=1", [CANON, "lint", "--json"]),
        ]
        rows, ok = [], True
        for path, argv in pairs:
            served = endpoint(path, port, token, path, ns.runs)
            cli = time_command(" ".join(argv), argv, runs=ns.runs, cwd=REPO, env=ENV, ok_codes=(0, 1))
            ok &= served.median <= 2 * cli.median
            command = " ".join(Path(argv[0]).name if i == 0 else a for i, a in enumerate(argv))
            rows.append((f"`{path}`", served.ms, f"`{command}`", cli.ms, f"{served.median / cli.median:.2f}x"))
            print(" | ".join(rows[-1]), file=sys.stderr, flush=True)
        watching(port, token)
        first, matrix, _ = paint(url, ns.runs, memory=False)
        changed = paint(url, ns.runs, memory=False, change=sorted(WT_ROOT.glob("*/agent-*"))[0])[:2]
        # the same with a watcher in every worktree (`ws new --watch`, as agents run them)
        from pylon.workspace.worktrees import owned, watchers

        paths = sorted(WT_ROOT.glob("*/agent-*"))
        try:
            for folder in paths:
                start_watch(folder)
            watched = []
            for path, argv in pairs[:2]:
                served = endpoint(path, port, token, path, ns.runs)
                cli = time_command(" ".join(argv), argv, runs=ns.runs, cwd=REPO, env=ENV, ok_codes=(0, 1))
                ok &= served.median <= 2 * cli.median
                command = " ".join(Path(argv[0]).name if i == 0 else a for i, a in enumerate(argv))
                watched.append(
                    (
                        f"`{path}` (watched)",
                        served.ms,
                        f"`{command}` (watched)",
                        cli.ms,
                        f"{served.median / cli.median:.2f}x",
                    )
                )
            rows[2:2] = watched
            wfirst, wmatrix, _ = paint(url, ns.runs, memory=False, change=paths[0])
        finally:
            for folder in paths:
                watchers.stop(str(owned.admin_dir_of(str(folder))))
        memory = paint(url, ns.runs, agents=False)[2]
        report(ns.runs, articles, load_before, rows, ok, first, matrix, memory, changed, (wfirst, wmatrix))
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def paint_only(url: str, runs: int) -> None:
    from pylon.workspace.worktrees import owned, watchers

    load_before = os.getloadavg()[0]
    port, token = int(url.rstrip("/").rsplit(":", 1)[1]), KEY[0]
    ready = watching(port, token)
    paths = sorted(WT_ROOT.glob("*/agent-*"))
    first, matrix, _ = paint(url, runs, memory=False)
    changed, cmatrix, _ = paint(url, runs, memory=False, change=paths[0])
    changed = Timing(changed.label + ", after a change", changed.samples)
    cmatrix = Timing(cmatrix.label + ", after a change", cmatrix.samples)
    rows = [
        (t.label, t.ms, ", ".join(f"{s * 1000:.0f}" for s in t.samples) + " ms")
        for t in (first, matrix, changed, cmatrix)
    ]
    print(rows, file=sys.stderr, flush=True)
    nan = Timing("not measured: a watcher did not vouch within 120 s on this loaded host", [float("nan")])
    wfirst = wmatrix = nan
    if not os.environ.get("PYLON_BENCH_NO_WATCH"):
        try:
            for path in paths:
                start_watch(path)
            wfirst, wmatrix, _ = paint(url, runs, memory=False, change=paths[0])
        except RuntimeError as exc:
            print(exc, file=sys.stderr)
        finally:
            for path in paths:
                watchers.stop(str(owned.admin_dir_of(str(path))))
    rows += [
        (
            f"{t.label}, after a change, a `ws watch` in every worktree",
            t.ms,
            ", ".join(f"{s * 1000:.0f}" for s in t.samples) + " ms",
        )
        for t in (wfirst, wmatrix)
        if t is not nan
    ]
    memory = paint(url, runs, agents=False)[2]  # last (paint's docstring)
    rows.append((memory.label, memory.ms, ", ".join(f"{s * 1000:.0f}" for s in memory.samples) + " ms"))
    text = f"""## pylon serve: first useful paint (`bench/serve.py --paint-only`)

The page as it loads now (the worktree table first, the conflicts matrix fetched after it), on the
tree and worktrees of the section above; {runs} page loads each after one warm-up; load average
{load_before:.1f} before, {os.getloadavg()[0]:.1f} after. The board's watcher was in place
{"" if ready else "(NOT: it never reported ready) "}before the first load. Two situations: nothing changed
since the board's last survey (the table and matrix are the kept surveys,
docs/explanation/serve.md), and a file written in agent-0 one second before each load (both surveys made anew:
agent-0 read again, the other worktrees' and the checkout's sides kept).

{table(rows, ("navigation start to", "median", "samples"))}

- First useful paint (the worktree table) under 1.5 s: {first.ms} with nothing changed since the
  last survey, {verdict(first.median < 1.5)}; {changed.ms} right after a change (agent-0 read
  again for the page), {verdict(changed.median < 1.5)}; {wfirst.ms} after a
  change with a `ws watch` in each worktree, {verdict(wfirst.median < 1.5)}.
"""
    record("serve-paint", text)
    print(text, flush=True)


def report(
    runs: int,
    articles: int,
    load_before: float,
    rows: Sequence[Sequence[str]],
    ok: bool,
    first: Timing,
    matrix: Timing,
    memory: Timing,
    changed: tuple[Timing, Timing],
    watched: tuple[Timing, Timing] | None,
) -> None:
    def samples(t: Timing) -> str:
        return ", ".join(f"{s * 1000:.0f}" for s in t.samples)

    watched_rows = watched_line = ""
    if watched:
        wfirst, wmatrix = watched
        watched_rows = (
            f"| after a change, a `ws watch` in every worktree (`ws new --watch`): the worktree table | "
            f"{wfirst.ms} | {samples(wfirst)} ms |\n| after a change, a `ws watch` in every worktree: the "
            f"conflicts matrix | {wmatrix.ms} | {samples(wmatrix)} ms |\n"
        )
        watched_line = (
            f"{wfirst.ms} after a change with a `ws watch` in every worktree, {verdict(wfirst.median < 1.5)}; "
        )
    cfirst, cmatrix = changed
    load_after = os.getloadavg()[0]
    graph = json.loads(run([CANON, "graph", "--format", "json"]).stdout)
    text = f"""## pylon serve (`bench/serve.py`)

Repository: the 80,000-file tree of `bench/workspace.py` with a {articles:,}-article store committed in
it (20 package articles, 2,000 folder articles, the rest file articles; {graph["counts"]["edges"]:,} links) and the
10 owned worktrees of `bench/worktrees.py` (4 of them conflicting on one line). Board answers are
HTTP requests to a running `pylon serve` (median of {runs}, after one warm-up); CLI commands are
whole processes (median of {runs}), measured in the same run. Load average {load_before:.1f} before,
{load_after:.1f} after.

{table(rows, ("board answer", "median", "CLI command", "median", "board / CLI"))}

| first useful paint (headless Chromium, navigation start to data drawn) | median | samples |
|---|---|---|
| Agents view: the worktree table (`ws list`), unchanged since the last survey | {first.ms} | {samples(first)} ms |
| Agents view: the conflicts matrix (`ws conflicts`, fetched after it), the same | {matrix.ms} | {samples(matrix)} ms |
| after a file written in agent-0 one second before each load: the worktree table | {cfirst.ms} | {samples(cfirst)} ms |
| after that change: the conflicts matrix | {cmatrix.ms} | {samples(cmatrix)} ms |
{watched_rows}| Memory view: the folded article graph | {memory.ms} | {samples(memory)} ms |

- Every board answer within 2x of its CLI command: {verdict(ok)}.
- First useful paint under 1.5 s: Agents {first.ms} with nothing changed since the last survey,
  {verdict(first.median < 1.5)}; {cfirst.ms} after a change (the changed worktree read again, the
  others' sides kept: docs/explanation/serve.md), {verdict(cfirst.median < 1.5)};
  {watched_line}Memory {memory.ms}, {verdict(memory.median < 1.5)}. Board answers `?fresh=1` read
  every worktree anew, as the CLI does.
"""
    record("serve", text)
    print(text, flush=True)


if __name__ == "__main__":
    main()
