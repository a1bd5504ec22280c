"""Benchmark: what pylon's hooks add to every shell tool call inside the real clients (issue 18, item 6).

Claude Code and Codex (the pinned npm versions of tests/e2e/clients.py) run one script of N shell
calls against the mock model server (tests/e2e/mockmodel.py), in the same repository shape, three
ways in the same run, interleaved round by round:

- `none`: no hooks at all (the baseline);
- `no-op`: one `true` command hook on each event pylon uses (the clients' own cost of a hook);
- `pylon`: whatever `pylon guard install AGENT` and `canon hook install AGENT` write into the
  project's settings (so the figure follows the hook entry they install, whichever it is);
- `pylon, no helper`: the same with `PYLON_HOOK_HELPER=0` (every event answered in its own hook
  process, as before the resident helper: pylon/hooks/helper.py);
- `pylon, ws watch`: the same with `pylon ws watch` running in the repository (the keep takes the
  watcher's vouched state instead of a scan); chosen with `--ways`, as for an 80,000-file tree:
  `--files 80000 --ways none,pylon,watch`.

The time of one shell call is read at the mock server: from the moment it sent the tool call to
the moment the client's next request (carrying the result) arrived, so the model's own time is
not in it. Reported: the median per call of each way, and the medians' differences to `none`.
Bar: pylon adds at most 80 ms per shell call over no hooks.

Run: .venv/bin/python bench/agents_e2e.py [--calls 20] [--rounds 3] [--files N] [--ways KEYS] [--no-record]
(PYLON_E2E_NPM names the npm folder of the clients, as for the tests.)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import BIN, record, start_watch, stop_watch, table, time_command, tool, verdict

from tests.e2e.clients import PINNED, base_env, install, run_claude, run_codex
from tests.e2e.mockmodel import Bash, MockModel, Step, Text

BAR = 0.080
WAYS = {"none": "none", "no-op": "no-op", "pylon": "pylon", "no-helper": "pylon, no helper", "watch": "pylon, ws watch"}
DEFAULT_WAYS = "none,no-op,pylon,no-helper"
AGENT = {"claude": "claude-code", "codex": "codex"}
# the events pylon's installs use, per client (docs/reference/agents.md)
EVENTS = {
    "claude": ("PreToolUse", "PostToolUse", "PostToolBatch", "Stop", "SessionStart"),
    "codex": ("PreToolUse", "PostToolUse", "Stop", "SessionStart"),
}


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def make_repo(root: Path, client: str, way: str, files: int = 5000) -> Path:
    repo = root / f"{client}-{way.replace(', ', '-').replace(' ', '-')}"
    (repo / "src").mkdir(parents=True)
    for i in range(files):  # the repository's size: the keep's capture reads every file's stat data
        folder = repo / "pkg" / f"m{i % 50:02d}" / f"s{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}.py").write_text(f"x = {i}\n")
    (repo / "src" / "app.py").write_text("print('app')\n")
    (repo / ".canon" / "articles" / "src").mkdir(parents=True)
    (repo / ".canon" / "journal").mkdir()
    (repo / ".canon" / "articles" / "src" / "app.md").write_text(
        "---\ncapsule: Entry point; parses the flags.\nupdated: 2026-01-02\n---\nBody.\n"
    )
    (repo / ".gitignore").write_text(".claude/\n.codex/\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    if way.startswith("pylon"):
        for line in (
            [tool("pylon"), "guard", "install", AGENT[client]],
            [tool("canon"), "hook", "install", AGENT[client]],
        ):
            subprocess.run(line, cwd=repo, check=True, capture_output=True)
    elif way == "no-op":
        settings = repo / (".claude/settings.json" if client == "claude" else ".codex/hooks.json")
        settings.parent.mkdir()
        group = [{"hooks": [{"type": "command", "command": "true", "timeout": 10}]}]
        settings.write_text(json.dumps({"hooks": dict.fromkeys(EVENTS[client], group)}, indent=2))
    return repo


def script(calls: int) -> list[Step]:
    """N safe shell calls that name a governed file (so canon's hook has a path to look up)."""
    return [*(Bash(f"echo call {i} && cat src/app.py") for i in range(calls)), Text("done")]


def one_run(binaries: dict[str, Path], client: str, repo: Path, home: Path, calls: int) -> list[float]:
    path_dirs = [str(BIN), str(binaries[client].parent)]
    with MockModel(script(calls)) as model:
        run = run_claude if client == "claude" else run_codex
        result = run(binaries[client], repo, home, model.url, "Run the commands.", path_dirs=path_dirs, timeout=600)
        if result.code != 0:
            raise RuntimeError(repr(result))
        gaps = model.shell_gaps()
    if len(gaps) != calls:
        raise RuntimeError(f"{client}: {len(gaps)} shell calls timed, {calls} scripted")
    return gaps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", default="claude,codex")
    parser.add_argument("--files", type=int, default=5000, help="tracked files in the repository")
    parser.add_argument("--ways", default=DEFAULT_WAYS, help=f"of {','.join(WAYS)}; `none` is the baseline")
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args()
    ways = [WAYS[k] for k in args.ways.split(",")]
    if "none" not in ways:
        parser.error("--ways must include none: the baseline")
    binaries = install()
    work = Path(tempfile.mkdtemp(prefix="pylon-bench-agents-"))
    home = work / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@example.com\n")
    os.environ.update(HOME=str(home), GIT_CONFIG_NOSYSTEM="1")
    for key in [k for k in os.environ if k.startswith(("PYLON_", "GIT_DIR", "GIT_WORK_TREE"))]:
        del os.environ[key]
    # As installed from a wheel: pylon's bytecode is on disk and used. An environment that forbids
    # writing it (PYTHONDONTWRITEBYTECODE, set in some sandboxes) around an editable install would
    # make every hook process compile pylon's modules from source, which no user's install does.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    import compileall

    compileall.compile_dir(str(Path(__file__).resolve().parent.parent / "pylon"), quiet=1)
    clients = args.clients.split(",")
    gaps: dict[tuple[str, str], list[float]] = {(c, w): [] for c in clients for w in ways}
    start_up: list[float] = []  # `python -c pass`, each round: how loaded the machine was
    load_start = os.getloadavg()[0]
    try:
        for n in range(args.rounds):
            start_up += time_command("python -c pass", [sys.executable, "-c", "pass"], runs=10).samples
            for client in clients:
                for way in ways:
                    root = work / f"round{n}"
                    repo = make_repo(root, client, way, args.files)
                    os.environ["PYLON_HOOK_HELPER"] = "0" if way == "pylon, no helper" else "1"
                    home_dir = root / f"home-{client}-{way.replace(', ', '-').replace(' ', '-')}"
                    watcher = None
                    if way == "pylon, ws watch":  # started as a person would, in the client's environment
                        watcher = start_watch(tool("pylon"), repo, env=base_env(home_dir, [str(BIN)]))
                    try:
                        gaps[client, way] += one_run(binaries, client, repo, home_dir, args.calls)
                    finally:
                        if watcher is not None:
                            stop_watch(watcher)
                    shutil.rmtree(repo, ignore_errors=True)  # an 80,000-file tree per way adds up
                    print(
                        f"round {n + 1}: {client} {way}: median {statistics.median(gaps[client, way]) * 1000:.1f} ms",
                        file=sys.stderr,
                    )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rows = []
    summary = {}
    for client in clients:
        base = statistics.median(gaps[client, "none"])
        for way in ways:
            samples = gaps[client, way]
            median = statistics.median(samples)
            added = median - base
            p90 = statistics.quantiles(samples, n=10)[-1]
            bar = verdict(added <= BAR) if way in ("pylon", "pylon, ws watch") else ""
            rows.append(
                (
                    f"{client} {PINNED['@anthropic-ai/claude-code' if client == 'claude' else '@openai/codex']}",
                    way,
                    f"{median * 1000:.1f} ms",
                    f"{p90 * 1000:.1f} ms",
                    "(baseline)" if way == "none" else f"{added * 1000:+.1f} ms",
                    bar,
                )
            )
            summary[f"{client}/{way}"] = round(median * 1000, 1)
    text = table(rows, ("client", "hooks", "median per shell call", "p90", "added over none", "80 ms bar"))
    text += (
        f"\n\nReference, same run: `python -c pass` {statistics.median(start_up) * 1000:.1f} ms (median of "
        f"{len(start_up)}); a {args.files:,}-file repository; 1-minute load average at the start "
        f"{load_start:.1f}. Per shell call pylon's hooks start two processes: the PreToolUse (the state kept, "
        "the command read) and, after the command, Codex's PostToolUse or Claude Code's PostToolBatch (the "
        "op, captured once the answer is sent; canon's capsules)."
    )
    print(text)
    print(json.dumps(summary))
    if not args.no_record:
        load = os.getloadavg()[0]
        record(
            "agents-e2e" if args.files == 5000 else f"agents-e2e-{args.files}",
            f"## Real clients: added latency per shell call, {args.files:,} files (`bench/agents_e2e.py`)\n\n"
            f"{args.calls} shell calls per run, {args.rounds} rounds, the ways interleaved in each round "
            f"({args.calls * args.rounds} calls per cell); time per call read at the mock model server (tool call "
            f"sent to result received). Bar: pylon's hooks add at most 80 ms per shell call over no hooks. "
            f"1-minute load average at the end: {load:.1f}.\n\n{text}",
        )


if __name__ == "__main__":
    main()
