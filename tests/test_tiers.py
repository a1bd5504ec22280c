"""The tiers' lists name real tests: a renamed test must not drop out of both tiers unnoticed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import FULL_ONLY

ROOT = Path(__file__).resolve().parent.parent


def collected(*args: str, tier: str = "") -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYLON_TEST_TIER"}
    if tier:
        env["PYLON_TEST_TIER"] = tier
    files = sorted({name.split("::")[0] for name in FULL_ONLY})
    argv = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", "-p", "no:cacheprovider"]
    done = subprocess.run([*argv, *args, *files], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return [line for line in done.stdout.splitlines() if "::" in line]


def named(ids: list[str], name: str) -> list[str]:
    return [i for i in ids if i == name or i.startswith(name + "[")]


def test_every_full_only_test_exists_and_runs_in_the_full_tier_only() -> None:
    default, full, slow = collected(), collected(tier="full"), collected("-m", "slow")
    for name in FULL_ONLY:
        assert named(full, name), f"{name} is in FULL_ONLY but no such test is collected"
        assert named(slow, name)  # `-m slow` selects it (at the default tier's sizes)
        assert not named(default, name)
    assert len(default) + sum(len(named(full, n)) for n in FULL_ONLY) <= len(full)
