"""mypy with the project's settings (pyproject.toml, [tool.mypy]) reports nothing on the package, the
tests, the scripts' Python and the benches: every function annotated, so every body is checked, and
no `# type: ignore` that silences nothing (warn_unused_ignores)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def mypy(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import importlib.util

    if importlib.util.find_spec("mypy") is None:  # the full tier's extra, not the default tier's
        reason = "mypy is not installed: the full tier's extra has it (scripts/test --full; pip install -e '.[full]')"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and the type check cannot run: {reason}")
        pytest.skip(reason)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )


def test_the_settings_check_every_body_and_every_ignore() -> None:
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    for key in ("disallow_untyped_defs", "check_untyped_defs", "warn_unused_ignores"):
        assert settings.get(key) is True, key


# slow: about 30 s of CPU in a 2-core default tier; the full tier (.ci/run) runs them on every landing,
# and `pytest -m slow tests/test_types.py` (or the two commands in docs/testing.md) before a commit that
# changes types.
@pytest.mark.slow
def test_mypy_finds_no_error_in_the_package_its_tests_and_scripts(tmp_path: Path) -> None:
    proc = mypy(
        "--cache-dir", str(tmp_path / "cache"), "pylon", "tests", "scripts/pi-canon-fixtures", "scripts/ramdisk.py"
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert proc.stdout.startswith("Success: no issues found"), proc.stdout


@pytest.mark.slow
def test_mypy_finds_no_error_in_the_benches(tmp_path: Path) -> None:
    # A bench runs as a script from bench/ and imports its siblings by their own names (_harness,
    # workspace, ...); MYPYPATH gives them pylon and tests from this checkout.
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    proc = mypy("--cache-dir", str(tmp_path / "cache"), ".", cwd=ROOT / "bench", env=env)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert proc.stdout.startswith("Success: no issues found"), proc.stdout
