"""Issue 18's escapes run for real: the entries of corpus/escapes.txt marked "(run)" are answered
by the hook (a snapshot is taken), then bash runs them in a fresh corpus checkout, and
`ws restore guard-<n>` must give back every byte and the index. Before issue 18 each of them was
judged `safe`: no snapshot, and the data was gone."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import git
from tests.guard.conftest import ESCAPES, build_checkout, disk, entries

RUN = [(v, s, c) for v, s, c in entries(ESCAPES) if s.endswith("(run)")]


def test_the_run_set_covers_every_class() -> None:
    assert len(RUN) >= 30
    assert all(v == "reversible" for v, _, _ in RUN)


@pytest.mark.parametrize(("expected", "source", "command"), RUN, ids=[s for _, s, _ in RUN])
def test_escape_is_snapshotted_and_restored_after_bash_runs_it(expected: str, source: str, command: str,
                                                               tmp_path: Path) -> None:
    from pylon.cli.guard.hook import answer
    from pylon.workspace.repo import locate
    from pylon.workspace.ops.restore import restore_named

    root, env = build_checkout(tmp_path)
    (root / "src" / "app.py").write_text("def main():\n    return 2  # uncommitted work\n")
    (root / "README.md").write_text("# demo, edited\n")
    git(root, "add", "README.md")
    before, index = disk(root), git(root, "ls-files", "-s")
    event = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(root),
                        "tool_input": {"command": command}})
    reply = answer("claude-code", event.encode())
    context = reply.get("hookSpecificOutput", {}).get("additionalContext", "")
    assert "pylon ws restore guard-" in context, (source, reply)
    name = context.split("pylon ws restore ")[1].split("`")[0].split()[0]  # the whole snapshot
    run_env = {**os.environ, **env, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["bash", "-c", command], cwd=root, capture_output=True, check=False, env=run_env,
                          stdin=subprocess.DEVNULL, timeout=60)
    assert disk(root) != before or git(root, "ls-files", "-s") != index, (source, done.stderr)
    restore_named(locate(str(root)), name)
    assert disk(root) == before, source
    assert git(root, "ls-files", "-s") == index, source
