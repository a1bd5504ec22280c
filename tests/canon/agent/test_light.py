"""The hook runs on every tool call and `canon read` on every look-up: both stay light."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.agents.corpus import payload_text
from tests.canon.conftest import MakeStore
from tests.canon.helpers import article
from tests.conftest import run_cmd, script

HEAVY = ("pygit2", "watchdog", "rich", "typer", "yaml", "frontmatter", "sqlite3")


def imports(argv: list[str], cwd: Path, stdin: str = "") -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", script(argv[0]), *argv[1:]],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def test_the_hook_imports_nothing_heavy(make_store: MakeStore) -> None:
    root = make_store(articles={"src/core": article("Core.")}, files={"src/core/config.py": ""})
    for name in ("claude-code-post-edit", "claude-code-post-bash", "claude-code-stop", "claude-code-session-start"):
        names = imports(["canon", "hook", "claude-code"], root, payload_text(name, root))
        heavy = sorted(n for n in names if n.split(".")[0] in HEAVY)
        assert not heavy, f"{name}: {heavy}"


def test_read_without_a_session_writes_no_state(make_store: MakeStore) -> None:
    root = make_store(articles={"src/app": article("App.")}, files={"src/app.py": ""})
    state = Path(os.environ["XDG_STATE_HOME"]) / "pylon"
    assert run_cmd("canon", "read", "src/app.py", cwd=root).code == 0
    assert not (state / "canon").exists()
    assert run_cmd("canon", "read", "src/app.py", cwd=root, env={"PYLON_SESSION": "s"}).code == 0
    assert list((state / "canon" / "sessions" / "s").glob("*.json"))
