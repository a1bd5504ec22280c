"""A shell command run exactly as an agent client runs it: its PreToolUse event into `pylon hook
AGENT`, then bash in the checkout (when the answer lets it run), then its PostToolUse event; and the
whole state of a checkout as git and the file system show it (the oracle: nobody here wrote git,
`ls-files -s`, `for-each-ref` or `stash list`)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import run_cmd

_SEQ = [0]


def event(
    name: str, command: str, cwd: Path, use_id: str, *, session: str = "s-1", extra: dict[str, Any] | None = None
) -> str:
    body: dict[str, Any] = {
        "session_id": session,
        "transcript_path": None,
        "cwd": str(cwd),
        "hook_event_name": name,
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": use_id,
    }
    if name == "PostToolUse":
        body["tool_response"] = {"stdout": "", "stderr": "", "interrupted": False}
    body.update(extra or {})
    return json.dumps(body)


def hook(agent: str, payload: str, cwd: Path) -> dict[str, Any]:
    r = run_cmd("pylon", "hook", agent, cwd=cwd, input=payload)
    assert r.code == 0, r
    return json.loads(r.out) if r.out.strip() else {}


def run_through_hooks(
    repo: Path,
    command: str,
    *,
    agent: str = "claude-code",
    cwd: Path | None = None,
    run_anyway: bool = True,
    env: dict[str, str] | None = None,
    end: str = "post",
) -> tuple[dict[str, Any], subprocess.CompletedProcess[bytes] | None]:
    """(the PreToolUse answer, bash's result or None when it was not run). With `run_anyway`, a
    command the hook asks about runs too (as when the person lets it). `end`: how the client says the
    command ended: "post" (its PostToolUse: Codex, or a Claude Code install of an older pylon),
    "batch" (Claude Code's PostToolBatch), "none" (no hook: the next pylon command settles it)."""
    _SEQ[0] += 1
    use_id = f"toolu_{os.getpid()}_{_SEQ[0]}"
    where = cwd or repo
    answer = hook(agent, event("PreToolUse", command, where, use_id), where)
    decision = (answer.get("hookSpecificOutput") or {}).get("permissionDecision")
    if decision in ("ask", "deny") and not run_anyway:
        return answer, None
    ran = subprocess.run(
        ["bash", "-c", command],
        cwd=where,
        capture_output=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )
    if end == "post":
        hook(agent, event("PostToolUse", command, where, use_id), where)
    elif end == "batch":
        call = {"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": use_id}
        batch = {"session_id": "s-1", "cwd": str(where), "hook_event_name": "PostToolBatch", "tool_calls": [call]}
        hook(agent, json.dumps(batch), where)
    return answer, ran


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, check=True).stdout.decode(
        "utf-8", "surrogateescape"
    )


def tree(root: Path) -> dict[str, tuple[str, int, bytes]]:
    """Every path below root but .git: (kind, permission bits, bytes or link target); folders too."""
    out: dict[str, tuple[str, int, bytes]] = {}
    for folder, dirs, files in os.walk(root):
        rel_folder = os.path.relpath(folder, root)
        if rel_folder == ".git" or rel_folder.startswith(".git" + os.sep):
            continue
        dirs[:] = [d for d in dirs if not (rel_folder == "." and d == ".git")]
        for name in dirs + files:
            full = os.path.join(folder, name)
            rel = os.path.normpath(os.path.join(rel_folder, name))
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", 0, os.fsencode(os.readlink(full)))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", stat.S_IMODE(st.st_mode), b"")
            else:
                out[rel] = ("file", stat.S_IMODE(st.st_mode), Path(full).read_bytes())
    return out


def whole_state(repo: Path) -> dict[str, Any]:
    """The tree, the index, HEAD, every ref and the stash (entries and their commits)."""
    stash = _git(repo, "stash", "list", "--format=%H %gs")
    return {
        "tree": tree(repo),
        "index": _git(repo, "ls-files", "-s"),
        "head": _git(repo, "rev-parse", "--symbolic-full-name", "HEAD") + _git(repo, "rev-parse", "HEAD"),
        "refs": _git(repo, "for-each-ref", "--format=%(refname) %(objectname) %(symref)"),
        "stash": stash,
    }
