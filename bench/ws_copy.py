"""Benchmark: `pylon ws new --copy`, matched by git itself, on a repository with many ignored files.

A repository of 4,000 tracked files and 20,000 ignored ones (`node_modules/`, `build/`, a few
`.env` files), as whole processes and ratios against git in the same run:

- `pylon ws new --copy '*.env' --copy '/build/'` against `pylon ws new` (the same state, nothing
  copied) and `git worktree add` (bar for `ws new`: 1.3x git worktree add; `--copy` adds git's
  walk of the ignored files plus the copies);
- the selection alone: `git ls-files --others --ignored --exclude-from` beside `--exclude-standard` (what
  `--copy` runs) next to `git ls-files --others --ignored --exclude-standard` (the walk the
  earlier hand-written matcher ran before its regexes).

    .venv/bin/python bench/ws_copy.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import WORK, Timing, record, table, tool, verdict

REPO = WORK / "ws-copy-repo"
WT_ROOT = WORK / "ws-copy-worktrees"
ENV = {
    "PYLON_WORKTREE_ROOT": str(WT_ROOT),
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "b@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "b@example.com",
}
PYLON = tool("pylon")


def run(args: list[str], cwd: Path = REPO) -> str:
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env={**os.environ, **ENV})
    if proc.returncode != 0:
        raise RuntimeError(f"{args}: {proc.stderr[-2000:]}")
    return proc.stdout


def timed(args: list[str]) -> float:
    start = time.perf_counter()
    run(args)
    return time.perf_counter() - start


def timed_out(args: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    out = run(args)
    return time.perf_counter() - start, out.strip()


def build() -> None:
    shutil.rmtree(REPO, ignore_errors=True)
    shutil.rmtree(WT_ROOT, ignore_errors=True)
    REPO.mkdir(parents=True)
    run(["git", "init", "-q", "-b", "main"])
    for n in range(4000):
        path = REPO / f"src/p{n % 40}/m{n}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"value = {n}\n")
    (REPO / ".gitignore").write_text("node_modules/\nbuild/\n.env\n*.env\n")
    run(["git", "add", "-A"])
    run(["git", "commit", "-qm", "tree"])
    for n in range(19000):
        path = REPO / f"node_modules/pkg{n % 300}/lib/f{n}.js"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    for n in range(990):
        path = REPO / f"build/obj{n % 10}/o{n}.o"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("o\n")
    for n in range(10):
        (REPO / f"src/p{n}/local.env").write_text(f"SECRET={n}\n")
    (REPO / ".env").write_text("SECRET=top\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    ns = parser.parse_args()
    build()
    WT_ROOT.mkdir(parents=True, exist_ok=True)
    git_t, new_t, copy_t = Timing("git worktree add", []), Timing("pylon ws new", []), Timing("pylon ws new --copy", [])
    for i in range(ns.runs + 1):
        g = timed(["git", "worktree", "add", "-q", "-b", f"gitwt-{i}", str(WT_ROOT / f"git-{i}"), "HEAD"])
        run(["git", "worktree", "remove", "--force", str(WT_ROOT / f"git-{i}")])
        run(["git", "branch", "-D", f"gitwt-{i}"])
        p = timed([PYLON, "ws", "new", f"n{i}"])
        run([PYLON, "ws", "rm", f"n{i}"])
        c, made = timed_out([PYLON, "ws", "new", f"c{i}", "--copy", "*.env", "--copy", "/build/"])
        copied = sum(1 for _ in Path(made).rglob("*.o"))
        run([PYLON, "ws", "rm", f"c{i}", "--force"])
        if i:
            git_t.samples.append(g)
            new_t.samples.append(p)
            copy_t.samples.append(c)
    pats = WORK / "ws-copy-patterns"
    pats.write_text("*.env\n/build/\n")
    sel_t, walk_t = Timing("select (two ls-files walks)", []), Timing("git ls-files -o -i --exclude-standard", [])
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from pylon.workspace.worktrees.copying import select

    for i in range(ns.runs * 3 + 1):
        start = time.perf_counter()
        chosen = select(str(REPO), ["*.env", "/build/"])
        s = time.perf_counter() - start
        w = timed(["git", "ls-files", "-z", "--others", "--ignored", "--exclude-standard"])
        if i:
            sel_t.samples.append(s)
            walk_t.samples.append(w)
    ratio = new_t.median / git_t.median
    copy_ratio = copy_t.median / git_t.median
    rows = [
        ("git worktree add", git_t.ms, "1.00x"),
        ("pylon ws new", new_t.ms, f"{ratio:.2f}x"),
        (f"pylon ws new --copy '*.env' --copy /build/ ({len(chosen)} files)", copy_t.ms, f"{copy_ratio:.2f}x"),
        ("git ls-files -o -i --exclude-standard (20,000 ignored files)", walk_t.ms, "—"),
        (
            "copying.select: ls-files --exclude-from + --exclude-standard, alongside",
            sel_t.ms,
            f"{sel_t.median / walk_t.median:.2f}x the walk",
        ),
    ]
    text = f"""### ws new --copy (git matches the patterns)

4,000 tracked files, 20,000 ignored ones; {ns.runs} samples each, alternating, after one warm-up round
(`bench/ws_copy.py`; {copied} build objects per copy).

{table(rows, ("command", "median", "vs git worktree add"))}

- `ws new` within 1.3x of `git worktree add` ({ratio:.2f}x): {verdict(ratio <= 1.3)}.
- `ws new --copy` adds the selection and {len(chosen)} copies ({copy_ratio:.2f}x `git worktree add`).
"""
    print(text)
    record("ws_copy", text)


if __name__ == "__main__":
    main()
