"""Benchmark: `pylon sessions` over a 100 MB history folder (issue 32: at most 2 s, incremental after).

The history is generated in the shapes Claude Code 2.1.332 and Codex 0.171.0 write
(tests/sessions/transcripts.py; tests/e2e/test_sessions.py checks those shapes on the real
clients' files): Claude Code sessions of 200 turns (a tool call with its usage, a 3 KB tool
result, and every tenth turn one of the 60 KB request-shape lines the client writes beside them),
Codex rollouts of 150 turns (a call, its event, a 3 KB output, a token count), about 70% Claude
Code's bytes and 30% Codex's; half the sessions ran in the benchmark's repository.

Measured in the same run, whole processes, median of --runs:
- baselines: `python -c pass`, `cat` of every transcript (reading the bytes, nothing more), and
  ccusage (`ccusage session --json --offline`, its native build) when tests/e2e has installed it;
- `pylon sessions --all --json` with no cache (each sample after removing it), with the cache and
  nothing changed, and after 10 transcripts grew by 100 KB each;
- `pylon sessions` (this repository, text) and `pylon sessions statusline` with the cache.

    .venv/bin/python bench/sessions.py [--mb 100] [--runs 5] [--rebuild]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import WORK, record, table, time_command, tool, verdict

import tests.sessions.transcripts as T

PYLON = tool("pylon")
BAR = 2.0
CCUSAGE = (
    Path(os.environ.get("PYLON_E2E_NPM") or Path(__file__).resolve().parent.parent / "tests" / "e2e" / ".npm")
    / "ccusage"
    / "node_modules"
    / ".bin"
    / "ccusage"
)
SHAPE = json.dumps(
    {
        "type": "api-request-shape",
        "sessionId": "x",
        "timestamp": "2025-06-01T01:00:00.000Z",
        "shape": {"tools": [{"name": f"Tool{i}", "description": "d" * 1200} for i in range(48)]},
    },
    separators=(",", ":"),
)
RESULT = "".join(f"{n:5d}\tline {n} of a file that was read, with some code = value({n})\n" for n in range(50))[:3000]


def claude_session(home: Path, cwd: Path, n: int) -> int:
    sid = f"5dc669e5-0000-4000-8000-{n:012d}"
    lines = [T.prompt(0, cwd, session=sid)]
    for turn in range(200):
        at = 1 + turn
        lines.append(
            T.assistant(
                at,
                cwd,
                f"msg_{n}_{turn}",
                session=sid,
                request=f"req_{n}_{turn}",
                tools=[
                    (
                        f"toolu_{n}_{turn}",
                        "Read" if turn % 3 else "Bash",
                        {"file_path": f"{cwd}/src/m{turn % 17}.py"}
                        if turn % 3
                        else {"command": f"pytest -q tests/test_{turn % 9}.py", "description": "run"},
                    )
                ],
                usage={
                    "input_tokens": 3,
                    "cache_read_input_tokens": 20_000 + turn * 90,
                    "cache_creation_input_tokens": 400,
                    "output_tokens": 150,
                },
            )
        )
        lines.append(T.result(at + 0.5, cwd, f"toolu_{n}_{turn}", RESULT, error=turn % 23 == 0, session=sid))
        if turn % 10 == 0:
            lines.append(SHAPE)
    path = T.claude_file(home, cwd, lines, session=sid)
    return path.stat().st_size


def codex_session(home: Path, cwd: Path, n: int) -> int:
    thread = f"01a2490e-0000-7000-8000-{n:012d}"
    lines = [T.meta(0, cwd, thread), T.turn_context(0.5, cwd), T.event(0.6, "task_started")]
    total = [0, 0, 0, 0, 0]
    for turn in range(150):
        at = 1 + turn
        cid = f"call_{n}_{turn}"
        lines += [
            T.call(at, cid, f"sed -n 1,200p src/m{turn % 17}.py"),
            T.event(
                at + 0.1,
                "item_completed",
                item={
                    "type": "CommandExecution",
                    "id": cid,
                    "status": "completed",
                    "exit_code": 0,
                    "aggregated_output": RESULT[:400],
                },
            ),
            T.output(at + 0.2, cid, 0, RESULT),
        ]
        last = [21_000 + turn * 80, 20_000 + turn * 80, 180, 60, 21_180 + turn * 80]
        total = [a + b for a, b in zip(total, last)]
        lines.append(T.tokens(at + 0.3, total, last))
    lines.append(T.event(200, "task_complete"))
    path = T.codex_file(home, lines, thread=thread)
    return path.stat().st_size


def build(base: Path, megabytes: int) -> tuple[Path, Path]:
    """The history (generated once into `pristine/`, copied to `home/` for each run: the run grows
    some transcripts) and the repository half the sessions ran in."""
    home, repo = base / "home", base / "repo"
    if (base / "done").exists():
        shutil.rmtree(home, ignore_errors=True)
        shutil.copytree(base / "pristine", home, symlinks=True)
        return home, repo
    shutil.rmtree(base, ignore_errors=True)
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    elsewhere = base / "elsewhere"
    claude_bytes = codex_bytes = 0
    n = 0
    while claude_bytes + codex_bytes < megabytes * 1024 * 1024:
        cwd = repo if n % 2 == 0 else elsewhere / f"p{n % 20}"
        if codex_bytes < 0.3 * (claude_bytes + codex_bytes):
            codex_bytes += codex_session(home, cwd, n)
        else:
            claude_bytes += claude_session(home, cwd, n)
        n += 1
    (base / "done").write_text(f"{n} sessions, {claude_bytes} + {codex_bytes} bytes\n")
    shutil.copytree(home, base / "pristine", symlinks=True)
    return home, repo


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    base = WORK / f"sessions-{args.mb}mb"
    if args.rebuild:
        shutil.rmtree(base, ignore_errors=True)
    home, repo = build(base, args.mb)
    files = [str(p) for p in sorted(home.rglob("*.jsonl"))]
    shutil.rmtree(base / "state", ignore_errors=True)
    size = sum(os.path.getsize(f) for f in files)
    state = base / "state"
    env = {**T.claude_env(home), "HOME": str(home), "PYLON_STATE_DIR": str(state)}
    cache = state / "sessions" / "files"
    grow = [f for f in files if "/projects/" in f][:5] + [f for f in files if "/sessions/" in f and "/.codex/" in f][:5]
    appender = (
        f"{sys.executable} -c \"import sys\nfor f in sys.argv[1:]:\n  d = open(f, 'rb').read()\n"
        f"  tail = d[d.rfind(b'\\\\n', 0, len(d) - 1) + 1:]\n"
        f"  open(f, 'ab').write(tail * (100_000 // len(tail) + 1))\" " + " ".join(grow)
    )
    runs = args.runs
    load_before = os.getloadavg()[0]
    rows = []
    timings = {}

    def timed(label: str, argv: list[str] | str, **kw: Any) -> float:
        t = time_command(label, argv, runs=runs, warmup=1, cwd=repo, env=env, **kw)
        timings[label] = t.median
        print(f"{label}: {t.ms}", file=sys.stderr)
        return t.median

    timed("python -c pass", [sys.executable, "-c", "pass"])
    timed("cat every transcript", "cat " + " ".join(files) + " > /dev/null", shell=True)
    if CCUSAGE.exists():
        timed("ccusage session --json --offline", [str(CCUSAGE), "session", "--json", "--offline"])
    cold = timed(
        "pylon sessions --all --json, no cache", [PYLON, "sessions", "--all", "--json"], setup=f"rm -rf {cache}"
    )
    warm = timed("pylon sessions --all --json, cached, nothing changed", [PYLON, "sessions", "--all", "--json"])
    grown = timed(
        "pylon sessions --all --json, cached, 10 transcripts grew 100 KB",
        [PYLON, "sessions", "--all", "--json"],
        setup=appender,
    )
    timed("pylon sessions (this repository), cached", [PYLON, "sessions"])
    big = next(f for f in files if "/projects/" in f)
    event = json.dumps({"session_id": Path(big).stem, "transcript_path": big, "workspace": {"current_dir": str(repo)}})
    timed("pylon sessions statusline, cached", [PYLON, "sessions", "statusline"], stdin_data=event.encode())
    python, raw = timings["python -c pass"], timings["cat every transcript"]
    for label, median in timings.items():
        rows.append((label, f"{median * 1000:.1f} ms", f"{median / python:.1f}x", f"{median / raw:.1f}x"))
    done = (base / "done").read_text().strip()
    text = (
        f"History: {size / 1024 / 1024:.1f} MB in {len(files)} transcripts ({done}), generated by "
        "`bench/sessions.py` in the clients' shapes; whole processes, median of "
        f"{runs} after one warm-up, in the same run; load average {load_before:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after (2 cores).\n\n"
        + table(rows, ("command", "median", "/ python -c pass", "/ cat of the files"))
        + "\n\n"
        f"- First read of {size / 1024 / 1024:.0f} MB without a cache: {cold:.2f} s, bar {BAR:.0f} s: "
        f"{verdict(cold <= BAR)}.\n"
        f"- With the cache: {warm * 1000:.0f} ms when nothing changed ({cold / warm:.1f}x faster), "
        f"{grown * 1000:.0f} ms after 1 MB was appended to 10 transcripts (only the new lines are read).\n"
    )
    if "ccusage session --json --offline" in timings:
        ccu = timings["ccusage session --json --offline"]
        text += (
            f"- ccusage (native, multi-threaded) on the same files: {ccu * 1000:.0f} ms; pylon's first read is "
            f"{cold / ccu:.1f}x that, its cached reads {warm / ccu:.2f}x.\n"
        )
    record("sessions", "## pylon sessions (`bench/sessions.py`)\n\n" + text)


if __name__ == "__main__":
    main()
