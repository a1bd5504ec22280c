"""Benchmark: what keeping the state before every shell command costs, as ratios in one run.

Repositories of 5,000, 40,000 (200 files changed) and 80,000 files under bench/.work/keep-*/. Samples
alternate pylon and its baseline, so load on the machine hits both alike:

- the hooks of one shell call, processes alone (no client): `pylon hook claude-code` on the
  PreToolUse of `echo` (the state kept beside the reading) plus on its PostToolUse with the capture
  in the hook's own process (PYLON_KEEP_DETACH=0: the whole work, which the client does not wait for
  in real use), against `git status --porcelain` and `python -c pass`; on 80,000 files with and
  without a `pylon ws watch` running;
- `pylon ws fingerprint` against `git status --porcelain` on 40,000 files with 200 changed (bar 1.2x).

The real clients' figure (the bar: at most 80 ms per shell call) is bench/agents_e2e.py's.

    .venv/bin/python bench/keep.py [--runs N] [--no-record]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import ROOT, WORK, Timing, record, start_watch, stop_watch, table, tool, verdict

ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}


def build(files: int, changed: int = 0) -> Path:
    repo = WORK / f"keep-{files}"
    if not (repo / ".git" / "HEAD").exists():
        shutil.rmtree(repo, ignore_errors=True)
        repo.mkdir(parents=True)
        for i in range(files):
            folder = repo / f"pkg{i // 4000:02d}" / f"mod{i // 40:04d}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"f{i % 40:02d}.py").write_text(f"x = {i}\n")
        (repo / ".gitignore").write_text("build/\n")
        (repo / "build").mkdir()
        (repo / "build" / "out.o").write_bytes(b"obj")
        for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "initial"]):
            subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env={**os.environ, **ENV})
        for i in range(changed):
            with open(repo / f"pkg00/mod{i // 2:04d}/f{i % 2:02d}.py", "a") as fh:
                fh.write("changed\n")
    return repo


def timed(argv: list[str], cwd: Path, data: bytes | None = None, env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(
        argv,
        cwd=cwd,
        input=data,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
        check=False,
    )
    return time.perf_counter() - start


def event(name: str, repo: Path, n: int) -> bytes:
    return json.dumps(
        {
            "session_id": "bench",
            "cwd": str(repo),
            "hook_event_name": name,
            "tool_name": "Bash",
            "tool_input": {"command": "echo hi"},
            "tool_use_id": f"toolu_{n}",
        }
    ).encode()


def hooks_of_one_call(repo: Path, runs: int) -> tuple[Timing, Timing, Timing]:
    """(PreToolUse + PostToolUse, git status, python -c pass), alternated sample by sample."""
    pylon = tool("pylon")
    hook, status, python = Timing("hooks", []), Timing("git status", []), Timing("python", [])
    for n in range(runs + 2):
        pre = timed([pylon, "hook", "claude-code"], repo, event("PreToolUse", repo, n))
        post = timed([pylon, "hook", "claude-code"], repo, event("PostToolUse", repo, n), {"PYLON_KEEP_DETACH": "0"})
        git = timed(["git", "status", "--porcelain"], repo)
        py = timed([sys.executable, "-c", "pass"], repo)
        if n >= 2:
            hook.samples.append(pre + post)
            status.samples.append(git)
            python.samples.append(py)
    return hook, status, python


def fingerprint(repo: Path, runs: int) -> tuple[Timing, Timing]:
    pylon = tool("pylon")
    fp, status = Timing("fingerprint", []), Timing("git status", [])
    for n in range(runs + 2):
        a = timed([pylon, "ws", "fingerprint"], repo)
        b = timed(["git", "status", "--porcelain"], repo)
        if n >= 2:
            fp.samples.append(a)
            status.samples.append(b)
    return fp, status


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args()
    compileall.compile_dir(str(ROOT / "pylon"), quiet=1)
    state = Path(tempfile.mkdtemp(prefix="pylon-bench-keep-"))
    os.environ["PYLON_STATE_DIR"] = str(state)
    rows: list[tuple[str, ...]] = []
    try:
        for files in (5000, 80000):
            repo = build(files)
            hook, status, python = hooks_of_one_call(repo, args.runs)
            rows.append(
                (
                    f"{files:,} files: PreToolUse + PostToolUse (capture in the hook)",
                    hook.ms,
                    status.ms,
                    f"{hook.median / status.median:.2f}x",
                    f"+{(hook.median - 2 * python.median) * 1000:.1f} ms",
                )
            )
        repo = build(80000)
        watcher = start_watch(tool("pylon"), repo)
        try:
            hook, status, python = hooks_of_one_call(repo, args.runs)
        finally:
            stop_watch(watcher)
        rows.append(
            (
                "80,000 files, `ws watch` running: the same",
                hook.ms,
                status.ms,
                f"{hook.median / status.median:.2f}x",
                f"+{(hook.median - 2 * python.median) * 1000:.1f} ms",
            )
        )
        repo = build(40000, changed=200)
        fp, status = fingerprint(repo, args.runs)
        ratio = fp.median / status.median
        rows.append(
            (
                "40,000 files, 200 changed: `ws fingerprint`",
                fp.ms,
                status.ms,
                f"{ratio:.2f}x",
                verdict(ratio <= 1.2) + " (1.2x)",
            )
        )
    finally:
        shutil.rmtree(state, ignore_errors=True)
    text = table(rows, ("what", "median", "`git status --porcelain`", "ratio", "over two `python -c pass`"))
    text += (
        "\n\nThe hooks row is both hook processes of one shell call with the capture after the command run "
        "inside the hook (in real use the helper's fork does it once it has answered, while the client goes on); "
        "the last column is what they add beyond the two interpreters' start. With `ws watch` running, the "
        "keep before and the capture after take the watcher's vouched state (one round trip to it) instead "
        "of a scan; without it, each is one `git status` on the keep's private index."
    )
    print(text)
    if not args.no_record:
        load = os.getloadavg()[0]
        record(
            "keep",
            "## Keeping the state before every shell command (`bench/keep.py`)\n\n"
            f"{args.runs} samples per row, pylon and git alternated. 1-minute load average at the end: {load:.1f}."
            f"\n\n{text}",
        )


if __name__ == "__main__":
    main()
