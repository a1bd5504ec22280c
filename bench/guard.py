"""Benchmark: the guard's two candidate parsers on the corpus, their import cost, and hook latency.

1. Correctness: every entry of tests/guard/corpus/commands.txt classified through tree-sitter-bash
   (pylon/guard/shell.py) and through bashlex (bench/guard_bashlex.py), in the corpus checkout.
2. Import cost: `python -c "import <parser>"` against `python -c pass`, same run.
3. Latency: `pylon guard check` and `pylon guard hook claude-code` on a safe command, against
   `true` and `python -c pass`; the spec's bar is under 100 ms for the hook.
4. With --snapshot: the hook on a reversible command (snapshot, then allow) in the 80,000-file
   repository of bench/workspace.py (a few hundred dirty paths), against `git status --porcelain`
   in the same run, alternating sample by sample; the bar is 1.5x.

5. Classify time per command over all four corpus files (commands, dcg, escapes, peers), this tree
   against the tree of --baseline REV (default adc5812, before issue 18), in the same run: each
   tree in its own process, alternated, the best of --runs passes each.

6. With --hook-only: only the hook entry's latency per shell call, this tree against the old two
   commands (bench/hook_latency.py; recorded as its own section).

Run: .venv/bin/python bench/guard.py [--runs N] [--snapshot] [--baseline REV] [--hook-only]
"""

from __future__ import annotations

import argparse
import compileall
import json
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import ROOT, WORK, machine_line, record, table, time_command, tool, verdict

SCRATCH = WORK / "guard"


