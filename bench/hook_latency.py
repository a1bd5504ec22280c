"""Benchmark: what pylon's hooks add to one shell tool call, this tree against the old two commands.

A shell call in Claude Code fires PreToolUse (the guard) and PostToolBatch (canon); in Codex,
PreToolUse and PostToolUse. Each is one process. Timed in one run, round by round (every command
once per round, so a busy machine slows them all alike):

- `python -c pass`, the floor of any Python hook;
- this tree: `pylon hook claude-code` on the PreToolUse of a safe command, on the PostToolBatch
  after it (a canon store in the checkout), their sum per round (= per shell call), and on the
  PreToolUse of a destructive command (snapshot, then allow);
- the previous one-entry hook, the tree of --prev REV (default 93ee968), on the same events;
- the old setup, the tree of --old REV (default 4ef2f1e) run by a copy of the console scripts:
  `pylon guard hook claude-code` + `canon hook claude-code` on the same events.

A second PostToolBatch names a file whose article the session was shown already (the common case
after a shell call). Each PostToolBatch runs right after the PreToolUse of its own command, as in a
session, so it takes the reading that PreToolUse kept (pylon/guard/readout.py); one more runs with
nothing kept (the guard not installed, or the reading too old) and reads the command itself. With
--instructions, valgrind's callgrind also counts the instructions of one run of each hook process
and of `python -c pass`: a figure the machine's load does not move.

p50 and p95 of each. The bar (issue 18): at most 80 ms per shell call over no hooks, measured in
the real clients (tests' e2e tier); here, the processes alone.

Run: .venv/bin/python bench/hook_latency.py [--runs N] [--instructions]   (or bench/guard.py --hook-only)
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import ROOT, WORK, machine_line, record, table, tool, verdict

SCRATCH = WORK / "hook"
_SCRIPT = """#!{python}
import sys
sys.path.insert(0, {tree!r})
from pylon.cli.main import {name}
sys.exit({name}())
"""


def _old_scripts(revision: str) -> dict[str, str]:
    """Console scripts running the tree of `revision` (extracted under SCRATCH)."""
    tree = SCRATCH / f"tree-{revision}"
    if not tree.exists():
        tree.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "archive", revision, "pylon"], cwd=ROOT, capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        import compileall

        compileall.compile_dir(str(tree), quiet=1)
    out = {}
    for name in ("pylon", "canon"):
        path = SCRATCH / f"old-{name}"
        path.write_text(_SCRIPT.format(python=sys.executable, tree=str(tree), name=name))
        path.chmod(0o755)
        out[name] = str(path)
    return out


def _checkout() -> Path:
    repo = SCRATCH / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    for i in range(200):
        folder = repo / "src" / f"pkg{i % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{i}.py").write_text(f"X = {i}\n")
    (repo / ".gitignore").write_text("build/\n")
    (repo / "build").mkdir()
    (repo / "build" / "out.o").write_text("obj\n")
    env = dict(
        os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@b"
    )
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "init"], cwd=repo, check=True, env=env)
    subprocess.run([tool("canon"), "init"], cwd=repo, check=True, capture_output=True)
    for i in range(10):
        subprocess.run(
            [tool("canon"), "write", f"src/pkg{i}", "--capsule", f"package {i}", "--body", "body"],
            cwd=repo,
            check=True,
            capture_output=True,
        )
    return repo


def _events(repo: Path) -> dict[str, bytes]:
    base = {"session_id": "bench", "transcript_path": "/t.jsonl", "cwd": str(repo), "permission_mode": "default"}
    safe = {"command": "git status && npm test 2>&1 | tail -20"}
    governed = {"command": "echo call && cat src/pkg1/mod1.py"}
    return {
        "pre-safe": json.dumps(
            {**base, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": safe, "tool_use_id": "t1"}
        ).encode(),
        "post": json.dumps(
            {
                **base,
                "hook_event_name": "PostToolBatch",
                "tool_calls": [{"tool_name": "Bash", "tool_input": safe, "tool_use_id": "t1"}],
            }
        ).encode(),
        "pre-governed": json.dumps(
            {**base, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": governed, "tool_use_id": "t3"}
        ).encode(),
        "post-governed": json.dumps(
            {
                **base,
                "hook_event_name": "PostToolBatch",
                "tool_calls": [{"tool_name": "Bash", "tool_input": governed, "tool_use_id": "t3"}],
            }
        ).encode(),
        "pre-destructive": json.dumps(
            {
                **base,
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": "rm -rf build src/pkg1"},
                "tool_use_id": "t2",
            }
        ).encode(),
    }


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def instructions(argv: list[str], data: bytes, cwd: Path, env: dict[str, str]) -> float | None:
    """Instructions one process executes (millions), counted by valgrind's callgrind: the same
    count whatever else the machine runs. None when valgrind is missing."""
    import shutil
    import tempfile

    if shutil.which("valgrind") is None:
        return None
    with tempfile.TemporaryDirectory() as folder:
        proc = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={folder}/out", *argv],
            cwd=cwd,
            input=data,
            capture_output=True,
            env=env,
        )
    for line in proc.stderr.decode(errors="replace").splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1]) / 1e6
    return None


def measure(runs: int, old: str, prev: str = "93ee968", count: bool = False) -> str:
    SCRATCH.mkdir(parents=True, exist_ok=True)
    import shutil

    shutil.rmtree(SCRATCH / "repo", ignore_errors=True)
    repo = _checkout()
    events = _events(repo)
    olds = _old_scripts(old)
    prevs = _old_scripts(prev)
    pylon, py = tool("pylon"), sys.executable
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as installed: .pyc used
    env["PYLON_STATE_DIR"] = str(SCRATCH / "state")
    commands = {
        "python -c pass": ([py, "-c", "pass"], b""),
        "new: pylon hook (PreToolUse, safe)": ([pylon, "hook", "claude-code"], events["pre-safe"]),
        # each PostToolBatch right after its own PreToolUse, as in a session: it takes the kept reading
        "new: pylon hook (PostToolBatch)": ([pylon, "hook", "claude-code"], events["post"]),
        "new: pylon hook (PostToolBatch, no reading kept)": ([pylon, "hook", "claude-code"], events["post"]),
        "new: pylon hook (PreToolUse, a governed file)": ([pylon, "hook", "claude-code"], events["pre-governed"]),
        "new: pylon hook (PostToolBatch, a governed file shown already)": (
            [pylon, "hook", "claude-code"],
            events["post-governed"],
        ),
        f"prev ({prev}): pylon hook (PreToolUse, safe)": ([prevs["pylon"], "hook", "claude-code"], events["pre-safe"]),
        f"prev ({prev}): pylon hook (PostToolBatch)": ([prevs["pylon"], "hook", "claude-code"], events["post"]),
        f"prev ({prev}): pylon hook (PreToolUse, a governed file)": (
            [prevs["pylon"], "hook", "claude-code"],
            events["pre-governed"],
        ),
        f"prev ({prev}): pylon hook (PostToolBatch, a governed file shown already)": (
            [prevs["pylon"], "hook", "claude-code"],
            events["post-governed"],
        ),
        "old: pylon guard hook (PreToolUse, safe)": (
            [olds["pylon"], "guard", "hook", "claude-code"],
            events["pre-safe"],
        ),
        "old: canon hook (PostToolBatch)": ([olds["canon"], "hook", "claude-code"], events["post"]),
        "new: pylon hook (PreToolUse, rm -rf: snapshot)": ([pylon, "hook", "claude-code"], events["pre-destructive"]),
        "old: pylon guard hook (PreToolUse, rm -rf: snapshot)": (
            [olds["pylon"], "guard", "hook", "claude-code"],
            events["pre-destructive"],
        ),
    }
    samples: dict[str, list[float]] = {label: [] for label in commands}
    cpu: dict[str, list[float]] = {label: [] for label in commands}
    for i in range(runs + 2):
        for label, (argv, data) in commands.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            proc = subprocess.run(argv, cwd=repo, input=data, capture_output=True, env=env)
            elapsed = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if proc.returncode != 0:
                raise RuntimeError(f"{label}: exit {proc.returncode}: {proc.stderr.decode()[-1500:]}")
            if label.endswith("snapshot)") and b"guard-" not in proc.stdout:
                raise RuntimeError(f"{label}: no snapshot in {proc.stdout!r}")
            if i >= 2:
                samples[label].append(elapsed)
                cpu[label].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    pairs = {
        "new: one shell call (PreToolUse + PostToolBatch)": (
            "new: pylon hook (PreToolUse, safe)",
            "new: pylon hook (PostToolBatch)",
        ),
        "new: one shell call naming a governed file": (
            "new: pylon hook (PreToolUse, a governed file)",
            "new: pylon hook (PostToolBatch, a governed file shown already)",
        ),
        f"prev ({prev}): one shell call (PreToolUse + PostToolBatch)": (
            f"prev ({prev}): pylon hook (PreToolUse, safe)",
            f"prev ({prev}): pylon hook (PostToolBatch)",
        ),
        f"prev ({prev}): one shell call naming a governed file": (
            f"prev ({prev}): pylon hook (PreToolUse, a governed file)",
            f"prev ({prev}): pylon hook (PostToolBatch, a governed file shown already)",
        ),
        "old: one shell call (guard hook + canon hook)": (
            "old: pylon guard hook (PreToolUse, safe)",
            "old: canon hook (PostToolBatch)",
        ),
    }
    for label, (pre, post) in pairs.items():
        samples[label] = [a + b for a, b in zip(samples[pre], samples[post])]
        cpu[label] = [a + b for a, b in zip(cpu[pre], cpu[post])]
    per_call = {label: samples[label] for label in pairs}
    floor = statistics.median(samples["python -c pass"])
    rows = [
        (
            label,
            f"{_pct(s, 0.5) * 1000:.1f} ms",
            f"{_pct(s, 0.95) * 1000:.1f} ms",
            f"{_pct(s, 0.5) / floor:.2f}x",
            f"{_pct(cpu[label], 0.5) * 1000:.1f} ms",
        )
        for label, s in samples.items()
    ]
    cpu_new = statistics.median(cpu["new: one shell call (PreToolUse + PostToolBatch)"])
    cpu_old = statistics.median(cpu["old: one shell call (guard hook + canon hook)"])
    cpu_floor = statistics.median(cpu["python -c pass"])
    new_call = statistics.median(per_call["new: one shell call (PreToolUse + PostToolBatch)"])
    old_call = statistics.median(per_call["old: one shell call (guard hook + canon hook)"])
    prev_call = statistics.median(per_call[f"prev ({prev}): one shell call (PreToolUse + PostToolBatch)"])
    cpu_prev = statistics.median(cpu[f"prev ({prev}): one shell call (PreToolUse + PostToolBatch)"])
    counted = ""
    if count:
        names = [
            "python -c pass",
            "new: pylon hook (PreToolUse, safe)",
            "new: pylon hook (PostToolBatch)",
            "new: pylon hook (PostToolBatch, no reading kept)",
            "new: pylon hook (PreToolUse, a governed file)",
            "new: pylon hook (PostToolBatch, a governed file shown already)",
            f"prev ({prev}): pylon hook (PreToolUse, safe)",
            f"prev ({prev}): pylon hook (PostToolBatch)",
            f"prev ({prev}): pylon hook (PostToolBatch, a governed file shown already)",
        ]
        got = {name: instructions(commands[name][0], commands[name][1], repo, env) for name in names}
        if all(v is not None for v in got.values()):
            base_i = got["python -c pass"] or 1.0
            counted = "\n".join(
                [
                    "Instructions per process (valgrind callgrind; load-independent, one run each):",
                    "",
                    table(
                        [(name, f"{v:.1f} M", f"{(v or 0) / base_i:.2f}x") for name, v in got.items()],
                        ("process", "instructions", "vs python -c pass"),
                    ),
                    "",
                ]
            )
    refs = subprocess.run(
        ["git", "for-each-ref", "--format=delete %(refname)", "refs/pylon/"], cwd=repo, check=True, capture_output=True
    ).stdout
    subprocess.run(["git", "update-ref", "--stdin"], cwd=repo, input=refs, check=True)  # the snapshots taken
    return "\n".join(
        [
            "## the hook entry (`bench/hook_latency.py`, `bench/guard.py --hook-only`)",
            "",
            machine_line(),
            "",
            (
                "Whole processes on a 200-file checkout with a canon "
                f"store, {runs} rounds, each command once per round, "
                f"against `python -c pass` ({floor * 1000:.1f} ms) in the same rounds; the old setup is the tree of "
                f"{old} (two commands, `pylon guard hook` and `canon hook`, each through the registry and parser):"
            ),
            "",
            table(rows, ("process", "p50", "p95", "p50 vs python -c pass", "CPU p50 (user+sys)")),
            "",
            (
                f"Per shell call, pylon's two hook processes: {new_call * 1000:.1f} ms now against "
                f"{old_call * 1000:.1f} ms before ({new_call / old_call:.2f}x); over two bare Python starts: "
                f"+{(new_call - 2 * floor) * 1000:.1f} ms now, "
                f"+{(old_call - 2 * floor) * 1000:.1f} ms before. CPU time "
                f"(steadier on a shared machine): {cpu_new * 1000:.1f} ms now against {cpu_old * 1000:.1f} ms before "
                f"({cpu_new / cpu_old:.2f}x; two bare Python starts: {2 * cpu_floor * 1000:.1f} ms)."
            ),
            "",
            (
                f"Against the previous hook ({prev}), same rounds: {new_call * 1000:.1f} ms against "
                f"{prev_call * 1000:.1f} ms "
                f"wall ({new_call / prev_call:.2f}x), {cpu_new * 1000:.1f} ms against {cpu_prev * 1000:.1f} ms CPU "
                f"({cpu_new / cpu_prev:.2f}x)."
            ),
            "",
            counted,
            (
                f"Bar (issue 18, real clients: at most 80 ms per shell call over no hooks), the processes alone: "
                f"{verdict(new_call * 1000 <= 80)} ({new_call * 1000:.1f} ms; 1-minute load average "
                f"{os.getloadavg()[0]:.1f})."
            ),
            "",
        ]
    )


def main(runs: int = 20, old: str = "4ef2f1e", prev: str = "93ee968", count: bool = False) -> None:
    md = measure(runs, old, prev, count)
    record("guard-hook", md)
    print(md)


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--old", default="4ef2f1e", help="the revision of the old two-command setup")
    ap.add_argument("--prev", default="93ee968", help="the revision of the previous one-entry hook")
    ap.add_argument("--instructions", action="store_true", help="also count instructions with valgrind")
    opts = ap.parse_args()
    main(opts.runs, opts.old, opts.prev, opts.instructions)
