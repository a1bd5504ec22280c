"""The parallel-agents walkthrough in docs/how-to/parallel-agents.md is real output:
scripts/ws-walkthrough runs it, and what it prints now must equal what the docs show (commit ids,
times and the temporary folder aside), so the docs cannot drift from what the commands print."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OID = re.compile(r"\b[0-9a-f]{7,40}\b")
STAMP = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\dZ?|\d{8}T\d{6}Z")


def normal(text: str, folder: str) -> list[str]:
    text = text.replace(folder, "<dir>").rstrip("\n")
    return [STAMP.sub("<time>", OID.sub("<oid>", line)).rstrip() for line in text.splitlines()]


def test_the_walkthrough_in_the_docs_is_what_the_commands_print(tmp_path: Path) -> None:
    folder = str(tmp_path / "walk")
    env = {**os.environ, "WALK_DIR": folder, "PYLON": str(Path(sys.executable).parent / "pylon")}
    proc = subprocess.run(
        ["bash", str(ROOT / "scripts" / "ws-walkthrough")], capture_output=True, text=True, env=env, timeout=600
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "Traceback" not in proc.stdout + proc.stderr
    fresh = normal(proc.stdout, folder)
    doc = (ROOT / "docs" / "how-to" / "parallel-agents.md").read_text(encoding="utf-8")
    block = doc.split("<!-- walkthrough: scripts/ws-walkthrough -->\n```console\n", 1)[1].split("\n```\n", 1)[0]
    assert normal(block, "/tmp/walk") == fresh
