"""`canon hook claude-code|codex`: one agent event in, that agent's answer out.

SessionStart: says nothing by default (pi-canon measured a greeting as harmful; `[surfacing]
greeting = true` in `.canon/config.toml` turns the orientation lines on); starts a new surfacing
cycle unless the session is resumed; for Claude Code, persists PYLON_SESSION through
`$CLAUDE_ENV_FILE`, so `canon read`/`write` in its shell mark this session.
PostToolBatch (Claude Code: one packet per parallel batch) / PostToolUse (Codex: after each tool
result): the paths of the calls, whatever the tool (MCP tools too), are surfaced; file-writing
tools and writing shell shapes arm the reminder; `canon read`/`canon write` run through the shell
mark the article. A call that names no path still delivers what an earlier packet left waiting.
Stop: the settle reminder, as a request to continue, only when articles need updating and never
twice for the same set. Anything else, or anything unexpected, is a no-op: a hook never blocks.
"""

from __future__ import annotations

import os

from pylon.agents import answers
from pylon.errors import PylonError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pylon.agents.events import HookEvent
    from pylon.canon.store import Project

HOOK_TIMEOUT = 10  # seconds the agent waits for the hook; a normal event takes ~50 ms
# The event that surfaces: Claude Code's PostToolBatch fires once per parallel batch of calls, so a
# batch gets one packet; Codex has no batch event and surfaces after each tool result. Neither
# has a matcher: every tool that names a path surfaces, MCP tools included.
AFTER_TOOLS = {"claude-code": "PostToolBatch", "codex": "PostToolUse"}


def hook_entries(agent: str, command: str) -> list[Any]:
    """The settings entries `canon hook install` merges for `agent`, all running `command`."""
    from pylon.agents.settings import HookEntry

    return [
        HookEntry("SessionStart", command, timeout=HOOK_TIMEOUT),
        HookEntry(AFTER_TOOLS.get(agent, "PostToolUse"), command, timeout=HOOK_TIMEOUT),
        HookEntry("Stop", command, timeout=HOOK_TIMEOUT),
    ]


def owns(agent: str) -> Any:
    """Which settings handlers are canon's hook for `agent` (any path to canon, any options)."""
    import re

    pattern = re.compile(r"(?:^|[\s/'\"])canon['\"]?\s+hook\s+" + re.escape(agent) + r"(?:\s|$)")
    return lambda command: bool(pattern.search(command))


def session_of(event: HookEvent) -> str:
    if event.session_id:
        return event.session_id
    from pylon.canon.agent.session import current_session

    return current_session()


def answer(event: HookEvent, root: str | None = None, mounts: list[str] | None = None) -> dict[str, Any]:
    """The answer to one event (a no-op when there is nothing to say or anything goes wrong)."""
    if event.problem or not event.name:
        return answers.noop()
    from pylon.canon.store import open_project

    cwd = event.cwd if event.cwd and os.path.isdir(event.cwd) else os.getcwd()
    project = open_project(cwd=cwd, root=root, mounts=mounts)
    if not project.store.exists():
        return answers.noop()
    if event.name == "SessionStart":
        return _session_start(event, project)
    if event.name in ("PostToolUse", "PostToolBatch"):
        return _after_tools(event, project)
    if event.name == "Stop":
        from pylon.canon.agent.surface import settle

        settled = settle(project, session_of(event))
        if settled.items and not settled.repeated:
            return answers.block_stop(event, settled.message + "\nThen finish your reply.")
    return answers.noop()


def orientation(project: Project) -> str:
    from pylon.canon.store import walk_articles

    count = sum(1 for entry in walk_articles(project.store) if entry.is_article)
    return "\n".join(
        [
            (
                f"This project keeps its memory in .canon/ ({count} article{'s' if count != 1 else ''}; "
                "one markdown article per asset, at the asset's path: src/app.py -> .canon/articles/src/app.md)."
            ),
            "- Before changing a file, read what governs it: canon read PATH (the nearest article up the tree).",
            (
                '- After changing files, keep their article current: canon write ADDRESS --capsule "one dense line" '
                "--body-file FILE (current truth, not history)."
            ),
            '- Events (what happened, when, exact numbers) go to the journal: canon journal "..." --subject PATH.',
            (
                "- The capsules of articles governing the files you touch are shown here once until the context is "
                "compacted or cleared; "
                "canon search WORDS finds the rest."
            ),
        ]
    )


