"""`pylon ws cat` under a real race: a folder swapped for a symlink to outside between check and open.

Another process renames `d/` away and a symlink to a folder outside the checkout into its place,
and back, as fast as it can, while `ws cat d/passwd` runs 600 times. Every answer must be the
file inside or a refusal (or not-found while the name is briefly absent); never the outside file.
"""

from __future__ import annotations

import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.conftest import script, sized
from tests.workspace.helpers import write_files

ATTEMPTS = sized(40, 600)  # 40 see both the folder and the symlink (checked below); 600 in the full tier
_SWAPPER = """
import os, sys, time
root, stop = sys.argv[1], sys.argv[2]
os.chdir(root)
deadline = time.monotonic() + 300
while not os.path.exists(stop) and time.monotonic() < deadline:
    os.rename("d", "d.dir"); os.rename("d.lnk", "d")   # d is now a symlink to the outside
    os.rename("d", "d.lnk"); os.rename("d.dir", "d")   # and a real folder again
"""


def test_swapping_a_folder_for_a_symlink_never_leaks_the_outside(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write_files(outside, {"passwd": "OUTSIDE-SECRET\n"})
    write_files(repo, {"d/passwd": "inside\n"})
    (repo / "d.lnk").symlink_to(outside)
    stop = tmp_path / "stop"
    swapper = subprocess.Popen([sys.executable, "-c", _SWAPPER, str(repo), str(stop)])
    pylon = script("pylon")

    def attempt(_: int) -> str:
        proc = subprocess.run([pylon, "ws", "cat", "d/passwd", "--json"], cwd=repo, capture_output=True, timeout=60)
        if b"OUTSIDE-SECRET" in proc.stdout + proc.stderr:
            return "escaped"
        if proc.returncode == 0 and b'"content": "inside\\n"' in proc.stdout:
            return "inside"
        if b'"symlink-outside"' in proc.stdout:
            return "refused"
        if b'"not-found"' in proc.stdout:
            return "missing"
        return "other: " + proc.stdout.decode("utf-8", "replace")[:300]

    try:
        time.sleep(0.2)
        with ThreadPoolExecutor(max_workers=3) as pool:
            outcomes = list(pool.map(attempt, range(ATTEMPTS)))
    finally:
        stop.write_text("stop")
        swapper.wait(timeout=30)
    counts = {kind: outcomes.count(kind) for kind in set(outcomes)}
    print(f"ws cat under a folder/symlink swap, {ATTEMPTS} attempts: {counts}")
    assert counts.get("escaped", 0) == 0, counts
    assert not [o for o in outcomes if o.startswith("other")], counts
    # the race really ran: both the folder and the symlink were seen
    assert counts.get("inside", 0) > 0 and counts.get("refused", 0) > 0, counts
