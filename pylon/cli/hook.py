"""Handler of `pylon hook claude-code|codex`, and of the older `pylon guard hook` / `canon hook`.

One process per agent event: read the event once, let pylon.hooks.entry ask the parts it
concerns, print the combined answer. Always exits 0 with JSON: a failure of the guard is answered
as a refusal with the reason (never silence), a failure of canon as no answer (it never blocks).
Kept light: main.py calls `fast` for these exact command lines without loading the registry.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class HookArgs(Protocol):
        """`pylon hook claude-code|codex`: the event comes on stdin; canon's store options."""

        root: str | None
        mount: list[str]

    class InstallArgs(Protocol):
        json: bool
        agent: str
        project: bool
        user: bool
        dry_run: bool


AGENTS = ("claude-code", "codex")  # = pylon.cli.options.AGENTS (tests/cli/test_hook_entry.py checks)


def fast(prog: str, argv: list[str]) -> int | None:
    """Answer the exact hook command lines without the registry and the parser (None: not one):
    through the resident helper when one serves this environment (pylon/hooks/helper.py), else here."""
    parts: tuple[str, ...]
    if prog == "pylon" and len(argv) == 2 and argv[0] == "hook" and argv[1] in AGENTS:
        agent, parts, quiet = argv[1], ("guard", "canon", "ws"), False
    elif prog == "pylon" and len(argv) == 3 and argv[:2] == ["guard", "hook"] and argv[2] in AGENTS:
        agent, parts, quiet = argv[2], ("guard",), True
    elif prog == "canon" and len(argv) == 2 and argv[0] == "hook" and argv[1] in AGENTS:
        agent, parts, quiet = argv[1], ("canon",), False
    else:
        return None
    helped = _helped(prog, argv)
    return helped if helped is not None else run_hook(agent, parts, quiet=quiet, data=_data())


_STDIN: list[bytes | None] = []  # the event's bytes, read once: the helper's and this process's answer share them


def _data() -> bytes | None:
    if not _STDIN:
        from pylon.hooks.helper_ask import MAX_EVENT_BYTES

        try:
            _STDIN.append(sys.stdin.buffer.read(MAX_EVENT_BYTES + 1))
        except (OSError, ValueError, AttributeError):  # closed or unreadable: read_event says so
            _STDIN.append(None)
    return _STDIN[0]


def _helped(prog: str, argv: list[str]) -> int | None:
    """The helper's exit status after its output is written here; None: answer in this process.
    Every event but the worktree ones goes to the helper: the events after a tool (the op's capture,
    canon's capsules) import as much as the PreToolUse does (docs/benchmarks.md, bench:agents-e2e).
    `ws new` for a WorktreeCreate may take longer than the helper is waited for, and must not run
    twice."""
    from pylon.hooks.helper_ask import ask, enabled

    data = _data() if enabled() else None
    if data is None or b'"Worktree' in data:  # a false match only costs the hop
        return None
    got = ask(prog, argv, data, "pylon.cli.hook:serve_helper")
    if got is None:
        return None
    code, out, err = got
    sys.stdout.flush()
    sys.stdout.buffer.write(out)
    sys.stdout.buffer.flush()
    sys.stderr.buffer.write(err)
    sys.stderr.flush()
    return code


def serve_helper() -> None:
    """The resident helper's process (started by helper_ask.start): it answers with `fast` above,
    the entry `pylon.cli.main.run` gives these command lines (2: a line that is not a hook's)."""
    from pylon.hooks.helper import main

    main(lambda prog, argv: _in_fork(prog, argv))


def _in_fork(prog: str, argv: list[str]) -> int:
    sys.argv = [prog, *argv]  # what a lock held by this fork says it is (pylon/locks.py)
    answered = fast(prog, argv)
    return 2 if answered is None else answered


def hook_claude_code(args: HookArgs) -> int:
    return run_hook("claude-code", root=args.root, mounts=list(args.mount))


def hook_codex(args: HookArgs) -> int:
    return run_hook("codex", root=args.root, mounts=list(args.mount))


def install(args: InstallArgs) -> int:
    """`pylon hook install AGENT`: every part (guard, canon, worktrees) as one handler per event."""
    return install_parts(args, ("guard", "canon", "ws"), remove=False, what="pylon's hooks")


def uninstall(args: InstallArgs) -> int:
    return install_parts(args, ("guard", "canon", "ws"), remove=True, what="pylon's hooks")