def accuracy(
    parser_name: str, parser: Callable[[str], Any] | None, checkout: Path, env: dict[str, str]
) -> dict[str, object]:
    """Both corpus files (ours and dcg's); the scratch checkout is not under /tmp, so the default
    temporary folders apply to both."""
    from pylon.guard.context import Context
    from pylon.guard.judge.classify import classify
    from tests.guard.conftest import DCG, entries

    rows = entries() + entries(DCG)
    ctx = Context(str(checkout), str(checkout), env=env, branch="main")
    right = missed = flagged = opaque = 0
    safe_total = 0
    started = time.perf_counter()
    for want, _, command in rows:
        result = classify(command, ctx, parser)
        got = result.verdict
        right += got == want
        missed += want != "safe" and got == "safe"
        safe_total += want == "safe"
        flagged += want == "safe" and got != "safe"
        opaque += any("cannot read" in f.reason for f in result.findings)
    elapsed = time.perf_counter() - started
    return {
        "parser": parser_name,
        "total": len(rows),
        "right": right,
        "missed": missed,
        "flagged": flagged,
        "safe_total": safe_total,
        "unreadable": opaque,
        "ms_per_command": 1000 * elapsed / len(rows),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--snapshot", action="store_true", help="also time snapshot + allow on 80,000 files")
    ap.add_argument("--baseline", default="adc5812", help="the revision whose classify time is the baseline")
    ap.add_argument("--hook-only", action="store_true", help="only the hook entry per shell call (hook_latency.py)")
    opts = ap.parse_args()
    runs = opts.runs
    if opts.hook_only:
        import hook_latency

        hook_latency.main(runs)
        return
    compileall.compile_dir(str(ROOT / "pylon"), quiet=1)
    compileall.compile_dir(str(Path(sys.prefix) / "lib"), quiet=1)
    shutil.rmtree(SCRATCH, ignore_errors=True)
    SCRATCH.mkdir(parents=True)
    from guard_bashlex import parse as bashlex_parse

    from tests.guard.conftest import build_checkout

    checkout, env = build_checkout(SCRATCH)
    scores = [accuracy("tree-sitter-bash", None, checkout, env), accuracy("bashlex", bashlex_parse, checkout, env)]

    py = sys.executable
    base = time_command("python -c pass", [py, "-c", "pass"], runs=runs)
    imports = [
        time_command(
            "import tree_sitter + tree_sitter_bash + Parser",
            [
                py,
                "-c",
                (
                    "import tree_sitter, tree_sitter_bash;"
                    "tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))"
                ),
            ],
            runs=runs,
        ),
        time_command("import bashlex", [py, "-c", "import bashlex; bashlex.parse('true')"], runs=runs),
        time_command("import sqlglot (only for SQL)", [py, "-c", "import sqlglot"], runs=runs),
    ]
    true = time_command("true", ["true"], runs=runs)
    pylon = tool("pylon")
    event = json.dumps(
        {
            "session_id": "s",
            "transcript_path": "/t.jsonl",
            "cwd": str(checkout),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "git status && npm test 2>&1 | tail -20"},
            "tool_use_id": "toolu_1",
        }
    ).encode()
    latency = [
        time_command(
            "pylon guard check (safe)", [pylon, "guard", "check", "--command", "git status"], runs=runs, cwd=checkout
        ),
        time_command(
            "pylon guard hook claude-code (safe event)",
            [pylon, "guard", "hook", "claude-code"],
            runs=runs,
            cwd=checkout,
            stdin_data=event,
        ),
    ]
    rows = [
        (
            str(s["parser"]),
            f"{s['right']}/{s['total']}",
            str(s["missed"]),
            f"{s['flagged']}/{s['safe_total']}",
            str(s["unreadable"]),
            f"{s['ms_per_command']:.2f} ms",
        )
        for s in scores
    ]
    imp = [(t.label, t.ms, f"+{(t.median - base.median) * 1000:.1f} ms") for t in imports]
    lat = [(t.label, t.ms, f"{t.median / base.median:.2f}x", f"{t.median / true.median:.1f}x") for t in latency]
    hook_ms = latency[1].median * 1000
    md = "\n".join(
        [
            "## guard (`bench/guard.py`)",
            "",
            machine_line(),
            "",
            "Correctness on the corpus (tests/guard/corpus/commands.txt and dcg.txt), same classifier, two parsers:",
            "",
            table(rows, ("parser", "right", "destructive judged safe", "safe flagged", "unreadable", "per command")),
            "",
            f"Import cost against `python -c pass` ({base.ms}), same run:",
            "",
            table(imp, ("import", "median", "over python -c pass")),
            "",
            f"Latency of whole processes against `python -c pass` ({base.ms}) and `true` ({true.ms}):",
            "",
            table(lat, ("command", "median", "vs python -c pass", "vs true")),
            "",
            f"Bar: the hook on a safe event under 100 ms: {verdict(hook_ms < 100)} ({hook_ms:.1f} ms).",
            "",
            *classify_rows(opts.baseline, checkout, env, max(3, runs // 4)),
            *(snapshot_rows(pylon, max(5, runs // 2)) if opts.snapshot else []),
        ]
    )
    record("guard", md)
    print(md)


_CLASSIFY_ALL = """
import json, sys, time
from pathlib import Path
from pylon.guard.judge.classify import classify
from pylon.guard.context import Context
commands = json.loads(Path(sys.argv[1]).read_text())
ctx = Context(sys.argv[2], sys.argv[2], env=json.loads(sys.argv[3]), branch="main")
classify("true", ctx)  # the parser loaded
started = time.perf_counter()
for command in commands:
    classify(command, ctx)
print(time.perf_counter() - started)
"""


def classify_rows(baseline: str, checkout: Path, env: dict[str, str], passes: int) -> list[str]:
    """Classify time per command, this tree against `baseline`'s, alternated in one run."""
    import subprocess

    from tests.guard.conftest import CORPUS, DCG, ESCAPES, PEERS, entries

    commands = [c for path in (CORPUS, DCG, ESCAPES, PEERS) for _, _, c in entries(path)]
    listed = SCRATCH / "commands.json"
    listed.write_text(json.dumps(commands))
    base_tree = SCRATCH / "baseline"
    base_tree.mkdir(exist_ok=True)
    archive = subprocess.run(["git", "archive", baseline, "pylon"], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(base_tree)], input=archive, check=True)
    trees = {"this tree": str(ROOT), f"baseline {baseline}": str(base_tree)}
    best: dict[str, float] = {}
    for _ in range(passes):
        for label, tree in trees.items():
            out = subprocess.run(
                [sys.executable, "-c", _CLASSIFY_ALL, str(listed), str(checkout), json.dumps(env)],
                cwd=tree,
                env={**env, "PYTHONPATH": tree},
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            best[label] = min(best.get(label, float("inf")), float(out))
    base = best[f"baseline {baseline}"]
    rows = [(label, f"{1000 * t / len(commands):.2f} ms", f"{t / base:.2f}x") for label, t in best.items()]
    return [
        (
            f"Classify time per command over the four corpus files ({len(commands)} commands), best of "
            f"{passes} passes, alternated in one run:"
        ),
        "",
        table(rows, ("tree", "per command", "vs baseline")),
        "",
    ]


def snapshot_rows(pylon: str, runs: int) -> list[str]:
    """Snapshot + allow on 80,000 files, paired with `git status --porcelain` sample by sample."""
    import workspace as ws80  # bench/workspace.py: the 80,000-file repository and its dirty state

    ws80.build(False)
    dirty = ws80.make_dirty()
    repo = ws80.REPO
    event = json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "cwd": str(repo),
            "tool_input": {"command": "rm -rf pkg00/mod0001 && git checkout -- pkg01"},
        }
    ).encode()
    status_t: list[float] = []
    hook_t: list[float] = []
    import subprocess

    for i in range(runs + 2):
        for sink, argv, data in (
            (status_t, ["git", "status", "--porcelain"], None),
            (hook_t, [pylon, "guard", "hook", "claude-code"], event),
        ):
            start = time.perf_counter()
            out = subprocess.run(argv, cwd=repo, input=data, capture_output=True, check=True).stdout
            if i >= 2:
                sink.append(time.perf_counter() - start)
        assert b"pylon ws restore guard-" in out, out
    import statistics

    s_med, h_med = statistics.median(status_t), statistics.median(hook_t)
    refs = subprocess.run(
        ["git", "for-each-ref", "--format=delete %(refname)", "refs/pylon/guard/"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    subprocess.run(["git", "update-ref", "--stdin"], cwd=repo, input=refs, text=True, check=True)
    ratio = h_med / s_med
    return [
        f"Snapshot + allow on 80,000 files ({dirty} dirty paths), paired with `git status --porcelain`:",
        "",
        table(
            [
                ("git status --porcelain", f"{s_med * 1000:.1f} ms", "1.00x"),
                ("pylon guard hook (rm -rf + checkout --)", f"{h_med * 1000:.1f} ms", f"{ratio:.2f}x"),
            ],
            ("command", "median", "ratio"),
        ),
        "",
        f"Bar: within 1.5x of git status: {verdict(ratio <= 1.5)}.",
        "",
    ]


if __name__ == "__main__":
    main()
