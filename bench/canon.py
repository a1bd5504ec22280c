"""Benchmark: `canon read` on a large store, and `pylon --version` start-up.

Builds (once, cached under bench/.work/canon-store) a store with 20,000 articles in nested folders
and 20,000 journal entries whose subjects name those articles, then times whole processes:

- `canon read <deep path>` with a warm journal index (the common case);
- `canon read` right after a journal entry was added from outside (each sample heals the index);
- `canon journal` (one exclusive create);
- `pylon --version` against `python -c "import typer"` (the start-up bar: within 1.3x);
- baselines in the same run: `cat` of the article file, `python -c "import typer"`.

Run: .venv/bin/python bench/canon.py [--runs N] [--rebuild]
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import WORK, Timing, record, table, time_command, tool, verdict

ARTICLES = 20_000
ENTRIES = 20_000
STORE = WORK / "canon-store"
TARGET = "svc/s07/mod03/part11/leaf"  # an address that exists in the synthetic store
ROUNDS = 3


def build(root: Path) -> None:
    rng = random.Random(7)
    articles = root / ".canon" / "articles"
    journal = root / ".canon" / "journal"
    addresses = []
    for i in range(ARTICLES):
        # 20 x 50 x 20 leaves: 20,000 distinct articles four folders deep.
        address = f"svc/s{i % 20:02d}/mod{(i // 20) % 50:02d}/part{i // 1000:02d}/leaf"
        addresses.append(address)
        path = articles / f"{address}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"---\ncapsule: Module {i} handles part of the service; retries are bounded.\n"
            f"updated: 2026-01-{1 + i % 28:02d}\nowner: team-{i % 7}\n---\n"
            + f"Module {i} body. It must never block the event loop.\n"
            * 6,
            encoding="utf-8",
        )
    assert len(set(addresses)) == ARTICLES
    journal.mkdir(parents=True, exist_ok=True)
    for n in range(ENTRIES):
        subjects = rng.sample(addresses, 2) if n % 3 else [TARGET, rng.choice(addresses)]
        day = 1 + n % 28
        logged = f"2026-02-{day:02d}T{n % 24:02d}:{n % 60:02d}:{(n * 7) % 60:02d}.{n:06d}Z"
        items = ", ".join(subjects)
        (journal / f"2026-02-{day:02d}-event-{n}.md").write_text(
            f"---\nsubject: [{items}]\nlogged: {logged}\n---\nEvent {n}: latency rose to {n % 500} ms.\n",
            encoding="utf-8",
        )
    (root / ".canon" / ".gitignore").write_text(".cache/\n")


def ensure_store(rebuild: bool) -> Path:
    marker = STORE / ".built"
    if rebuild or not marker.exists():
        shutil.rmtree(STORE, ignore_errors=True)
        STORE.mkdir(parents=True)
        print(f"building {ARTICLES} articles and {ENTRIES} journal entries in {STORE} ...", file=sys.stderr)
        build(STORE)
        marker.write_text("ok\n")
    # Extra entries added by earlier runs of the after-add benchmark are removed.
    for path in (STORE / ".canon" / "journal").glob("2026-03-01-added-*.md"):
        path.unlink()
    return STORE


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30, help="samples per row (split over rounds)")
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    runs = args.runs
    root = ensure_store(args.rebuild)
    canon, pylon, python = tool("canon"), tool("pylon"), sys.executable
    read = [canon, "read", TARGET + ".py"]
    # Prime the index (first build reads all 20,000 entries once).
    subprocess.run(read, cwd=root, check=True, stdout=subprocess.DEVNULL)

    journal_cmd = [canon, "journal", "bench entry", "--subject", TARGET, "--slug", "bench"]
    add_script = (
        "import sys, pathlib; p = pathlib.Path(sys.argv[1]) / f'2026-03-01-added-{sys.argv[2]}.md'; "
        "p.write_text('---\\nsubject: [" + TARGET + "]\\nlogged: 2026-03-01T00:00:00Z\\n---\\nAdded.\\n')"
    )
    journal_dir = root / ".canon" / "journal"
    # Before each sample, untimed: a new entry appears, as `git pull` would add it.
    setup = f"{shlex.quote(python)} -c {shlex.quote(add_script)} {shlex.quote(str(journal_dir))} $(date +%s%N)"
    rows: dict[str, Timing] = {}

    def sample(label: str, argv: list[str] | str, n: int, **kw: Any) -> None:
        t = time_command(label, argv, runs=n, warmup=1, **kw)
        rows.setdefault(label, Timing(label, [])).samples.extend(t.samples)

    # Interleave the rows in rounds so load from other processes hits every row alike.
    per_round = max(1, runs // ROUNDS)
    load_before = os.getloadavg()[0]
    for _ in range(ROUNDS):
        sample("python -c 'import typer'", [python, "-c", "import typer"], per_round)
        sample("pylon --version", [pylon, "--version"], per_round)
        sample("cat <article file>", ["cat", str(root / ".canon" / "articles" / f"{TARGET}.md")], per_round)
        sample("canon read (warm index)", read, per_round, cwd=root)
        sample("canon read (after an outside add: heals)", read, per_round, cwd=root, setup=setup)
        sample("canon journal", journal_cmd, per_round, cwd=root)
    for path in (root / ".canon" / "journal").glob("*-bench*.md"):
        path.unlink()
    ensure_store(False)
    typer_t, version_t, cat_t, warm_t, added_t, journal_t = rows.values()
    load_after = os.getloadavg()[0]

    base = typer_t.median
    table_rows = [
        (t.label, t.ms, f"{t.median / base:.2f}x") for t in (typer_t, version_t, cat_t, warm_t, added_t, journal_t)
    ]
    ok_read = warm_t.median < 0.150 and added_t.median < 0.150
    ok_version = version_t.median <= 1.3 * base
    md = (
        f"Store: {ARTICLES:,} articles (four folders deep) and {ENTRIES:,} journal entries, "
        f"{len(warm_t.samples)} runs per row in {ROUNDS} interleaved rounds, median wall time of the whole "
        "process, bytecode cached as after `pip install`. Ratios are against "
        "`python -c 'import typer'` measured in the same run. `canon read` runs without "
        "importing typer (a hand parser for plain command lines, see docs/architecture.md).\n\n"
        + table(table_rows, ("command", "median", "vs import typer"))
        + "\n\n"
        f"- `canon read` under 150 ms (warm {warm_t.ms}, after an add {added_t.ms}): {verdict(ok_read)}.\n"
        f"- `pylon --version` within 1.3x of `import typer` ({version_t.median / base:.2f}x): {verdict(ok_version)}.\n"
        f"- `canon read` (warm) costs {warm_t.median / cat_t.median:.1f}x a `cat` of the article file "
        f"and {warm_t.median / base:.2f}x `import typer`.\n"
        f"- 1-minute load average {load_before:.1f} before and {load_after:.1f} after the run (2 cores; "
        "other work on the machine inflates every row alike, so compare the ratios).\n"
    )
    print(md)
    record("canon", "## canon\n\n" + md)


if __name__ == "__main__":
    os.environ.pop("PYLON_SESSION", None)
    # Measure an installed tool as users run it: with cached bytecode (pip compiles at install;
    # an editable install writes __pycache__ on first import). PYTHONDONTWRITEBYTECODE would make
    # every run recompile pylon's modules and measure the compiler instead.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    main()
