"""20 hook processes of one session at once: no surfacing mark lost, no article shown twice."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.agents.corpus import payload_text
from tests.canon.conftest import MakeStore
from tests.canon.helpers import article
from tests.conftest import run_cmd, script

N = 20


def test_twenty_hooks_at_once_lose_nothing_and_repeat_nothing(make_store: MakeStore) -> None:
    # 20 articles; process i touches asset i and asset (i+1) % N, so every article is raced for
    # by two processes, and writes half of them (arming the reminder).
    root: Path = make_store(
        articles={f"pkg/m{i:02d}": article(f"Module {i:02d} capsule.") for i in range(N)},
        files={f"pkg/m{i:02d}.py": "" for i in range(N)},
    )
    events = []
    for i in range(N):
        raw = json.loads(payload_text("claude-code-post-write" if i % 2 else "claude-code-post-read", root, "race"))
        raw["tool_input"] = {"file_path": str(root / f"pkg/m{i:02d}.py")}
        if i % 2 == 0:  # a Bash call naming the neighbour too
            raw["tool_name"] = "Bash"
            raw["tool_input"] = {"command": f"cat pkg/m{i:02d}.py pkg/m{(i + 1) % N:02d}.py"}
        else:
            raw["tool_input"]["content"] = "x = 1\n"
        events.append(json.dumps(raw).encode())
    procs = [
        subprocess.Popen(
            [script("canon"), "hook", "claude-code"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(N)
    ]
    for proc, event in zip(procs, events):
        assert proc.stdin is not None
        proc.stdin.write(event)
        proc.stdin.close()
    outputs = []
    for proc in procs:
        assert proc.stdout is not None and proc.stderr is not None
        out, err = proc.stdout.read(), proc.stderr.read()
        assert proc.wait(timeout=60) == 0, err
        outputs.append(json.loads(out))
    lines = [
        line
        for doc in outputs
        if doc
        for line in doc["hookSpecificOutput"]["additionalContext"].splitlines()
        if line.startswith("- ")
    ]
    addresses = [line[2:].split(" (updated")[0] for line in lines]
    assert len(addresses) == len(set(addresses)), "an article was shown twice"
    waiting = run_cmd("canon", "surface", "--json", cwd=root, env={"PYLON_SESSION": "race"}).json()
    shown = set(addresses) | set(waiting["shown"]) | set(waiting["pointers"])
    assert shown == {f"pkg/m{i:02d}" for i in range(N)}, "a surfacing mark was lost"
    status = run_cmd("canon", "status", "--json", cwd=root, env={"PYLON_SESSION": "race"}).json()
    assert status["surfacing"]["shown"] == N and status["surfacing"]["waiting"] == 0
    settled = run_cmd("canon", "settle", "--json", cwd=root, env={"PYLON_SESSION": "race"}).json()
    assert [a["address"] for a in settled["articles"]] == [f"pkg/m{i:02d}" for i in range(1, N, 2)]
