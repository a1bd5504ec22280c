"""ruff, with the project's configuration (pyproject.toml, [tool.ruff]): `ruff check` and
`ruff format --check` report nothing over the whole tree (`scripts/format` formats it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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


def test_ruff_check_finds_nothing() -> None:
    proc = ruff("check", ".")
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]


def test_the_tree_is_formatted() -> None:
    proc = ruff("format", "--check", ".")
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
