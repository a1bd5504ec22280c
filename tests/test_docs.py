"""The docs by purpose (issue 31 item 3): the tutorial runs verbatim, links between pages resolve,
the user docs stay within 150 KB, and dated timings live on the benchmarks page only.

"User docs" are every page under docs/ but the two generated ones (reference.md, errors.md) and
benchmarks.md. A dated timing is a paragraph that holds a calendar date (2026-12-02) and a time
figure (12 ms, 1.5 s, 30 µs, 2 min): a measurement of one run, which belongs to benchmarks.md,
where `bench/` writes it with its baseline.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
GENERATED_OR_FIGURES = {"reference.md", "errors.md", "benchmarks.md"}
LIMIT = 150_000  # bytes

DATE = re.compile(r"(?<!\d)20\d\d-[01]\d-[0-3]\d(?!\d)")
TIMING = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?\s?(?:ms|µs|us|ns|s|sec|seconds?|min|minutes?)(?![\w])")
FENCE = re.compile(r"^(`{3,}|~{3,}).*?^\1\s*$", re.M | re.S)
LINK = re.compile(r"(?<!\!)\[(?:[^\]\n]|\][^(\n])*\]\(([^)\s]+)\)|!\[[^\]\n]*\]\(([^)\s]+)\)")


def user_docs() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if not (p.parent == DOCS and p.name in GENERATED_OR_FIGURES))


def dated_timings(text: str) -> list[str]:
    """The paragraphs of a markdown text (code blocks included) holding a date and a time figure."""
    return [para.strip() for para in re.split(r"\n\s*\n", text) if DATE.search(para) and TIMING.search(para)]


def slugs(text: str) -> set[str]:
    """GitHub's anchors for the headings of a markdown text (duplicates get -1, -2, ...)."""
    found: set[str] = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", FENCE.sub("", text), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        candidate, n = slug, 0
        while candidate in found:
            n += 1
            candidate = f"{slug}-{n}"
        found.add(candidate)
    return found


def links(text: str) -> list[str]:
    """The targets of markdown links and images outside code blocks and code spans."""
    prose = re.sub(r"(`+)[^`]*?\1", "", FENCE.sub("", text))
    return [a or b for a, b in LINK.findall(prose)]


def test_user_docs_stay_within_150_kb() -> None:
    sizes = {str(p.relative_to(ROOT)): p.stat().st_size for p in user_docs()}
    total = sum(sizes.values())
    assert len(sizes) > 10, sizes  # the glob found the pages
    listing = "\n".join(f"{size:7d} {name}" for name, size in sorted(sizes.items(), key=lambda kv: -kv[1]))
    assert total <= LIMIT, f"user docs are {total} bytes, over {LIMIT}; cut by rewriting:\n{listing}"


def test_dated_timings_only_on_the_benchmarks_page() -> None:
    assert dated_timings("Measured 2026-12-02 on 2 cores:\ncheck 101 ms against 59 ms.")  # the pattern bites
    assert not dated_timings("Released 2026-12-02.\n\nIt takes 5 s.")  # separate paragraphs
    assert dated_timings((DOCS / "benchmarks.md").read_text(encoding="utf-8")), "benchmarks.md has no dated figure?"
    found = [
        f"{p.relative_to(ROOT)}: {para[:160]!r}"
        for p in [*user_docs(), ROOT / "README.md"]
        for para in dated_timings(p.read_text(encoding="utf-8"))
    ]
    assert not found, "move these measurements to docs/benchmarks.md:\n" + "\n".join(found)


def test_links_between_pages_resolve() -> None:
    pages = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted(DOCS.rglob("*.md"))]
    checked, broken = 0, []
    for page in pages:
        for target in links(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            resolved = (page.parent / path).resolve() if path else page
            checked += 1
            if not resolved.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and resolved.suffix == ".md" and anchor not in slugs(resolved.read_text(encoding="utf-8")):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert checked > 100, checked
    assert not broken, "\n".join(broken)


def test_the_link_checker_reads_markdown_as_github_does() -> None:
    assert slugs("# A\n## `pylon ws diff [PATH]...`\n## A\n```\n# not a heading\n```\n") == {
        "a",
        "pylon-ws-diff-path",
        "a-1",
    }
    assert links("[x](a.md#b) `[y](code.md)` ![i](img/p.png)\n```\n[z](fenced.md)\n```\n[[wiki]]") == [
        "a.md#b",
        "img/p.png",
    ]


def tutorial_script() -> str:
    text = (DOCS / "tutorial.md").read_text(encoding="utf-8")
    return "\n".join(re.findall(r"^```sh\n(.*?)^```", text, re.M | re.S))


def test_the_tutorial_runs_verbatim(tmp_path: Path) -> None:
    """Every ```sh block of docs/tutorial.md, in order, as one bash script (`set -e`: each command
    must succeed) in an empty folder; the revision tag the page shows is the one `pylon read` prints."""
    script = tutorial_script()
    assert script.count("\n") >= 20 and "pylon ws undo" in script, script
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    shown = f"exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert proc.returncode == 0, shown
    assert "Traceback" not in proc.stdout + proc.stderr and "internal-error" not in proc.stdout + proc.stderr, shown
    page = (DOCS / "tutorial.md").read_text(encoding="utf-8")
    tag = re.search(r"^\[cart\.py#([0-9a-f]{12})\]$", page, re.M)
    assert tag and f"[cart.py#{tag.group(1)}]" in proc.stdout, shown
    assert (
        (tmp_path / "shop" / "cart.py")
        .read_text()
        .endswith("return round(amount * 0.2, 2)\n\n\ndef discount(amount):\n    return amount * 0.9\n")
    )
    assert "not safe: exit 1" in proc.stdout, shown
