"""The tiers' lists name real tests: a renamed test must not drop out of both tiers unnoticed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import FULL_ONLY

ROOT = Path(__file__).resolve().parent.parent


def test_every_full_only_test_exists_and_is_slow() -> None:
    """Collected with `-m slow` in the default tier: each listed test is there, so it exists and is
    `slow` (the default tier leaves `slow` out; the full tier runs everything)."""
    env = {k: v for k, v in os.environ.items() if k != "PYLON_TEST_TIER"}
    files = sorted({name.split("::")[0] for name in FULL_ONLY})
    argv = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", "-p", "no:cacheprovider"]
    done = subprocess.run([*argv, "-m", "slow", *files], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    slow = [line for line in done.stdout.splitlines() if "::" in line]
    for name in FULL_ONLY:
        assert [i for i in slow if i == name or i.startswith(name + "[")], f"{name} is in FULL_ONLY but not collected"
