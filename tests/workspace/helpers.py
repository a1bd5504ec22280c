"""Helpers for the workspace tests: the installed `pylon`, real git, index snapshots."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import Result, git, run_cmd, write_files


def pylon(
    *args: str, cwd: Path | str, env: dict[str, str] | None = None, input: str | None = None, timeout: float = 120
) -> Result:
    return run_cmd("pylon", *args, cwd=cwd, env=env, input=input, timeout=timeout)


def commit_all(repo: Path, message: str = "commit") -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def index_snapshot(repo: Path) -> tuple[bytes, int]:
    """The real index's bytes and mtime (ns): read commands must leave both unchanged."""
    path = Path(git(repo, "rev-parse", "--git-path", "index").strip())
    if not path.is_absolute():
        path = repo / path
    return path.read_bytes(), os.stat(path).st_mtime_ns


def guarded(repo: Path, line: str) -> None:
    """`line` as an agent runs it: the guard's PreToolUse hook (the real `pylon guard hook`), bash,
    then its PostToolUse hook, which records what the command changed as an op."""
    import json
    import subprocess

    _SEQ[0] += 1
    for name in ("PreToolUse", "PostToolUse"):
        event = json.dumps(
            {
                "hook_event_name": name,
                "tool_name": "Bash",
                "cwd": str(repo),
                "session_id": "s-1",
                "tool_use_id": f"toolu_helper_{_SEQ[0]}",
                "tool_input": {"command": line},
                "tool_response": {},
            }
        )
        hook = pylon("guard", "hook", "claude-code", cwd=repo, input=event)
        assert hook.code == 0, hook
        if name == "PreToolUse":
            subprocess.run(["bash", "-c", line], cwd=repo, capture_output=True, check=False)


_SEQ = [0]


def git_starts(log: Path) -> list[list[str]]:
    """The argv (after `git`, global `-c`/`-C` options dropped) of every git process that wrote its
    start to the GIT_TRACE2_EVENT file `log`, in order."""
    import json

    found = []
    for line in log.read_text().splitlines() if log.exists() else []:
        event = json.loads(line)
        if event["event"] == "start":
            argv = list(event["argv"][1:])
            while argv and argv[0] in ("-c", "-C"):
                argv = argv[2:]
            found.append(argv)
    return found


__all__ = ["pylon", "git", "write_files", "commit_all", "index_snapshot", "guarded", "git_starts"]
