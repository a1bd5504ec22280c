"""Handlers of the agent-facing canon commands: surface, settle, hook, hook install/uninstall, watch.

`canon hook claude-code|codex` runs on every tool call of an agent, so it stays small: read one
event, ask the library for the answer, print it. It always exits 0 with valid JSON: a hook that
fails must never block the agent (a problem goes to stderr in one line, which agents only show
in their debug views).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from pylon.agents.settings import Plan

    from pylon.cli.canon import StoreArgs

    class SurfaceArgs(StoreArgs, Protocol):
        paths: list[str]
        changed: bool
        tool_input: str | None

    class SettleArgs(StoreArgs, Protocol):
        pass

    class HookArgs(Protocol):
        root: str | None
        mount: list[str]

    class InstallArgs(Protocol):
        agent: str
        project: bool
        user: bool
        dry_run: bool
        json: bool
        root: str | None
        mount: list[str]

    class WatchArgs(StoreArgs, Protocol):
        timeout: float | None
        debounce: float


def surface(args: SurfaceArgs) -> int:
    from pylon.canon.surface import surface as stage
    from pylon.cli import canon_agent_render as render
    from pylon.cli.canon import project_from

    project = project_from(args)
    paths = list(args.paths)
    changed: list[str] = []
    if args.tool_input is not None:
        if paths:
            from pylon.errors import UsageError

            raise UsageError("usage", "Give PATH... or --tool-input JSON, not both.", "canon surface --help")
        paths, changed = render.tool_input_paths(args.tool_input, project.cwd_dir)
    if args.changed:
        paths, changed = [], list(dict.fromkeys([*changed, *paths]))
    render.surfaced(stage(project, paths, changed), args.json)
    return 0


def settle(args: SettleArgs) -> int:
    from pylon.canon.surface import settle as remind
    from pylon.cli import canon_agent_render as render
    from pylon.cli.canon import project_from

    render.settled(remind(project_from(args)), args.json)
    return 0


def _hook(agent: str, args: HookArgs) -> int:
    from pylon.agents import answers
    from pylon.agents.events import read_event

    event = read_event(agent)
    try:
        from pylon.canon.hook import answer

        reply = answer(event, args.root, list(args.mount))
    except Exception as exc:  # noqa: BLE001 - a hook never blocks the agent, whatever went wrong
        sys.stderr.write(f"canon hook {agent}: {getattr(exc, 'code', type(exc).__name__)}: {exc}\n")
        reply = answers.noop()
    if event.problem:
        sys.stderr.write(f"canon hook {agent}: ignored an event that is {event.problem}\n")
    answers.emit(reply)
    return 0


def hook_claude_code(args: HookArgs) -> int:
    return _hook("claude-code", args)


def hook_codex(args: HookArgs) -> int:
    return _hook("codex", args)


def _plan(args: InstallArgs, install: bool) -> tuple[str, str, Plan]:
    import shlex

    from pylon.agents.settings import plan_install, plan_uninstall, settings_path
    from pylon.canon.hook import hook_entries, owns
    from pylon.canon.store import open_project
    from pylon.errors import UsageError

    if args.agent not in ("claude-code", "codex"):
        raise UsageError("unknown-agent", f"{args.agent!r} is not an agent canon installs into (claude-code, codex).",
                         "canon hook install claude-code")
    if args.project and args.user:
        raise UsageError("usage", "--project and --user exclude each other.", "canon hook install --help")
    scope = "user" if args.user else "project"
    project = open_project(root=args.root, mounts=list(args.mount))
    path = settings_path(args.agent, scope, project.root_dir)
    if not install:
        return path, scope, plan_uninstall(path, owns(args.agent))
    # A project's settings are shared through git: they name `canon` on PATH. A user's settings
    # name this very executable, so the hook works whatever PATH the agent starts with.
    program = "canon"
    if scope == "user":
        here = os.path.abspath(sys.argv[0])
        if os.path.basename(here) == "canon" and os.access(here, os.X_OK):
            program = shlex.quote(here)
        elif os.path.basename(here) == "pylon" and os.access(here, os.X_OK):
            program = shlex.quote(here) + " canon"
    command = f"{program} hook {args.agent}"
    return path, scope, plan_install(path, hook_entries(args.agent, command), owns(args.agent))


def hook_install(args: InstallArgs) -> int:
    from pylon.cli import canon_agent_render as render

    path, scope, plan = _plan(args, True)
    render.installed(plan, scope, args.agent, args.dry_run, True, args.json)
    return 0


def hook_uninstall(args: InstallArgs) -> int:
    from pylon.cli import canon_agent_render as render

    path, scope, plan = _plan(args, False)
    render.installed(plan, scope, args.agent, args.dry_run, False, args.json)
    return 0


def watch(args: WatchArgs) -> int:
    from pylon.canon.watch import watch as run_watch
    from pylon.cli import canon_agent_render as render
    from pylon.cli.canon import project_from

    from pylon.canon.git.journal import committed_entries

    project = project_from(args)
    events = run_watch(project, timeout=args.timeout, debounce=args.debounce, committed=committed_entries)
    return render.watch(events, project, args.json)
