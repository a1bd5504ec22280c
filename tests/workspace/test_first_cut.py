"""The first cut listing from a new base walks the two trees once, not twice.

Counted from git's own trace (trace2, set in the test's isolated global config): how many
`git diff-tree` processes compare the whole trees (no pathspec) for one `ws changes`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import Result
from tests.workspace.helpers import pylon

_MAKE = (
    "import os\nos.makedirs('gen', exist_ok=True)\nfor i in range(500):\n"
    "    open('gen/f%03d.txt' % i, 'w').write('x\\n')\n"
)


def _full_tree_diffs(trace: Path) -> list[str]:
    starts = [
        line.split(" start ", 1)[1]
        for line in trace.read_text().splitlines()
        if " start git " in line and " diff-tree " in line
    ]
    return [s for s in starts if " -- " not in s]


def _traced(repo: Path, trace: Path, *args: str) -> Result:
    config = Path(os.environ["HOME"]) / ".gitconfig"
    saved = config.read_text()
    config.write_text(saved + f"[trace2]\n\tnormalTarget = {trace}\n")
    try:
        return pylon(*args, cwd=repo)
    finally:
        config.write_text(saved)


def test_a_first_cut_listing_runs_one_full_tree_diff(repo: Path, tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-c", _MAKE], cwd=repo, check=True)
    pylon("ws", "status", cwd=repo)  # capture once, untraced
    trace = tmp_path / "trace.txt"
    res = _traced(repo, trace, "ws", "changes", "--json")
    doc = res.json()
    assert (doc["total"], len(doc["files"])) == (500, 200), res
    assert len(_full_tree_diffs(trace)) == 1, _full_tree_diffs(trace)


def test_a_small_change_after_a_small_one_keeps_the_single_listing(repo: Path, tmp_path: Path) -> None:
    (repo / "README.md").write_text("# changed\n")
    assert pylon("ws", "changes", "--json", cwd=repo).json()["total"] == 1  # leaves a hint: small
    trace = tmp_path / "trace.txt"
    res = _traced(repo, trace, "ws", "changes", "--json", "--since", "HEAD")
    assert res.json()["total"] == 1, res
    full = _full_tree_diffs(trace)
    # the one listing with counts over the whole trees (its count runs beside it and may log first)
    assert any("--numstat" in start for start in full), full
