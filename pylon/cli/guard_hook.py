"""`pylon guard hook` and `pylon guard install|uninstall`: the agent side of the guard.

The event comes in the agent's own PreToolUse format (pylon.agents.events); the answer goes out
in it (pylon.agents.answers). safe: no output. reversible: snapshot, then no objection, with one
line of context naming `pylon ws restore guard-<n>`. irreversible/unknown: the policy's action.
Codex does not enforce `ask` (it fails open, per its docs), so `ask` is answered there as `deny`
with the reasons and how to go ahead. `allow` never grants more than the agent's own
permission rules: pylon simply does not object.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Protocol

    from pylon.guard.context import Context

    class InstallArgs(Protocol):
        json: bool
        agent: str
        project: bool
        user: bool
        dry_run: bool

SHELL_TOOLS = frozenset({"Bash", "bash", "shell", "exec_command", "local_shell"})
HOOK_TIMEOUT = 30


def context(cwd: str | None = None) -> Context:
    """Where the command runs: the folder, the checkout around it (found by its .git, without
    running git: the hook runs before every shell command), the current branch."""
    from pylon.guard.context import Context
    from pylon.workspace.guard_probe import probe
    from pylon.workspace.guard_snapshot import find_root

    here = os.path.abspath(cwd or os.getcwd())
    root, branch = find_root(here)
    return Context(here, root, branch=branch, probe=probe if root else None)


def answer(agent: str, data: bytes) -> dict[str, Any]:
    """The reply to one hook event ({} for no output)."""
    from pylon.agents import answers
    from pylon.agents.events import parse_event

    event = parse_event(agent, data)
    command = event.tool_input.get("command")
    missing = _missing(event, command)
    if missing:  # never silence: the agent would run a command nobody checked
        return refusal(agent, f"pylon guard: the hook event {missing}, so the command was not checked. Check the "
                       "hook's input (pylon guard check --tool-input EVENT) before running it.")
    if event.name != "PreToolUse" or event.tool_name not in SHELL_TOOLS:
        return {}
    if isinstance(command, list) and all(isinstance(w, str) for w in command):
        import shlex

        command = shlex.join(command)
    if not isinstance(command, str) or not command.strip():
        return {}
    from pylon.guard.classify import classify
    from pylon.guard.policy import Policy, load

    cwd = event.cwd if event.cwd and os.path.isdir(event.cwd) else None
    ctx = context(cwd)
    result = classify(command, ctx)
    if result.verdict == "safe":
        return {}
    problem = ""
    try:
        policy = load(ctx.root)
    except Exception as exc:  # noqa: BLE001 - a broken policy falls back to the defaults, and says so
        policy, problem = Policy(), f" (policy ignored: {getattr(exc, 'message', exc)})"
    action, _why = policy.decide(result.findings)
    reasons = "; ".join(f.reason for f in result.findings if f.verdict != "safe")[:1500]
    if action == "snapshot":
        note, action = _snapshot(result, policy, ctx.root, command)
        if action == "snapshot":
            return answers.context(event, note + problem)
        reasons = f"{note}; {reasons}"
    if action == "allow":
        return {}
    text = f"pylon guard: {result.verdict}: {reasons}{problem}"
    if action == "ask" and agent != "codex":
        return answers.ask(event, text)
    if action == "ask":
        text += (". Ask the user; to let such commands through, add a rule to .pylon/guard.toml "
                 "(`pylon guard explain`).")
    return answers.deny(event, text)


def _missing(event: Any, command: object) -> str:
    """What a PreToolUse event lacks for the guard to judge it ("" when nothing is missing)."""
    if event.problem:
        return f"could not be read ({event.problem})"
    if not event.name:
        return "has no hook_event_name"
    if event.name != "PreToolUse":
        return ""
    if not event.tool_name:
        return "has no tool_name"
    if event.tool_name in SHELL_TOOLS:
        if not isinstance(event.raw.get("tool_input"), dict):
            return "has no tool_input object"
        if not (isinstance(command, str) or (isinstance(command, list) and all(isinstance(w, str) for w in command))):
            return "has no command string in its tool_input"
    return ""


def refusal(agent: str, reason: str) -> dict[str, Any]:
    """A PreToolUse refusal in the agent's format: ask in Claude Code (the user decides), deny in
    Codex (which does not enforce ask). Used when the guard could not judge the command at all."""
    decision = "deny" if agent == "codex" else "ask"
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision,
                                   "permissionDecisionReason": reason}}


def _snapshot(result: Any, policy: Any, root: str | None, command: str) -> tuple[str, str]:
    """(note, action): "snapshot" when it was taken, else the policy's answer and why not."""
    from pylon.errors import PylonError
    from pylon.workspace.guard_snapshot import take
    from pylon.workspace.repo import locate

    reasons = "; ".join(f.reason for f in result.findings if f.verdict == "reversible")
    try:
        snap = take(locate(root), result.targets, command=command, max_bytes=policy.max_bytes[0])
    except PylonError as exc:
        action = policy.over_limit[0] if exc.code == "guard-snapshot-too-large" else "ask"
        return f"no snapshot was taken ({exc.message})", action
    except Exception as exc:  # noqa: BLE001 - without a snapshot the command must not pass silently
        return f"no snapshot was taken ({type(exc).__name__}: {exc})", "ask"
    name = snap["name"]
    note = (f"pylon guard: snapshot {name} taken before this command ({reasons[:600]}); "
            f"undo it with `pylon ws restore {name}`")
    return note + _as_op(root, snap, result.targets, command), "snapshot"


