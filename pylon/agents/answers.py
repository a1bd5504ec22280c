"""What a hook prints back: the JSON each agent reads from the hook's stdout.

Claude Code and Codex read the same shapes: `hookSpecificOutput` with `hookEventName` and
`additionalContext` (text added to the model's context) or, before a tool runs,
`permissionDecision` (`allow` / `deny` / `ask`) with `permissionDecisionReason`; for `Stop`,
`decision: "block"` with a `reason` makes the agent continue with that reason as its next
instruction; `systemMessage` is shown to the user. Codex honours `deny` but parses `allow`/`ask`
and fails open (documented by OpenAI), so the same answer is safe for both.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

    from pylon.agents.events import HookEvent

# Events whose answer may carry additionalContext.
CONTEXT_EVENTS = frozenset(
    {
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolBatch",
        "PostToolUseFailure",
        "SubagentStart",
    }
)


def noop() -> dict[str, Any]:
    """Nothing to say: the agent carries on as if there were no hook."""
    return {}


def context(event: HookEvent, text: str) -> dict[str, Any]:
    """Add `text` to the model's context (no-op for events that cannot carry context)."""
    if not text or event.name not in CONTEXT_EVENTS:
        return {}
    return {"hookSpecificOutput": {"hookEventName": event.name, "additionalContext": text}}


def _permission(event: HookEvent, decision: str, reason: str) -> dict[str, Any]:
    if event.name != "PreToolUse":
        return {}
    out: dict[str, Any] = {"hookEventName": "PreToolUse", "permissionDecision": decision}
    if reason:
        out["permissionDecisionReason"] = reason
    return {"hookSpecificOutput": out}


def allow(event: HookEvent, reason: str = "") -> dict[str, Any]:
    """PreToolUse: run the tool without asking (Codex: parsed, falls through to its own rules)."""
    return _permission(event, "allow", reason)


def deny(event: HookEvent, reason: str) -> dict[str, Any]:
    """PreToolUse: refuse the tool call; `reason` is shown to the model."""
    return _permission(event, "deny", reason)


def ask(event: HookEvent, reason: str) -> dict[str, Any]:
    """PreToolUse: ask the user to confirm (Codex does not enforce `ask` yet: prefer deny there)."""
    return _permission(event, "ask", reason)


def block_stop(event: HookEvent, reason: str) -> dict[str, Any]:
    """Stop: keep the agent working, with `reason` as its next instruction."""
    if event.name not in ("Stop", "SubagentStop") or not reason:
        return {}
    return {"decision": "block", "reason": reason}


def message(text: str, answer: dict[str, Any] | None = None) -> dict[str, Any]:
    """Add a line shown to the user (not to the model) to `answer`."""
    out = dict(answer or {})
    if text:
        out["systemMessage"] = text
    return out


def emit(answer: dict[str, Any], stream: TextIO | None = None) -> None:
    """Write one answer as a JSON line; always valid JSON, even for a no-op (Codex needs it on Stop)."""
    from pylon.agents.jsonio import dumps

    out = stream if stream is not None else sys.stdout
    out.write(dumps(answer) + "\n")
    out.flush()
