"""Benchmark: `canon lint` of a 20,000-article store, as a whole process (bar: under 5 s).

Builds (once, under bench/.work/canon-lint/) a project with 20,000 articles in nested folders
(bodies of a few hundred to a few thousand characters, [[links]] between articles, code blocks,
foreign front-matter keys and Obsidian alias lists), the assets they govern, 2,000 journal
entries and a schema.json. Times the median of several whole-process runs of `canon lint`
against two baselines measured in the same run: `cat` of every article and journal file, and
Python start-up plus reading every file.

    .venv/bin/python bench/canon_lint.py [--articles N] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import WORK, Timing, record, table, time_command, tool, verdict

BAR_SECONDS = 5.0
WORDS = (
    "config loader cache token session retry budget index shard replica queue worker parser "
    "schema router handler metric tracer ledger policy secret vault mount bridge codec"
).split()


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def build(root: Path, count: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    if root.exists():
        shutil.rmtree(root)
    arts = root / ".canon" / "articles"
    journal = root / ".canon" / "journal"
    journal.mkdir(parents=True)
    (root / ".git").mkdir()  # marks the repository root (no git needed for lint)
    (root / ".canon" / "schema.json").write_text(
        json.dumps(
            {
                "capsule": {"required": True, "max_chars": 600},
                "body": {"max_chars": 20000},
                "relations": {"refs": {"min_count": 0}},
            }
        ),
        encoding="utf-8",
    )
    addresses: list[str] = []
    # Folders: 40 packages x 10 modules, articles for folders and for files in them.
    for pkg in range(40):
        for mod in range(10):
            addresses.append(f"src/pkg{pkg}/mod{mod}")
    while len(addresses) < count:
        pkg, mod = rng.randrange(40), rng.randrange(10)
        addresses.append(f"src/pkg{pkg}/mod{mod}/file{len(addresses)}")
    addresses = addresses[:count]
    for i, address in enumerate(addresses):
        # The governed asset, so orphan is not flagged everywhere (one in 200 is a real orphan).
        asset = root / (address + ("" if address.count("/") == 2 else ".py"))
        if i % 200 != 0:
            if address.count("/") == 2:
                asset.mkdir(parents=True, exist_ok=True)
            else:
                asset.parent.mkdir(parents=True, exist_ok=True)
                asset.write_text("pass\n", encoding="utf-8")
        paragraphs = []
        for _ in range(rng.randint(2, 12)):
            text = " ".join(sentence(rng, rng.randint(6, 18)) for _ in range(rng.randint(2, 5)))
            if rng.random() < 0.5:
                text += f" See [[{rng.choice(addresses[: max(1, i)])}]]."
            paragraphs.append(text)
        if rng.random() < 0.2:
            paragraphs.append("```python\nvalue = load('[[not-a-link]]')\n```")
        front = [
            f"capsule: {sentence(rng, rng.randint(6, 20))}",
            f"updated: 2026-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}",
        ]
        if rng.random() < 0.1:
            front.append("owner: team-" + rng.choice(WORDS))
        if rng.random() < 0.05:
            front += ["aliases:", f"  - {rng.choice(WORDS)}", f"  - {rng.choice(WORDS)} {rng.choice(WORDS)}"]
        if rng.random() < 0.01:
            front.append("tags: {kind: module, area: core}")  # needs real YAML validation
        path = arts / f"{address}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("---\n" + "\n".join(front) + "\n---\n" + "\n\n".join(paragraphs) + "\n", encoding="utf-8")
    for j in range(count // 10):
        subjects = ", ".join(rng.choice(addresses) for _ in range(rng.randint(1, 3)))
        (journal / f"2026-0{1 + j % 9}-1{j % 10}-event-{j}.md").write_text(
            f"---\nsubject: [{subjects}]\nlogged: 2026-01-01T00:00:00.000000Z\n---\n{sentence(rng, 30)}\n",
            encoding="utf-8",
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--articles", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    root = WORK / f"canon-lint-{args.articles}"
    if args.rebuild or not (root / ".canon" / "articles").is_dir():
        print(f"building {args.articles} articles under {root} ...", file=sys.stderr)
        build(root, args.articles)
    canon = tool("canon")
    commands: list[tuple[str, Any, dict[str, Any]]] = [
        ("canon lint", [canon, "lint"], {"ok_codes": (0, 1)}),
        (
            "canon lint, one process (PYLON_LINT_JOBS=1)",
            [canon, "lint"],
            {"ok_codes": (0, 1), "env": {"PYLON_LINT_JOBS": "1"}},
        ),
        ("canon lint --format sarif", [canon, "lint", "--format", "sarif"], {"ok_codes": (0, 1)}),
        (
            "cat of every article and journal file",
            "find .canon -name '*.md' -exec cat {} + > /dev/null",
            {"shell": True},
        ),
        (
            "python start-up + read of every file",
            [
                sys.executable,
                "-c",
                (
                    "import os\nfor d, _, fs in os.walk('.canon'):\n    for f in fs:\n"
                    "        open(os.path.join(d, f), 'rb').read()"
                ),
            ],
            {},
        ),
    ]
    load_before = os.getloadavg()[0]
    # Interleaved rounds, so load from other work on the machine falls on every row alike.
    samples: dict[str, list[float]] = {label: [] for label, _, _ in commands}
    cpu: dict[str, float] = {label: 0.0 for label, _, _ in commands}  # CPU seconds, all runs
    per_round = max(1, args.runs // args.rounds)
    for _ in range(args.rounds):
        for label, argv, kw in commands:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            timing = time_command(label, argv, runs=per_round, warmup=1, cwd=root, **kw)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[label] += after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            samples[label] += timing.samples
    load_after = os.getloadavg()[0]
    lint, serial, sarif, cat, py_read = (Timing(label, samples[label]) for label, _, _ in commands)
    runs_each = args.rounds * (per_round + 1)  # warm-up runs are counted in the CPU totals too
    rows = [
        (
            t.label,
            f"{t.median:.2f} s",
            f"{t.median / cat.median:.1f}x",
            f"{t.median / py_read.median:.1f}x",
            f"{cpu[t.label] / runs_each:.2f} s",
        )
        for t in (lint, serial, sarif, cat, py_read)
    ]
    ok = lint.median < BAR_SECONDS
    markdown = (
        f"## canon lint (`bench/canon_lint.py`)\n\n"
        f"Store: {args.articles:,} articles in nested folders (bodies of a few hundred to a few thousand "
        f"characters, [[links]] in half the paragraphs, code blocks, foreign keys and alias lists, 1% with "
        f"front matter that needs a real YAML parse), the assets they govern, {args.articles // 10:,} journal "
        f"entries and a schema.json; every rule on. Median wall time of the whole process, "
        f"{len(lint.samples)} runs per row in {args.rounds} interleaved rounds.\n\n"
        + table(rows, ("command", "median", "vs cat", "vs python read", "CPU per run (user+sys)"))
        + f"\n\nBar: under {BAR_SECONDS:.0f} s for `canon lint` — {verdict(ok)} (in one process: "
        f"{verdict(serial.median < BAR_SECONDS)}). "
        f"Load average (1 min) {load_before:.1f} before, {load_after:.1f} after: other work on the machine "
        "slows every row alike, the ratios less so; CPU time per run is the load-independent figure."
    )
    print(markdown)
    record("canon-lint", markdown)


if __name__ == "__main__":
    main()
