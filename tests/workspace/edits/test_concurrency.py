"""Real processes racing on one file: one winner, no lost update, no torn file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.workspace.edits.conftest import Ed

BIN = Path(sys.executable).parent


def test_fifty_concurrent_edits_with_one_tag_give_exactly_one_success(ed: Ed) -> None:
    original = ed.numbered(200)
    path = ed.write("shared.txt", original)
    tag = ed.read("shared.txt")
    procs = []
    for _ in range(50):
        procs.append(
            subprocess.Popen(
                [str(BIN / "pylon"), "edit", f"shared.txt#{tag}", "--json"],
                cwd=ed.root,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        )
    # Start them all first, then release the requests at once.
    for i, proc in enumerate(procs):
        assert proc.stdin is not None
        proc.stdin.write(f"replace 100\n+writer {i}\ninsert after 150\n+mark {i}\n".encode())
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.close()
    results = []
    for i, proc in enumerate(procs):
        assert proc.stdout is not None and proc.stderr is not None
        out = proc.stdout.read()
        proc.stderr.read()
        proc.wait(timeout=120)
        results.append((i, proc.returncode, json.loads(out)))
    winners = [(i, doc) for i, code, doc in results if code == 0]
    assert len(winners) == 1, [(i, code, doc.get("error", {}).get("code")) for i, code, doc in results]
    losers = [doc["error"]["code"] for i, code, doc in results if code != 0]
    assert len(losers) == 49 and set(losers) <= {"stale-revision", "unknown-revision"}
    assert all(code in (0, 1) for _, code, _ in results)  # refusals exit 1
    winner = winners[0][0]
    expected = original.replace("line 100\n", f"writer {winner}\n").replace("line 150\n", f"line 150\nmark {winner}\n")
    assert path.read_bytes() == expected.encode()
    assert winners[0][1]["new_tag"] == ed.read("shared.txt", "--limit", "1")


@pytest.mark.slow
def test_sigkill_during_a_large_write_leaves_old_or_new_bytes(ed: Ed) -> None:
    line = b"0123456789" * 4 + b"\n"
    original = line * 600_000  # ~24 MB: writing and syncing it takes a while
    path = ed.write("big.txt", original)
    tag = ed.read("big.txt", "--offset", "299000", "--limit", "2000")
    new = original[: 299_999 * len(line)] + b"CHANGED\n" + original[300_000 * len(line) :]
    request = b"replace 300000\n+CHANGED\n"
    argv = [str(BIN / "pylon"), "edit", f"big.txt#{tag}"]

    def temp_files() -> list[Path]:
        return list(ed.root.glob(".big.txt.pylon-tmp-*"))

    # How long does an undisturbed edit take, and how long does its temp file live? Kills then
    # land at points spread over the whole run, and (3 of 4) inside the write itself: after the
    # temp file appeared, however long the machine's load made the run before it.
    start = time.monotonic()
    first = subprocess.Popen(
        argv, cwd=ed.root, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert first.stdin is not None
    first.stdin.write(request)
    first.stdin.close()
    appeared = gone = None
    while first.poll() is None:
        now, exists = time.monotonic(), bool(temp_files())
        if exists and appeared is None:
            appeared = now
        if not exists and appeared is not None and gone is None:
            gone = now
        time.sleep(0.0005)
    full = time.monotonic() - start
    assert first.returncode == 0, first.stderr.read() if first.stderr else b""
    assert path.read_bytes() == new
    window = max((gone or time.monotonic()) - (appeared or start), 0.001)

    import random

    rng = random.Random(5)
    outcomes = {"old": 0, "new": 0}
    mid_write = 0
    attempts = 40
    for attempt in range(attempts):
        path.write_bytes(original)
        for leftover in temp_files():
            leftover.unlink()
        proc = subprocess.Popen(
            argv, cwd=ed.root, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        assert proc.stdin is not None
        proc.stdin.write(request)
        proc.stdin.close()
        if attempt % 4:
            deadline = time.monotonic() + 60
            while not temp_files() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.0005)
            time.sleep(rng.uniform(0, window * 0.8))
        else:  # kill points sweep 30% .. 150% of the undisturbed run time
            time.sleep(full * (0.3 + 1.2 * attempt / attempts))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        if temp_files():
            mid_write += 1  # killed while its temp file existed: between create and rename
        data = path.read_bytes()
        assert data in (original, new), f"attempt {attempt}: torn file of {len(data)} bytes"
        outcomes["old" if data == original else "new"] += 1
        if mid_write >= 3 and attempt >= 12:
            break
    assert mid_write >= 1, f"no kill landed during the write ({outcomes}); the test proved nothing"
