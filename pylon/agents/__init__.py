"""Coding-agent hooks, shared by every pylon part that plugs into an agent (canon, guard).

Claude Code and Codex run a command on lifecycle events, hand it one JSON event on stdin and
read one JSON answer from stdout. This package holds everything agent-specific, so a part only
decides *what* to say. It imports no pylon.cli, typer or rich, and on the hook's path not even json or re.

API (stable; import the submodules directly, this file imports nothing):

``pylon.agents.events``
    ``AGENTS = ("claude-code", "codex")``
    ``read_event(agent, stream=None) -> HookEvent``: one event from stdin (bytes). Never raises:
    empty, non-JSON or non-object input gives an event with ``name == ""`` and ``problem`` set.
    ``parse_event(agent, data: bytes | str) -> HookEvent``: the same from bytes or text.
    ``HookEvent`` fields: ``agent``, ``name`` (``hook_event_name`` as sent: ``SessionStart``,
    ``PreToolUse``, ``PostToolUse``, ``PostToolBatch``, ``Stop``, ...), ``session_id``, ``cwd``,
    ``tool_name``, ``tool_input`` (a dict; ``{}`` when absent or not an object), ``calls`` (a
    list of ``ToolCall(name, input)``: the one call of a tool event, every call of a batch),
    ``source`` (SessionStart: startup/resume/clear/compact), ``stop_hook_active``, ``raw`` (the
    whole decoded object), ``problem`` (why the input was not understood, else None).
    ``patch_paths(text) -> list[str]``: the files an ``apply_patch`` envelope names (Codex edits
    files through it: ``*** Add File:``, ``*** Update File:``, ``*** Delete File:``,
    ``*** Move to:``).

``pylon.agents.answers``
    Builders of the JSON an agent reads back; each returns a plain dict, ``{}`` is a no-op.
    ``noop()``, ``context(event, text)`` (additionalContext for SessionStart, UserPromptSubmit,
    PostToolUse, PostToolBatch, PreToolUse), ``allow(event, reason)``, ``deny(event, reason)``,
    ``ask(event, reason)`` (PreToolUse ``permissionDecision``), ``block_stop(event, reason)``
    (Stop: keep working, with ``reason`` as the next instruction), ``message(text)`` (a line
    shown to the user, ``systemMessage``). ``emit(answer, stream=None)`` writes one answer as
    JSON with a newline (an answer is always written: Codex requires JSON on Stop).

``pylon.agents.settings``
    ``HookEntry(event, command, matcher=None, timeout=None)``: one command for one event.
    ``settings_path(agent, scope, project_root) -> str``: ``.claude/settings.json`` /
    ``.codex/hooks.json`` in the project (scope ``project``) or the user's folder (``user``:
    ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``; ``$CODEX_HOME`` or ``~/.codex``).
    ``plan_install(path, entries, owns=None) -> Plan`` / ``plan_uninstall(path, owns) -> Plan``:
    the file's text before and after, computed without writing. ``owns(command) -> bool`` names
    the handlers that belong to the caller (default: exactly the entries' commands); install
    replaces those, so re-running it with a new command line upgrades in place, and a second
    identical run changes nothing. Everything else in the file is kept as it was.
    ``Plan``: ``path``, ``before`` (text or None when absent), ``after``, ``changed``,
    ``added``/``removed`` (counts of handlers), ``diff()`` (unified diff text).
    ``apply(plan) -> bool``: writes atomically under a lock, re-planning against the file as it
    is at that moment; False when nothing had to change. Invalid JSON or a file whose shape is
    not ``{"hooks": {EVENT: [{"matcher"?, "hooks": [...]}]}}`` is ``agent-settings-invalid``
    (exit 2) and is never rewritten.

``pylon.agents.jsonio``
    ``loads(data)`` / ``dumps(obj)``: what ``json.loads(data)`` and ``json.dumps(obj,
    ensure_ascii=False)`` give, through the C ``_json`` alone (``import json`` loads ``re``: as
    much as the interpreter's start). Anything unusual is handed to json itself.

Formats (cited in docs/reference/agents.md): https://code.claude.com/docs/en/hooks and
https://developers.openai.com/codex/hooks.
"""
