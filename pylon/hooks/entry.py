"""One hook event in, every installed part's answer combined, in the agent's format out.

Which part an event concerns follows from the event itself, because `pylon guard install`,
`canon hook install` and `pylon hook install` register the one command only on their own events
(install.py):

    PreToolUse                                      guard (the shell tool; the file tools: files.py), then
                                                    the write-time conflict check (clash.py)
    PostToolUse of the shell tool                   guard (Codex: the op of what the command changed: keep.py)
    PostToolBatch, Stop                             guard too (the op of commands still running: in Claude
                                                    Code every batch's last, where no PostToolUse is registered)
    SessionStart, PostToolUse, PostToolBatch, Stop  canon (surfacing, the settle reminder); SessionStart
                                                    also ws (worktrees.py: a worktree pylon did not make)
    WorktreeCreate, WorktreeRemove                  ws: answered in plain text, not here (cli/hook.py)

`parts` narrows that for the old commands kept as aliases (`pylon guard hook` = guard only,
`canon hook` = canon only). The answers are combined: a permission decision keeps the strictest
(deny over ask over allow), texts (additionalContext, systemMessage, a Stop reason) are joined in
the order guard, canon. A part that fails: the guard refuses (ask in Claude Code, deny in Codex:
it never lets a command through unseen), canon says nothing (it never blocks the agent).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pylon.agents.events import HookEvent

GUARD, CANON, WS = "guard", "canon", "ws"
CLASH = "clash"  # the write-time conflict check: asked with the guard, on the guard's PreToolUse
PARTS = (GUARD, CANON, WS)
GUARD_EVENTS = frozenset({"PreToolUse", "PostToolUse"})
CANON_EVENTS = frozenset({"SessionStart", "PostToolUse", "PostToolBatch", "Stop"})
WS_EVENTS = frozenset({"WorktreeCreate", "WorktreeRemove"})
_STRICTNESS = {"allow": 0, "ask": 1, "deny": 2}


def concerned(event: HookEvent, parts: tuple[str, ...] = PARTS) -> list[str]:
    """The parts to ask about `event`, in answering order. An event that cannot be read, or that
    has no name, goes to the guard (which refuses it with the reason, never silently)."""
    out = []
    from pylon.agents.events import SHELL_TOOLS

    after_shell = event.name == "PostToolUse" and event.tool_name in SHELL_TOOLS
    batch_done = event.name in ("PostToolBatch", "Stop")  # commands a person refused end here
    if GUARD in parts and (event.problem or not event.name or event.name == "PreToolUse" or after_shell or batch_done):
        out.append(GUARD)
    if GUARD in parts and event.name == "PreToolUse" and not event.problem:
        out.append(CLASH)
    if CANON in parts and event.name in CANON_EVENTS and not event.problem:
        out.append(CANON)
    if WS in parts and event.name == "SessionStart" and not event.problem:
        out.append(WS)
    return out


def answer(
    event: HookEvent,
    parts: tuple[str, ...] = PARTS,
    *,
    root: str | None = None,
    mounts: list[str] | None = None,
    on_failure: Any = None,
) -> dict[str, Any]:
    """The combined answer to one decoded event ({} when nobody has anything to say).
    `on_failure(part, exc)` is called when a part raised (the hook logs it)."""
    replies = []
    for part in concerned(event, parts):
        try:
            if part == GUARD:
                from pylon.hooks.guard import judge

                replies.append(judge(event))
            elif part == CLASH:
                from pylon.hooks.clash import judge as clash

                replies.append(clash(event))
            elif part == WS:
                from pylon.hooks.worktrees import session_note

                replies.append(session_note(event))
            else:
                from pylon.canon.agent.hook import answer as canon_answer

                replies.append(canon_answer(event, root, mounts))
        except Exception as exc:  # one part failing must not silence the other
            if on_failure is not None:
                on_failure(part, exc)
            if part == GUARD and (event.name == "PreToolUse" or event.problem or not event.name):
                from pylon.hooks.guard import refusal

                replies.append(
                    refusal(
                        event.agent,
                        f"pylon guard failed ({type(exc).__name__}: {str(exc)[:200]}), "
                        "so the command was not checked. Run it only if you know it is safe.",
                    )
                )
    return combine(replies)


def combine(replies: list[dict[str, Any]]) -> dict[str, Any]:
    """Several answers to one event as one: the strictest permission decision with every reason,
    every context and message joined, a Stop block if any part blocks."""
    replies = [r for r in replies if r]
    if len(replies) <= 1:
        return replies[0] if replies else {}
    out: dict[str, Any] = {}
    for reply in replies:
        for key, value in reply.items():
            if key == "hookSpecificOutput" and isinstance(value, dict):
                out[key] = _merge_specific(out.get(key) or {}, value)
            elif key in ("systemMessage", "reason") and isinstance(value, str):
                out[key] = f"{out[key]}\n{value}" if out.get(key) else value
            elif key == "decision":
                out[key] = "block" if "block" in (value, out.get(key)) else value
            else:
                out.setdefault(key, value)
    return out


def _merge_specific(have: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    merged = dict(have)
    for key, value in new.items():
        if key == "permissionDecision":
            if _STRICTNESS.get(str(value), 0) >= _STRICTNESS.get(str(merged.get(key)), -1):
                merged[key] = value
        elif key in ("additionalContext", "permissionDecisionReason") and isinstance(value, str):
            merged[key] = f"{merged[key]}\n{value}" if merged.get(key) else value
        else:
            merged.setdefault(key, value)
    return merged
