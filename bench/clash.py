"""Benchmark: what the write-time conflict check adds to the PreToolUse of an agent's Edit.

Two checkouts of the same 2,000-file repository, timed in one run, round by round (each command
once per round, so a busy machine slows them alike):

- alone: no other worktree; the check stops after a stat of the admin folder (the baseline: the
  hook as it was, the guard's file-tool answer included);
- crowded: three other live worktrees (an owned session that changed other files, a plain `git
  worktree add`, one under `.claude/worktrees/`), the edited file changed by none of them: the
  check lists them, resolves their HEADs, reads its cache and compares one file per worktree.

Both answer `pylon hook claude-code` for the same `Edit` event of a clean tracked file (the guard
then has nothing to snapshot). Also timed once each: the first check of a file (a cold cache:
`git merge-base`s and one `git cat-file --batch-check`), and a touching file another worktree
changed (lines, `git merge-file`). The bar (issue 30): at most 30 ms added when nothing conflicts.

Run: .venv/bin/python bench/clash.py [--runs N]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import WORK, machine_line, record, table, tool, verdict

SCRATCH = WORK / "clash"
FILES = 2000
BAR_MS = 30.0


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def make(name: str, env: dict[str, str], crowded: bool) -> Path:
    repo = SCRATCH / name
    subprocess.run(["rm", "-rf", str(repo)], check=True)
    git(SCRATCH, "init", "-q", "-b", "main", str(repo))
    for i in range(FILES):
        folder = repo / "src" / f"pkg{i % 20}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{i}.py").write_text("".join(f"line {n} of {i}\n" for n in range(40)))
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "init")
    if crowded:
        made = subprocess.run(
            [tool("pylon"), "ws", "new", "s1", "--json"], cwd=repo, env=env, check=True, capture_output=True, text=True
        )
        session = Path(json.loads(made.stdout)["path"])
        (session / "src/pkg1/mod1.py").write_text("changed by the session\n")
        git(repo, "worktree", "add", "-q", "-b", "plain", str(SCRATCH / f"{name}-plain"))
        (SCRATCH / f"{name}-plain/src/pkg2/mod2.py").write_text("changed by hand\n")
        git(repo, "worktree", "add", "-q", "-b", "worktree-feat", str(repo / ".claude/worktrees/feat"))
        (repo / ".claude/worktrees/feat/src/pkg3/mod3.py").write_text("changed by claude\n")
    return repo


def event(repo: Path, rel: str) -> bytes:
    return json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "cwd": str(repo),
            "session_id": "bench",
            "tool_input": {"file_path": str(repo / rel), "old_string": "line 7 of", "new_string": "line seven of"},
        }
    ).encode()


def shell(repo: Path) -> bytes:
    """A shell command that writes a file nobody else changed (the guard calls it safe: no snapshot)."""
    return json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "cwd": str(repo),
            "session_id": "bench",
            "tool_input": {"command": "echo done > build-notes.txt && wc -l src/pkg0/mod0.py"},
        }
    ).encode()


def once(repo: Path, data: bytes, env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run([tool("pylon"), "hook", "claude-code"], cwd=repo, env=env, input=data, capture_output=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.decode())
    return elapsed


def main() -> None:
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 40
    subprocess.run(["rm", "-rf", str(SCRATCH)], check=True)  # a fresh start: worktrees of an earlier run included
    SCRATCH.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, XDG_DATA_HOME=str(SCRATCH / "xdg"), PYLON_STATE_DIR=str(SCRATCH / "state"))
    alone, crowded = make("alone", env, False), make("crowded", env, True)
    target = "src/pkg0/mod0.py"
    cache = crowded / ".git" / "pylon" / "clash.cache"
    cache.unlink(missing_ok=True)
    cold = once(crowded, event(crowded, target), env)
    said = (
        subprocess.run(
            [tool("pylon"), "hook", "claude-code"],
            cwd=crowded,
            env=env,
            input=event(crowded, target),
            capture_output=True,
        )
        .stdout.decode()
        .strip()
    )
    assert said == "{}", said  # nothing conflicts: nothing said
    touching = once(crowded, event(crowded, "src/pkg1/mod1.py"), env)
    cases = {
        "alone": (alone, event(alone, target)),
        "crowded": (crowded, event(crowded, target)),
        "shell alone": (alone, shell(alone)),
        "shell crowded": (crowded, shell(crowded)),
    }
    samples: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(3):  # warm-up
        for repo, data in cases.values():
            once(repo, data, env)
    for _ in range(runs):
        for name, (repo, data) in cases.items():
            samples[name].append(once(repo, data, env))
    med = {k: statistics.median(v) * 1000 for k, v in samples.items()}
    p95 = {k: sorted(v)[int(len(v) * 0.95) - 1] * 1000 for k, v in samples.items()}
    added = med["crowded"] - med["alone"]
    added_shell = med["shell crowded"] - med["shell alone"]
    rows = [
        ("Edit, alone (baseline: no other worktree)", f"{med['alone']:.1f} ms", f"{p95['alone']:.1f} ms", "1.00x"),
        (
            "Edit, crowded (3 other worktrees, nothing conflicts)",
            f"{med['crowded']:.1f} ms",
            f"{p95['crowded']:.1f} ms",
            f"{med['crowded'] / med['alone']:.2f}x",
        ),
        (
            "Bash writing a file, alone (baseline)",
            f"{med['shell alone']:.1f} ms",
            f"{p95['shell alone']:.1f} ms",
            "1.00x",
        ),
        (
            "Bash writing a file, crowded",
            f"{med['shell crowded']:.1f} ms",
            f"{p95['shell crowded']:.1f} ms",
            f"{med['shell crowded'] / med['shell alone']:.2f}x",
        ),
        ("crowded, first check (cold cache), once", f"{cold * 1000:.1f} ms", "", ""),
        ("crowded, a file the session changed (merged), once", f"{touching * 1000:.1f} ms", "", ""),
    ]
    text = (
        f"`pylon hook claude-code` on the PreToolUse of an Edit, {FILES} files, {runs} rounds; "
        f"{machine_line()}\n\n"
        + table(rows, ("case", "median", "p95", "ratio"))
        + f"\n\nAdded by the check when nothing conflicts: {added:.1f} ms to an Edit, {added_shell:.1f} ms to a "
        f"shell command that writes (its reading for the written paths) (bar {BAR_MS:.0f} ms): "
        f"{verdict(max(added, added_shell) <= BAR_MS)}\n"
    )
    print(text)
    record("clash", text)


if __name__ == "__main__":
    main()