def _as_op(root: str | None, snap: Any, targets: Any, command: str) -> str:
    """The snapshot recorded as an op of the log (`ws undo` brings back what the command destroyed),
    and the note's words for it; nothing when the log cannot take it now."""
    import shlex

    from pylon.workspace.guard_op import destroyed, record
    from pylon.workspace.repo import locate

    checkout = locate(root)
    paths = destroyed(checkout, targets)
    seq = record(checkout, snap, paths, command)
    if seq is None:
        return ""
    shown = " ".join(shlex.quote(p) for p in paths[:10]) + (" ..." if len(paths) > 10 else "")
    return (f"; only what it destroys: `pylon ws restore {snap['name']} {shown}`; or `pylon ws undo` (op {seq}) "
            "brings back the files gone there and keeps every other change")


def install_hook(args: InstallArgs, *, remove: bool) -> int:
    import shlex

    from pylon.agents.settings import HookEntry, apply, plan_install, plan_uninstall, settings_path
    from pylon.cli import output
    from pylon.errors import UsageError

    if args.agent not in ("claude-code", "codex"):
        raise UsageError("unknown-agent", f"{args.agent!r} is not an agent pylon guard installs into "
                         "(claude-code, codex).", "pylon guard install claude-code")
    if args.project and args.user:
        raise UsageError("usage", "--project and --user exclude each other.", "pylon guard install --help")
    scope = "user" if args.user else "project"
    root = context().root or os.getcwd()
    path = settings_path(args.agent, scope, root)
    owns = _owns(args.agent)
    if remove:
        plan = plan_uninstall(path, owns)
    else:
        program = "pylon"
        here = os.path.abspath(sys.argv[0])
        if scope == "user" and os.path.basename(here) == "pylon" and os.access(here, os.X_OK):
            program = shlex.quote(here)  # a user's settings name this executable: any PATH works
        entry = HookEntry("PreToolUse", f"{program} guard hook {args.agent}", matcher="Bash", timeout=HOOK_TIMEOUT)
        plan = plan_install(path, [entry], owns)
    written = False if args.dry_run else apply(plan)
    if args.json:
        output.ok_json({"agent": args.agent, "scope": scope, "path": path, "changed": plan.changed,
                        "written": written, "dry_run": args.dry_run, "added": plan.added, "removed": plan.removed,
                        "diff": plan.diff()})
        return 0
    if args.dry_run:
        output.out(plan.diff() or "")
        output.err(f"pylon: {path}: " + ("would change (dry run; nothing written)" if plan.changed
                                         else "already as wanted; nothing to do"))
    elif written:
        output.err(f"pylon: {'removed the guard hook from' if remove else 'installed the guard hook in'} {path}")
    else:
        output.err(f"pylon: {path} already {'has no guard hook' if remove else 'has the guard hook'}; nothing changed")
    return 0


def _owns(agent: str) -> Callable[[str], bool]:
    """Our handlers: a command ending in `guard hook <agent>` (whatever path names pylon)."""
    def owns(command: str) -> bool:
        words = command.split()
        return len(words) >= 3 and words[-3:] == ["guard", "hook", agent] and (
            len(words) == 3 or os.path.basename(words[-4].strip("'\"")) == "pylon")
    return owns
