"""The hook after a shell call that names only what this session was shown already: nothing said,
nothing written, nothing locked (the common case, kept cheap); anything new still surfaces."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.cli.test_startup import wrapper_imports
from tests.conftest import run_cmd, script


def _batch(root: Path, *commands: str) -> str:
    calls = [
        {"tool_name": "Bash", "tool_input": {"command": c}, "tool_use_id": f"t{i}"} for i, c in enumerate(commands)
    ]
    return json.dumps(
        {"session_id": "sess-r", "cwd": str(root), "hook_event_name": "PostToolBatch", "tool_calls": calls}
    )


def _hook(root: Path, *commands: str) -> dict:
    result = run_cmd("pylon", "hook", "claude-code", cwd=root, input=_batch(root, *commands))
    assert result.code == 0, result
    return json.loads(result.out)


def _imports(root: Path, *commands: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", script("pylon"), "hook", "claude-code"],
        cwd=root,
        input=_batch(root, *commands),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and json.loads(proc.stdout) == {}, proc
    # less what the installer's wrapper imports (pip 23's imports `re`): not the hook's cost
    names = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    return names - wrapper_imports("pylon")


def test_a_repeat_says_nothing_and_touches_nothing_but_new_paths_still_surface(store: Path) -> None:
    assert "src/app (updated" in _hook(store, "cat src/app.py")["hookSpecificOutput"]["additionalContext"]
    assert _hook(store, "cat src/app.py && wc -l src/app.py", "ls") == {}
    # no session lock, no rewrite of its state, and neither json nor re loaded for it
    assert not {"pylon.locks", "pylon.atomic", "json", "re", "shlex"} & _imports(store, "echo hi && cat src/app.py")
    text = _hook(store, "cat src/app.py src/core/config.py")["hookSpecificOutput"]["additionalContext"]
    assert "src/core (updated" in text and "src/app (" not in text  # the new one only
    assert _hook(store, "cat .canon/articles/src/app.md") == {}  # the article itself, already shown
    assert _hook(store, "sed -i s/a/b/ src/core/config.py") == {}  # a change: armed (slow path), said at Stop
    stop = run_cmd(
        "pylon",
        "hook",
        "claude-code",
        cwd=store,
        input=json.dumps({"session_id": "sess-r", "cwd": str(store), "hook_event_name": "Stop"}),
    )
    assert "src/core: src/core/config.py" in json.loads(stop.out)["reason"]
