"""The one hook entry per event in an agent's settings file, whichever pylon parts are installed.

`pylon guard install` and `canon hook install` both write the same command, `pylon hook AGENT`,
each on its own events (entry.py routes by event): the guard on PreToolUse (the shell tool and
the file tools), canon on SessionStart, PostToolBatch (Claude Code) or PostToolUse (Codex), and
Stop. Installing or removing one part re-plans the whole set: the parts found in the file (in
today's form or an older one: `pylon guard hook AGENT`, `canon hook AGENT`) plus or minus the
one asked for. Each handler is rewritten where it stands (same event, group and index), so an
older install is migrated in place, a second install changes no byte, and removing one part
keeps the other. For Codex, which keys a hook's trust by its position in hooks.json, nothing of
the user's moves: pylon's handler is replaced in place, and a group that held only pylon's
handler stays as an empty place holder while the user's groups follow it (settings.py).
"""

from __future__ import annotations

import os
import re

from pylon.hooks.entry import CANON, GUARD, GUARD_EVENTS, PARTS, WS, WS_EVENTS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from pylon.agents.settings import HookEntry, Plan

GUARD_TIMEOUT = 30
WS_TIMEOUT = 600  # WorktreeCreate makes a worktree (a checkout, copies of ignored files): minutes on a large tree
CODEX_NOTE = (
    "Codex runs project hooks only once the project is trusted, and each new or changed hook only "
    "after you approve it in /hooks (then start a new session)."
)
# The tools whose PreToolUse the guard answers: the shell, and the agent's own file tools; and the
# tool whose PostToolUse records the op of what a command changed (the shell).
GUARD_MATCHERS = {"claude-code": "Bash|Write|Edit|MultiEdit|NotebookEdit", "codex": "Bash|apply_patch"}
AFTER_MATCHER = "Bash"
SHARED = "shared"  # a handler two parts use (Codex's PostToolUse): pylon's, but naming neither part
AFTER_TIMEOUT = 10  # the op is recorded by a child the hook leaves running: the hook answers at once


def command_for(agent: str, program: str = "pylon") -> str:
    return f"{program} hook {agent}"


def program_for(scope: str, argv0: str) -> str:
    """What the settings name to run pylon: `pylon` on PATH for a project (its settings are shared
    through git); for a user's settings, this very executable (or the `pylon` beside a `canon`
    script), so the hook works whatever PATH the agent starts with."""
    import shlex

    if scope != "user":
        return "pylon"
    here = os.path.abspath(argv0)
    for candidate in (here, os.path.join(os.path.dirname(here), "pylon")):
        if os.path.basename(candidate) == "pylon" and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return shlex.quote(candidate)
    return "pylon"


def entries(agent: str, part: str, command: str) -> list[HookEntry]:
    from pylon.agents.settings import HookEntry

    if part == GUARD:
        before = HookEntry("PreToolUse", command, matcher=GUARD_MATCHERS[agent], timeout=GUARD_TIMEOUT)
        if agent == "claude-code":  # the op at the agent's next command or the batch's end (hooks/keep.py)
            return [before, HookEntry("PostToolBatch", command, timeout=AFTER_TIMEOUT)]
        return [before, HookEntry("PostToolUse", command, matcher=AFTER_MATCHER, timeout=AFTER_TIMEOUT)]
    if part == WS:  # Codex has no worktree events: its worktrees are its own (docs/explanation/agents.md)
        return [HookEntry(e, command, timeout=WS_TIMEOUT) for e in sorted(WS_EVENTS)] if agent == "claude-code" else []
    from pylon.canon.agent.hook import hook_entries

    return hook_entries(agent, command)


def merged(wanted: list[HookEntry]) -> list[HookEntry]:
    """One handler per event: two parts on one event (Codex's PostToolUse: the guard's op, canon's
    capsules) share it, for every tool either part matches (none named: every tool)."""
    from pylon.agents.settings import HookEntry

    by_event: dict[str, list[HookEntry]] = {}
    for entry in wanted:
        by_event.setdefault(entry.event, []).append(entry)
    out = []
    for event, group in by_event.items():
        if len(group) == 1:
            out.append(group[0])
            continue
        names = [m for e in group for m in (e.matcher or "").split("|") if m]
        matcher = None if any(e.matcher is None for e in group) else "|".join(dict.fromkeys(names))
        timeouts = [e.timeout for e in group if e.timeout is not None]
        out.append(HookEntry(event, group[0].command, matcher=matcher, timeout=max(timeouts) if timeouts else None))
    return out


def part_of(agent: str) -> Callable[[str, str], str | None]:
    """(event, command) -> the part a settings handler is pylon's hook for (None: not pylon's):
    `pylon hook AGENT` (the part its event belongs to), `pylon guard hook AGENT` (guard),
    `canon hook AGENT` or `pylon canon hook AGENT` with any options (canon); any path to pylon."""
    name = re.escape(agent)
    prog = r"(?:^|[\s/'\"])pylon['\"]?\s+"
    new = re.compile(prog + r"hook\s+" + name + r"\s*$")
    guard = re.compile(prog + r"guard\s+hook\s+" + name + r"\s*$")
    canon = re.compile(r"(?:^|[\s/'\"])canon['\"]?\s+hook\s+" + name + r"(?:\s|$)")

    def which(event: str, command: str) -> str | None:
        if new.search(command):
            if event == "PostToolUse":  # the guard's op in both agents, and canon's capsules in Codex
                return SHARED if agent == "codex" else GUARD
            if event == "PostToolBatch":  # Claude Code: the guard's op and canon's capsules
                return SHARED
            return GUARD if event in GUARD_EVENTS else WS if event in WS_EVENTS else CANON
        if guard.search(command):
            return GUARD
        if canon.search(command):
            return CANON
        return None

    return which


def installed(agent: str, path: str) -> set[str]:
    """The parts whose hook the settings file holds now (in any form; an event two parts share
    tells neither)."""
    from pylon.agents.settings import read_handlers

    which = part_of(agent)
    return {p for event, command in read_handlers(path) if (p := which(event, command)) in PARTS}


def plan(agent: str, path: str, part: str | tuple[str, ...], *, install: bool, program: str = "pylon") -> Plan:
    """The settings file after installing (or removing) `part` (or several: `pylon hook install`
    installs them all), every pylon handler in it rewritten to the one entry per event."""
    from pylon.agents.settings import plan_install, plan_uninstall

    have = installed(agent, path)
    asked = {part} if isinstance(part, str) else set(part)
    wanted = (have | asked) if install else (have - asked)
    which = part_of(agent)

    def owned(event: str, command: str) -> bool:
        return which(event, command) is not None

    positional = agent == "codex"
    command = command_for(agent, program)
    wanted_entries = merged([e for p in PARTS if p in wanted for e in entries(agent, p, command)])
    if not wanted_entries:
        return plan_uninstall(path, owned=owned, positional=positional)
    return plan_install(path, wanted_entries, owned=owned, positional=positional)
