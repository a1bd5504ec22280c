"""The board's rows for the worktrees pylon does not own: `ws list` reports the live ones in
`others` (foreign.py: made by a client, by a plain `git worktree add`, or a session of pylon's that
failed its proof: branch switched, record disagreeing), and the survey counts the rest as `foreign`
(a stray folder in pylon's root, a worktree gone). The board shows each as such, never drops one:
a live one with its changes and its conflicts (it is a party of `ws conflicts`), the others with
the reason and the command that resolves it. Nothing here changes anything.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.worktrees.owned import Survey


def rows(info: Survey, others: list[dict[str, object]]) -> list[dict[str, object]]:
    """One row per worktree pylon does not own: each of `ws list`'s `others` (compared), then each
    foreign record or folder of the survey that is not one of them (not compared)."""
    records = {os.path.realpath(f["path"]): f for f in info.foreign if f.get("path")}
    out: list[dict[str, object]] = []
    seen = set()
    for item in others:
        path = str(item.get("path") or "")
        seen.add(os.path.realpath(path))
        who = item.get("made_by") if isinstance(item.get("made_by"), dict) else {}
        assert isinstance(who, dict)
        record = records.get(os.path.realpath(path), {})
        why = record.get("why") or str(who.get("why") or "") or _made(who)
        out.append(
            {
                "id": record.get("id", ""),
                "label": item.get("label"),
                "path": path,
                "why": why,
                "resolve": record.get("resolve", ""),
                "branch": item.get("branch"),
                "head": item.get("head"),
                "baseline": item.get("base") or None,
                "compared": True,
                "dirty": item.get("dirty"),
                "made_by": who,
            }
        )
    for real, record in records.items():
        if real in seen:
            continue
        out.append(
            {
                "id": record.get("id", ""),
                "label": record.get("id") or record.get("path"),
                "path": record.get("path", ""),
                "why": record.get("why", ""),
                "resolve": record.get("resolve", ""),
                "branch": None,
                "head": None,
                "baseline": None,
                "compared": False,
                "dirty": None,
                "made_by": None,
            }
        )
    return out


def _made(who: dict[str, object]) -> str:
    client = who.get("client")
    if client == "claude-code":
        return f"made by Claude Code ({who.get('name')}), not by pylon"
    if client == "codex":
        return "made by Codex, not by pylon"
    return "made by git worktree add, not by pylon"
