"""Benchmark: start-up of whole commands against the bare interpreter, timed in the same run.

The registry issue's bars, as medians of whole processes against `python -c pass` (this venv's
interpreter, site-packages and all, which every console script also pays):

- `pylon --version` within 2x;
- `pylon read` of a small file and `canon read` on a small store within 3x;
- `--help` of any command within 12x (help builds a typer app from the registry).

Also timed, for the record: `pylon ws changes` on a tiny repository and `canon lint` on the small
store (each does real work besides starting). Modules are byte-compiled first: this environment
sets PYTHONDONTWRITEBYTECODE=1, and an installed package ships its .pyc files.

Run: .venv/bin/python bench/startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import compileall
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import ROOT, WORK, record, table, time_command, tool, verdict

SCRATCH = WORK / "startup"


def scratch() -> Path:
    """A small store and repository: two articles, a journal entry, one file to read."""
    shutil.rmtree(SCRATCH, ignore_errors=True)
    SCRATCH.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=SCRATCH, check=True)
    (SCRATCH / "src").mkdir()
    (SCRATCH / "src" / "app.py").write_text("".join(f"line {i}\n" for i in range(200)), encoding="utf-8")
    subprocess.run(
        [tool("canon"), "write", "src/app.py", "--capsule", "The app.", "--body", "Runs. [[src]]"],
        cwd=SCRATCH,
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [tool("canon"), "write", "src", "--capsule", "Sources.", "--body", "All code."],
        cwd=SCRATCH,
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [tool("canon"), "journal", "Started.", "--subject", "src"], cwd=SCRATCH, check=True, capture_output=True
    )
    env = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}
    subprocess.run(["git", "add", "-A"], cwd=SCRATCH, check=True)
    subprocess.run(["git", "commit", "-qm", "init"], cwd=SCRATCH, check=True, env={**env, "PATH": "/usr/bin:/bin"})
    return SCRATCH


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    runs = parser.parse_args().runs
    compileall.compile_dir(str(ROOT / "pylon"), quiet=1)
    compileall.compile_dir(str(Path(sys.prefix) / "lib"), quiet=1)
    where = scratch()
    py = sys.executable
    base = time_command("python -c pass", [py, "-c", "pass"], runs=runs, cwd=where)
    cases = [
        ("pylon --version", [tool("pylon"), "--version"], 2.0),
        ("pylon read src/app.py", [tool("pylon"), "read", "src/app.py"], 3.0),
        ("canon read src/app.py", [tool("canon"), "read", "src/app.py"], 3.0),
        ("pylon --help", [tool("pylon"), "--help"], 12.0),
        ("pylon ws diff --help", [tool("pylon"), "ws", "diff", "--help"], 12.0),
        ("canon lint --help", [tool("canon"), "lint", "--help"], 12.0),
        ("pylon edit --help", [tool("pylon"), "edit", "--help"], 12.0),
        ("pylon ws changes", [tool("pylon"), "ws", "changes"], None),
        ("canon lint", [tool("canon"), "lint"], None),
    ]
    rows = [("python -c pass (baseline)", base.ms, "1.00x", "")]
    for label, argv, bar in cases:
        t = time_command(label, argv, runs=runs, cwd=where, ok_codes=(0, 1))
        ratio = t.median / base.median
        rows.append((f"`{label}`", t.ms, f"{ratio:.2f}x", f"within {bar:g}x: {verdict(ratio <= bar)}" if bar else "-"))
    record(
        "startup",
        "## Start-up (`bench/startup.py`)\n\nMedians of whole processes on a two-article store and "
        "a 200-line file; the baseline is this venv's interpreter doing nothing, timed in the same run.\n\n"
        + table(rows, ("command", "median", "vs python -c pass", "bar")),
    )
    print(table(rows, ("command", "median", "vs python -c pass", "bar")))


if __name__ == "__main__":
    main()
