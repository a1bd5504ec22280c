"""`mypy pylon` reports no error (the config is in pyproject.toml): type hints everywhere, checked."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


# slow: about 20 s of CPU in a 2-core default tier; the full tier (.ci/run) runs it on every landing,
# and `pytest -m slow tests/test_types.py` (or `mypy pylon`) before a commit that changes types.
@pytest.mark.slow
def test_mypy_finds_no_error_in_the_package(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache"), "pylon"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert proc.stdout.startswith("Success: no issues found"), proc.stdout
