"""ruff, with the project's configuration (pyproject.toml, [tool.ruff]): `ruff check` and
`ruff format --check` report nothing over the whole tree.

Until phase 2 of issue 31 formats the tree (a mass edit left for after the parallel branches land),
the two whole-tree checks skip unless PYLON_LINT=1 (`PYLON_LINT=1 pytest tests/test_lint.py`); the
configuration itself is checked in every run. Phase 2 removes the skip.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WHOLE_TREE = os.environ.get("PYLON_LINT") == "1"  # read at import: the per-test fixture drops PYLON_*
PHASE_2 = "the tree is formatted and its findings fixed in phase 2 of issue 31; PYLON_LINT=1 runs it now"


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_the_configuration_is_read_and_names_the_rules() -> None:
    proc = ruff("check", "--show-settings", "pylon/__init__.py")
    assert proc.returncode == 0, proc.stderr
    assert "linter.line_length = 120" in proc.stdout
    assert "max_complexity = 25" in proc.stdout
    # a file that passes gives 0, and the check sees findings where there are some
    assert ruff("check", "pylon/__init__.py").returncode == 0
    bad = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--stdin-filename", "x.py", "-"],
        cwd=ROOT,
        input="import os\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 1 and "F401" in bad.stdout


@pytest.mark.skipif(not WHOLE_TREE, reason=PHASE_2)
def test_ruff_check_finds_nothing() -> None:
    proc = ruff("check", ".")
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]


@pytest.mark.skipif(not WHOLE_TREE, reason=PHASE_2)
def test_the_tree_is_formatted() -> None:
    proc = ruff("format", "--check", ".")
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
