"""`pylon sessions statusline`: one line for Claude Code's status line.

Claude Code runs the `statusLine` command of its settings after each message (at most every
300 ms) with a JSON object on stdin: `session_id`, `transcript_path`, `cwd`,
`workspace.current_dir`, `model`, `cost.total_cost_usd`, ... and shows the first line printed.
The line names the worktree (pylon's id, or the checkout's folder), the session's phase, its
tokens and cost: `agent-1 · working · 48.2k tok · $0.31`. Only this session's transcript is read
(through the cache), and the worktree is found without running git, so it stays fast.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SEP = " · "


def worktree_name(cwd: str) -> str:
    """pylon's id when `cwd` is in an owned worktree (its branch is `pylon-session-<id>`), else the
    folder name of the checkout around it (or of `cwd` itself outside git)."""
    from pylon.findroot import find_root

    root, branch = find_root(cwd) if cwd else (None, None)
    if branch and branch.startswith("pylon-session-"):
        return branch[len("pylon-session-") :]
    return os.path.basename((root or cwd or os.getcwd()).rstrip(os.sep)) or "/"


def short(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    if count >= 1000:
        return f"{count / 1000:.1f}k"
    return str(count)


def line(event: dict[str, Any]) -> str:
    workspace: dict[str, Any] = event["workspace"] if isinstance(event.get("workspace"), dict) else {}
    cwd = next((v for v in (workspace.get("current_dir"), event.get("cwd")) if isinstance(v, str) and v), os.getcwd())
    parts = [worktree_name(cwd)]
    session = _session(event)
    if session is None:
        return parts[0]
    parts += [session.phase, short(session.tokens["total"]) + " tok"]
    cost: dict[str, Any] = event["cost"] if isinstance(event.get("cost"), dict) else {}
    dollars = session.to_doc()["cost"]
    if dollars is None and isinstance(cost.get("total_cost_usd"), (int, float)):
        dollars = cost["total_cost_usd"]  # the client's own estimate, for a model the table lacks
    if dollars is not None:
        parts.append(f"${dollars:.2f}" if dollars >= 0.01 else f"${dollars:.4f}")
    return SEP.join(parts)


def _session(event: dict[str, Any]) -> Any:
    """The session of the event's transcript (and its subagents), read through the cache: a Claude
    Code transcript, or a Codex rollout (`rollout-*.jsonl`) for a command that passes one."""
    from pylon.sessions import claude, codex, collect, prices

    path = event.get("transcript_path")
    if not isinstance(path, str) or not path.endswith(".jsonl"):
        return None
    path = os.path.abspath(os.path.expanduser(path))
    try:
        files = [(path, os.stat(path))]
    except OSError:
        return None
    if os.path.basename(path).startswith("rollout-"):
        found = [collect.Source(codex.CLIENT, path, codex.home(), "", files[0][1])]
    else:
        projects = os.path.dirname(os.path.dirname(path))
        session_id = claude.session_of(path, projects)
        collect.walk(os.path.join(os.path.dirname(path), session_id, "subagents"), files)
        found = [collect.Source(claude.CLIENT, p, os.path.dirname(projects), session_id, st) for p, st in files]
    collect.read(found, keep=True, prune=False)
    sessions = collect.group(found, prices.table())
    collect.settle(sessions)
    return sessions[0] if sessions else None
