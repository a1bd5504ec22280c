"""`pylon guard install|uninstall`: the guard's part of the one hook entry (pylon.hooks.install).

The hook's answer itself lives in pylon.hooks.guard (re-exported here for older callers).
"""

from __future__ import annotations

import os
import sys

from pylon.hooks.guard import answer, context, refusal  # noqa: F401 - the hook's library, re-exported

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class InstallArgs(Protocol):
        json: bool
        agent: str
        project: bool
        user: bool
        dry_run: bool


def install_hook(args: InstallArgs, *, remove: bool) -> int:
    from pylon.agents.settings import apply, settings_path
    from pylon.cli import output
    from pylon.errors import UsageError
    from pylon.hooks.install import plan, program_for

    if args.agent not in ("claude-code", "codex"):
        raise UsageError("unknown-agent", f"{args.agent!r} is not an agent pylon guard installs into "
                         "(claude-code, codex).", "pylon guard install claude-code")
    if args.project and args.user:
        raise UsageError("usage", "--project and --user exclude each other.", "pylon guard install --help")
    scope = "user" if args.user else "project"
    root = context().root or os.getcwd()
    path = settings_path(args.agent, scope, root)
    the_plan = plan(args.agent, path, "guard", install=not remove, program=program_for(scope, sys.argv[0]))
    written = False if args.dry_run else apply(the_plan)
    from pylon.cli.hook import twice_note

    doubles = [] if remove else twice_note(args.agent, path, root)
    if args.json:
        output.ok_json({"agent": args.agent, "scope": scope, "path": path, "changed": the_plan.changed,
                        "written": written, "dry_run": args.dry_run, "added": the_plan.added,
                        "removed": the_plan.removed, "diff": the_plan.diff(), "warnings": doubles})
        return 0
    if args.dry_run:
        output.out(the_plan.diff() or "")
        output.err(f"pylon: {path}: " + ("would change (dry run; nothing written)" if the_plan.changed
                                         else "already as wanted; nothing to do"))
    elif written:
        output.err(f"pylon: {'removed the guard hook from' if remove else 'installed the guard hook in'} {path}"
                   + ("" if remove else _codex_note(args.agent)))
    else:
        output.err(f"pylon: {path} already {'has no guard hook' if remove else 'has the guard hook'}; nothing changed")
    for line in doubles:
        output.err(f"warning: {line}")
    return 0


def _codex_note(agent: str) -> str:
    from pylon.hooks.install import CODEX_NOTE

    return f"\npylon: {CODEX_NOTE}" if agent == "codex" else ""
