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
    from pylon.cli.canon.core import StoreArgs

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
    from pylon.canon.agent.surface import surface as stage
    from pylon.cli.canon import agent_render as render
    from pylon.cli.canon.core import project_from

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
    from pylon.canon.agent.surface import settle as remind
    from pylon.cli.canon import agent_render as render
    from pylon.cli.canon.core import project_from

    render.settled(remind(project_from(args)), args.json)
    return 0


def _hook(agent: str, args: HookArgs) -> int:
    from pylon.cli.hook import run_hook

    return run_hook(agent, ("canon",), root=args.root, mounts=list(args.mount))


def hook_claude_code(args: HookArgs) -> int:
    return _hook("claude-code", args)


def hook_codex(args: HookArgs) -> int:
    return _hook("codex", args)


def _plan(args: InstallArgs, install: bool) -> tuple[str, str, Plan]:
    from pylon.agents.settings import settings_path
    from pylon.canon.store import open_project
    from pylon.errors import UsageError
    from pylon.hooks.install import plan, program_for

    if args.agent not in ("claude-code", "codex"):
        raise UsageError(
            "unknown-agent",
            f"{args.agent!r} is not an agent canon installs into (claude-code, codex).",
            "canon hook install claude-code",
        )
    if args.project and args.user:
        raise UsageError("usage", "--project and --user exclude each other.", "canon hook install --help")
    scope = "user" if args.user else "project"
    project = open_project(root=args.root, mounts=list(args.mount))
    path = settings_path(args.agent, scope, project.root_dir)
    return path, scope, plan(args.agent, path, "canon", install=install, program=program_for(scope, sys.argv[0]))


def hook_install(args: InstallArgs) -> int:
    from pylon.cli.canon import agent_render as render

    path, scope, plan = _plan(args, True)
    from pylon.cli.hook import twice_note

    root = os.path.dirname(os.path.dirname(path)) if scope == "project" else os.getcwd()
    render.installed(plan, scope, args.agent, args.dry_run, True, args.json, twice_note(args.agent, path, root))
    return 0


def hook_uninstall(args: InstallArgs) -> int:
    from pylon.cli.canon import agent_render as render

    path, scope, plan = _plan(args, False)
    render.installed(plan, scope, args.agent, args.dry_run, False, args.json)
    return 0


def watch(args: WatchArgs) -> int:
    from pylon.canon.git.journal import committed_entries
    from pylon.canon.lint.watch import watch as run_watch
    from pylon.cli.canon import agent_render as render
    from pylon.cli.canon.core import project_from

    project = project_from(args)
    events = run_watch(project, timeout=args.timeout, debounce=args.debounce, committed=committed_entries)
    return render.watch(events, project, args.json)