def install_parts(
    args: InstallArgs,
    parts: tuple[str, ...],
    *,
    remove: bool,
    what: str = "pylon's hooks",
    has: str = "has pylon's hooks",
    lacks: str = "has none of pylon's hooks",
    root: str | None = None,
) -> int:
    """Install (or remove) `parts` in the settings file of args.agent and scope, saying so in the
    words given (`what` installed, `has`/`lacks` when nothing changed). Shared by `pylon hook
    install|uninstall` and `pylon guard install|uninstall`; warns when pylon would run twice."""
    from pylon.agents.settings import apply, settings_path
    from pylon.cli import output
    from pylon.errors import UsageError
    from pylon.hooks.install import plan, program_for

    command = "pylon guard install" if parts == ("guard",) else "pylon hook install"
    if args.agent not in AGENTS:
        raise UsageError(
            "unknown-agent",
            f"{args.agent!r} is not an agent pylon installs into (claude-code, codex).",
            f"{command} claude-code",
        )
    if args.project and args.user:
        raise UsageError("usage", "--project and --user exclude each other.", f"{command} --help")
    scope = "user" if args.user else "project"
    if root is None:
        from pylon.findroot import find_root

        root = find_root(os.getcwd())[0] or os.getcwd()
    path = settings_path(args.agent, scope, root)
    the_plan = plan(args.agent, path, parts, install=not remove, program=program_for(scope, sys.argv[0]))
    written = False if args.dry_run else apply(the_plan)
    doubles = [] if remove else twice_note(args.agent, path, root)
    if args.json:
        output.ok_json(
            {
                "agent": args.agent,
                "scope": scope,
                "path": path,
                "changed": the_plan.changed,
                "written": written,
                "dry_run": args.dry_run,
                "added": the_plan.added,
                "removed": the_plan.removed,
                "diff": the_plan.diff(),
                "warnings": doubles,
            }
        )
        return 0
    if args.dry_run:
        output.out(the_plan.diff() or "")
        output.err(
            f"pylon: {path}: "
            + ("would change (dry run; nothing written)" if the_plan.changed else "already as wanted; nothing to do")
        )
    elif written:
        output.err(f"pylon: {'removed ' + what + ' from' if remove else 'installed ' + what + ' in'} {path}")
        if not remove and args.agent == "codex":
            from pylon.hooks.install import CODEX_NOTE

            output.err(f"pylon: {CODEX_NOTE} `pylon doctor` names those Codex does not trust yet.")
    else:
        output.err(f"pylon: {path} already {lacks if remove else has}; nothing changed")
    for line in doubles:
        output.err(f"warning: {line}")
    return 0


def twice_note(agent: str, path: str, root: str) -> list[str]:
    """Warnings for an install that other installs of pylon's hooks double (each event runs twice)."""
    try:
        from pylon.doctor.installs import overlapping, remove_command

        others = overlapping(agent, "", path, root)
    except Exception:  # a warning must never fail the install
        return []
    mine = f"pylon hook uninstall {agent}" + (
        " --user" if not os.path.realpath(path).startswith(os.path.realpath(root) + os.sep) else ""
    )
    return [
        f"{other.where()} runs pylon's hooks too ({', '.join(other.events)}): each of these events would run "
        f"pylon twice (two snapshots, two notes). Keep one: `{mine}` (this install) or `{remove_command(other)}`."
        for other in others
    ]


def run_hook(
    agent: str,
    parts: tuple[str, ...] = ("guard", "canon", "ws"),
    *,
    root: str | None = None,
    mounts: list[str] | None = None,
    quiet: bool = False,
    data: bytes | None = None,
) -> int:
    """Read one event from stdin, answer it for `parts`; `quiet`: print nothing for no answer (the
    guard's old command), else always one JSON line (Codex requires JSON on Stop). WorktreeCreate
    and WorktreeRemove are answered in plain text with an exit status (pylon.hooks.worktrees)."""
    from pylon.agents.jsonio import dumps

    try:
        from pylon.agents.events import read_event
        from pylon.hooks.entry import WS_EVENTS, answer

        if data is not None:
            import io

            event = read_event(agent, io.BytesIO(data))
        else:
            event = read_event(agent)
        if not event.problem:  # the session's last event, for `pylon sessions` (pylon/sessions/marks.py)
            from pylon.hooks.helper_ask import after_answer
            from pylon.sessions.marks import note

            mark = (agent, event.session_id, event.name, time.time())
            if not after_answer(lambda: note(*mark)):
                note(*mark)
        if event.name in WS_EVENTS and "ws" in parts:
            from pylon.hooks.worktrees import run

            return run(event)
        reply = answer(event, parts, root=root, mounts=mounts, on_failure=_log_failure)
        if event.problem and "guard" not in parts:
            sys.stderr.write(f"canon hook {agent}: ignored an event that is {event.problem}\n")
    except Exception as exc:  # pylon itself broken (an import, a bug): never fail open
        _log_failure("guard" if "guard" in parts else "canon", exc)
        reply = {}
        if "guard" in parts:  # the same shape as pylon.hooks.guard.refusal, built without it
            reply = {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny" if agent == "codex" else "ask",
                    "permissionDecisionReason": f"pylon hook failed ({type(exc).__name__}: {str(exc)[:200]}), so the "
                    "command was not checked. Run it only if you know it is safe.",
                }
            }
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
    except Exception:  # logging is best effort here
        return
