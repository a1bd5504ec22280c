"""The agents' own worktrees: Claude Code's WorktreeCreate/WorktreeRemove, and a note at SessionStart
in a worktree pylon did not make (a Codex worktree, an older `.claude/worktrees/` one, a plain one).

WorktreeCreate and WorktreeRemove are not answered in JSON: Claude Code reads the new worktree's
path from the hook's stdout (plain text; a command hook that prints nothing fails the creation)
and treats a non-zero exit as a failure whose stderr it shows. The event (read from the client,
@anthropic-ai/claude-code 2.1.332) is the common envelope plus `name` (WorktreeCreate) or
`worktree_path` (WorktreeRemove); `worktree_name`, and a base named `base_commit` or `base_ref`,
are read too, as other releases have sent them. The work is pylon/workspace/worktrees/clients.py.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pylon.agents.events import HookEvent

EVENTS = frozenset({"WorktreeCreate", "WorktreeRemove"})


def _text(raw: dict[str, Any], *keys: str) -> str:
    return next((v.strip() for k in keys if isinstance(v := raw.get(k), str) and v.strip()), "")


def run(event: HookEvent) -> int:
    """Answer one WorktreeCreate/WorktreeRemove event on stdout/stderr; the hook's exit status."""
    from pylon.errors import PylonError

    try:
        line = answer(event)
    except PylonError as exc:
        hint = f" Next: {exc.hint}" if getattr(exc, "hint", "") else ""
        sys.stderr.write(f"pylon: {exc.message}{hint}\n")
        return 1
    except Exception as exc:  # the client shows this line; never a traceback
        sys.stderr.write(
            f"pylon: {event.name} failed ({type(exc).__name__}: {exc}); nothing was made or removed "
            "by this hook. `pylon doctor` checks the installation.\n"
        )
        return 1
    if line:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
    return 0


def answer(event: HookEvent) -> str:
    """The line to print: the worktree's path (create), or nothing (remove); raises PylonError."""
    from pylon.workspace.repo import locate
    from pylon.workspace.worktrees import clients

    cwd = event.cwd if event.cwd and os.path.isdir(event.cwd) else os.getcwd()
    checkout = locate(cwd)
    if event.name == "WorktreeCreate":
        name = _text(event.raw, "name", "worktree_name")
        if not name:
            from pylon.errors import UsageError

            raise UsageError(
                "usage",
                "The WorktreeCreate event names no worktree (no `name`).",
                "Check the hook's input: pylon hook claude-code < event.json",
            )
        base = _text(event.raw, "base_commit", "base_ref") or None
        made = clients.create(checkout, name, client=event.agent, session=event.session_id, base=base)
        where = "resumed" if made.get("resumed") else "made"
        sys.stderr.write(
            f"pylon: {where} worktree {made['id']} ({made['path']}) for {event.agent}; "
            f"`pylon ws list` shows it, `pylon ws finish {made['id']}` brings its work back\n"
        )
        return str(made["path"])
    path = _text(event.raw, "worktree_path", "path")
    if not path:
        from pylon.errors import UsageError

        raise UsageError(
            "usage",
            "The WorktreeRemove event names no worktree (no `worktree_path`).",
            "Check the hook's input: pylon hook claude-code < event.json",
        )
    done = clients.remove(checkout, path)
    sys.stderr.write(f"pylon: removed worktree {done['id']} (op {done['op']}; `pylon ws undo` brings it back)\n")
    return ""


def session_note(event: HookEvent) -> dict[str, Any]:
    """SessionStart in a worktree pylon did not make: what it lacks of the main checkout (local
    commits, uncommitted paths, the canon store), as added context ({} elsewhere)."""
    from pylon.findroot import find_root

    cwd = event.cwd if event.cwd and os.path.isdir(event.cwd) else os.getcwd()
    root = find_root(cwd)[0]
    if root is None or os.path.isdir(os.path.join(root, ".git")):
        return {}  # not a linked worktree: the main checkout itself
    from pylon.workspace.worktrees.foreign import lacking

    text = lacking(root)
    if not text:
        return {}
    from pylon.agents import answers

    return answers.context(event, text)
