"""Handler of `pylon hook claude-code|codex`, and of the older `pylon guard hook` / `canon hook`.

One process per agent event: read the event once, let pylon.hooks.entry ask the parts it
concerns, print the combined answer. Always exits 0 with JSON: a failure of the guard is answered
as a refusal with the reason (never silence), a failure of canon as no answer (it never blocks).
Kept light: main.py calls `fast` for these exact command lines without loading the registry.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class HookArgs(Protocol):
        agent: str

AGENTS = ("claude-code", "codex")  # = pylon.cli.options.AGENTS (tests/cli/test_hook_entry.py checks)


def fast(prog: str, argv: list[str]) -> int | None:
    """Answer the exact hook command lines without the registry and the parser (None: not one)."""
    if prog == "pylon" and len(argv) == 2 and argv[0] == "hook" and argv[1] in AGENTS:
        return run_hook(argv[1])
    if prog == "pylon" and len(argv) == 3 and argv[:2] == ["guard", "hook"] and argv[2] in AGENTS:
        return run_hook(argv[2], ("guard",), quiet=True)
    if prog == "canon" and len(argv) == 2 and argv[0] == "hook" and argv[1] in AGENTS:
        return run_hook(argv[1], ("canon",))
    return None


def hook(args: HookArgs) -> int:
    return run_hook(args.agent)


def run_hook(agent: str, parts: tuple[str, ...] = ("guard", "canon", "ws"), *, root: str | None = None,
             mounts: list[str] | None = None, quiet: bool = False) -> int:
    """Read one event from stdin, answer it for `parts`; `quiet`: print nothing for no answer (the
    guard's old command), else always one JSON line (Codex requires JSON on Stop). WorktreeCreate
    and WorktreeRemove are answered in plain text with an exit status (pylon.hooks.worktrees)."""
    from pylon.agents.jsonio import dumps

    try:
        from pylon.agents.events import read_event
        from pylon.hooks.entry import WS_EVENTS, answer

        event = read_event(agent)
        if event.name in WS_EVENTS and "ws" in parts:
            from pylon.hooks.worktrees import run

            return run(event)
        reply = answer(event, parts, root=root, mounts=mounts, on_failure=_log_failure)
        if event.problem and "guard" not in parts:
            sys.stderr.write(f"canon hook {agent}: ignored an event that is {event.problem}\n")
    except Exception as exc:  # noqa: BLE001 - pylon itself broken (an import, a bug): never fail open
        _log_failure("guard" if "guard" in parts else "canon", exc)
        reply = {}
        if "guard" in parts:  # the same shape as pylon.hooks.guard.refusal, built without it
            reply = {"hookSpecificOutput": {
                "hookEventName": "PreToolUse", "permissionDecision": "deny" if agent == "codex" else "ask",
                "permissionDecisionReason": f"pylon hook failed ({type(exc).__name__}: {str(exc)[:200]}), so the "
                                            "command was not checked. Run it only if you know it is safe."}}
    if reply or not quiet:
        sys.stdout.write(dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


def _log_failure(part: str, exc: BaseException) -> None:
    """One line on stderr (agents show it in their debug views); the guard's traceback goes to
    the hook's log under the state directory."""
    sys.stderr.write(f"pylon hook: {part}: {getattr(exc, 'code', type(exc).__name__)}: {exc}\n")
    if part != "guard":
        return
    import traceback

    try:
        from pylon.state import state_dir

        folder = os.path.join(state_dir(), "logs")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "guard-hook.log"), "a", encoding="utf-8") as fh:
            fh.write("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)) + "\n")
    except Exception:  # noqa: BLE001 - logging is best effort here
        return