def greeting_on(project: Project) -> bool:
    """`[surfacing] greeting = true` in `.canon/config.toml` (default off)."""
    from pylon.canon.store import read_config

    table = read_config(project.store).get("surfacing")
    return isinstance(table, dict) and table.get("greeting") is True


def _session_start(event: HookEvent, project: Project) -> dict[str, Any]:
    from pylon.canon.agent.session import forget_shown, session_key

    session = session_of(event)
    if event.source != "resume":
        # A new surfacing cycle: startup, clear and compact begin a context that holds none of
        # what was shown before; a resumed session still holds it.
        forget_shown(project, session)
    env_file = os.environ.get("CLAUDE_ENV_FILE")
    if event.agent == "claude-code" and env_file and event.session_id and session_key(session) == session:
        try:  # Claude Code sources this file before each Bash command of the session
            with open(env_file, "a", encoding="utf-8") as fh:
                fh.write(f"export PYLON_SESSION={session}\n")
        except OSError:
            pass
    return answers.context(event, orientation(project)) if greeting_on(project) else answers.noop()


def _after_tools(event: HookEvent, project: Project) -> dict[str, Any]:
    from pylon.canon.agent import session as sessions
    from pylon.canon.agent.surface import surface
    from pylon.canon.agent.toolpaths import SHELL_TOOLS, call_paths, canon_verbs

    session = session_of(event)
    cwd = project.cwd_dir
    named: list[str] = []
    changed: list[str] = []
    for call in event.calls:
        command = call.input.get("command")
        text = command if isinstance(command, str) and (call.name in SHELL_TOOLS or call.name == "") else None
        if text is not None and event.session_id:  # the reading the guard's PreToolUse kept, if it did
            from pylon.guard.readout import take

            take(event.session_id, text, cwd)
        got, wrote = call_paths(call, cwd)
        named.extend(got)
        changed.extend(wrote)
        if text is not None:
            # `canon read X` in the text marks X seen (it is only about what to surface). A
            # `canon write X` in the text settles nothing: `true || canon write X` never ran, and a
            # failed write changed nothing. Updates are judged by the article file (settle).
            for verb, address in canon_verbs(text, cwd):
                if verb == "read":
                    _mark_read(project, address, session, sessions)
    if not changed and _nothing_new(project, named, session, sessions):
        return answers.noop()  # nothing to stage, nothing waiting from an earlier packet: no lock, no write
    result = surface(project, named, changed, session)
    return answers.context(event, result.message)


def _nothing_new(project: Project, named: list[str], session: str, sessions: Any) -> bool:
    """Whether surfacing `named` (no changed paths) would leave the session state as it is and say
    nothing: nothing waiting, and every article governing them already shown. Read without the
    session's lock (the common case after a shell call, so it skips the lock, the article module and
    the state's rewrite); a packet another hook stages meanwhile is that hook's to deliver."""
    state = sessions.load(project.root_dir, session)
    if state["pending"]:
        return False
    if not named:
        return True
    from pylon.canon.agent.surface import classify

    shown = state["shown"]
    for _path, kind, address in classify(project, named):
        if kind == "skip" or address is None or shown.get(address):
            continue
        return False
    return True


def _mark_read(project: Project, arg: str, session: str, sessions: Any) -> None:
    from pylon.canon.address import resolve, to_address

    try:
        governing = resolve(to_address(arg, project), project).governing
    except PylonError:
        return
    if governing is not None and governing.path:
        sessions.mark_seen(project, str(governing), session)
