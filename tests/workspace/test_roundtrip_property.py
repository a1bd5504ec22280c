"""The round-trip property: move/back, move+undo, apply+undo, rm --force+undo give back the exact
state, 0 differences (roundtrips.py; git plumbing and raw bytes as the oracle, states.py).

The default tier runs a fast subset. The full 1,000 rounds are `@pytest.mark.slow`: the full tier
(`PYLON_TEST_TIER=full`, what .ci/run sets) runs them, and so does
`PYLON_ROUNDTRIPS=1000 pytest -m slow tests/workspace/test_roundtrip_property.py` (any count). Each
round prints nothing; a failure names its seed, the kind of round and every random change made, so it replays exactly.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.conftest import FULL_TIER
from tests.workspace.roundtrips import KINDS, run_rounds

FAST = 8  # every kind of round, and applies that land, at seed 1 (checked; 20 cost 2.5x as much)
FULL = 1000
CHUNKS = 10  # the full run is split so pytest-xdist spreads it over every worker
WANTED = os.environ.get("PYLON_ROUNDTRIPS")  # read at import: the per-test fixture drops PYLON_* variables


def _every_kind(tally: dict[str, int]) -> None:
    kinds = {key.split(":")[0] for key in tally}
    assert kinds == set(KINDS), tally
    assert tally.get("apply-undo:applied", 0) > 0, tally


def test_round_trips_fast_subset(tmp_path: Path) -> None:
    if WANTED and int(WANTED) >= FAST * CHUNKS:  # CI: every chunk of the full run makes these checks
        pytest.skip(f"PYLON_ROUNDTRIPS={WANTED}: the full run covers the fast subset")
    _every_kind(run_rounds(tmp_path, seed=1, rounds=FAST, per_world=10))


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_round_trips_full(chunk: int, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    wanted = WANTED
    marker = str(request.config.getoption("-m") or "")
    if not wanted and not FULL_TIER and "slow" not in marker.replace("not slow", ""):
        pytest.skip(f"the full {FULL} round trips run in the full tier (PYLON_TEST_TIER=full) or with `-m slow`")
    total = int(wanted or FULL)
    rounds = total // CHUNKS + (1 if chunk < total % CHUNKS else 0)
    if rounds == 0:
        pytest.skip("no rounds left for this chunk")
    start = time.monotonic()
    tally = run_rounds(tmp_path, seed=7 + chunk, rounds=rounds)
    elapsed = time.monotonic() - start
    print(f"\nchunk {chunk}: {rounds} round trips in {elapsed:.0f} s: {dict(sorted(tally.items()))}")
    assert sum(tally.values()) == rounds
    if rounds >= FAST:
        _every_kind(tally)
