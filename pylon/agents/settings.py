"""Merging hook entries into an agent's settings file, and taking them out again.

Claude Code reads hooks from `.claude/settings.json` (project) or `~/.claude/settings.json`
(user); Codex from `.codex/hooks.json` or `~/.codex/hooks.json`. Both use one shape:

    {"hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command",
                                                                    "command": "...", "timeout": 10}]}]}}

Only handlers the caller owns are added, replaced or removed; every other key, event, group and
handler stays as it was, in order. The file is rewritten as 2-space-indented JSON (these files
are plain JSON, which both agents rewrite themselves the same way).
"""

from __future__ import annotations

import json
import os

from pylon.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

_FILES = {"claude-code": (".claude", "settings.json"), "codex": (".codex", "hooks.json")}
_HOMES = {"claude-code": "CLAUDE_CONFIG_DIR", "codex": "CODEX_HOME"}
SCOPES = ("project", "user")


class HookEntry:
    """One command the agent runs for `event` (tool events: when the tool name matches `matcher`)."""

    __slots__ = ("event", "command", "matcher", "timeout")

    def __init__(self, event: str, command: str, matcher: str | None = None, timeout: int | None = None) -> None:
        self.event, self.command, self.matcher, self.timeout = event, command, matcher, timeout

    def handler(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "command", "command": self.command}
        if self.timeout is not None:
            out["timeout"] = self.timeout
        return out


def settings_path(agent: str, scope: str, project_root: str) -> str:
    """The settings file of `agent` for `scope` ("project" or "user")."""
    if agent not in _FILES:
        raise UsageError(
            "unknown-agent",
            f"{agent!r} is not an agent pylon knows (claude-code, codex).",
            "canon hook install claude-code",
        )
    folder, name = _FILES[agent]
    if scope == "project":
        return os.path.join(project_root, folder, name)
    if scope != "user":
        raise UsageError("usage", f"scope {scope!r} is neither project nor user.", "canon hook install --help")
    home = os.environ.get(_HOMES[agent])
    base = os.path.expanduser(home) if home else os.path.join(os.path.expanduser("~"), folder)
    return os.path.join(os.path.abspath(base), name)


class Plan:
    """A settings file before and after one install or uninstall (nothing written yet)."""

    __slots__ = ("path", "before", "after", "added", "removed", "_entries", "_owns", "_install", "_positional")

    def __init__(self, path: str, before: str | None, after: str, added: int, removed: int) -> None:
        self.path, self.before, self.after, self.added, self.removed = path, before, after, added, removed
        self._entries: Sequence[HookEntry] = ()
        self._owns: Callable[[str, str], bool] = _never
        self._install = True
        self._positional = False

    @property
    def changed(self) -> bool:
        return self.after != (self.before if self.before is not None else "")

    def diff(self) -> str:
        """A unified diff of the change ("" when nothing changes)."""
        if not self.changed:
            return ""
        import difflib

        old = (self.before or "").splitlines(keepends=True)
        new = self.after.splitlines(keepends=True)
        label = self.path
        return "".join(
            difflib.unified_diff(
                old,
                new,
                fromfile="a/" + label.lstrip("/") if self.before is not None else "/dev/null",
                tofile="b/" + label.lstrip("/"),
            )
        )


def _never(event: str, command: str) -> bool:
    return False


def _load(path: str) -> tuple[str | None, dict[str, Any]]:
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        return None, {}
    except (OSError, UnicodeDecodeError) as exc:
        raise _invalid(path, f"cannot be read ({exc.__class__.__name__}: {exc})") from None
    if not text.strip():
        return text, {}
    try:
        data = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
    except _Refused as exc:
        raise _invalid(path, str(exc)) from None
    except (ValueError, RecursionError) as exc:
        raise _invalid(path, f"is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise _invalid(path, "is not a JSON object")
    if "hooks" in data and not isinstance(data["hooks"], dict):
        raise _invalid(path, f'has a "hooks" value that is not an object ({json.dumps(data["hooks"])[:40]})')
    for event, groups in data.get("hooks", {}).items():
        if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
            raise _invalid(path, f"has hooks.{event} that is not a list of matcher groups")
        for group in groups:
            handlers = group.get("hooks", [])
            if not isinstance(handlers, list) or not all(isinstance(h, dict) for h in handlers):
                raise _invalid(path, f'has a hooks.{event} group whose "hooks" is not a list of handlers')
            if "matcher" in group and not isinstance(group["matcher"], str):
                raise _invalid(path, f'has a hooks.{event} group whose "matcher" is not a string')
    return text, data


class _Refused(ValueError):
    """JSON that Python reads but the agents' own parsers do not (NaN, Infinity, repeated keys)."""


def _no_constant(name: str) -> object:
    raise _Refused(f"holds {name}, which is not JSON (the agent's parser rejects it)")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Refused(f"repeats the key {json.dumps(key)} in one object (which value counts is unclear)")
        out[key] = value
    return out


def _invalid(path: str, why: str) -> UsageError:
    return UsageError(
        "agent-settings-invalid",
        f"{path} {why}; it was left untouched.",
        f"Fix or move the file, then run the same command again (inspect: cat {path}).",
    )


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"  # strict JSON only


_EMPTIED = "_pylon_emptied"  # a transient mark on groups whose handlers were all removed here


def _remove_owned(data: dict[str, Any], owns: Callable[[str, str], bool], keep: Sequence[object] = ()) -> int:
    """Take the owned handlers (except those in `keep`) out of their groups; the count removed."""
    removed = 0
    for event, groups in (data.get("hooks") or {}).items():
        for group in groups:
            handlers = group.get("hooks", [])
            kept = [h for h in handlers if any(h is k for k in keep) or not _owned(owns, event, h)]
            if len(kept) != len(handlers):
                removed += len(handlers) - len(kept)
                group["hooks"] = kept
                if not kept:
                    group.pop("matcher", None)  # a place holder matches nothing
                    group[_EMPTIED] = True
    return removed


def _drop_emptied(data: dict[str, Any], positional: bool) -> None:
    """Groups emptied here: dropped; or, `positional` (Codex keys a hook's trust by its event,
    group and handler index), kept as empty place holders while a group follows them, so the
    groups after them keep their place and their trust."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return
    emptied = False
    for event in list(hooks):
        groups = hooks[event]
        out = [g for g in groups if positional or not g.get(_EMPTIED)]
        while out and out[-1].get(_EMPTIED):
            out.pop()
        emptied = emptied or any(g.get(_EMPTIED) for g in groups)
        for group in out:
            group.pop(_EMPTIED, None)
        if out or not groups:
            hooks[event] = out
        else:
            del hooks[event]
    if emptied and not hooks:
        del data["hooks"]


def _strip(data: dict[str, Any], owns: Callable[[str, str], bool], positional: bool = False) -> int:
    """Remove owned handlers (and the groups/events that only held them); the count removed."""
    removed = _remove_owned(data, owns)
    _drop_emptied(data, positional)
    return removed


def _owned(owns: Callable[[str, str], bool], event: str, handler: object) -> bool:
    return isinstance(handler, dict) and isinstance(handler.get("command"), str) and owns(event, handler["command"])


def _merge(
    data: dict[str, Any], entries: Sequence[HookEntry], owns: Callable[[str, str], bool], positional: bool
) -> tuple[int, int]:
    """Put each entry where an owned handler of its event already is (in place: same group, same
    index), else (positional) where an uninstall left an empty place holder, else in a new group
    at the end; then remove every other owned handler. Returns (added, removed)."""
    hooks = data.setdefault("hooks", {})
    added = removed = 0
    placed: list[object] = []
    for entry in entries:
        groups = hooks.setdefault(entry.event, [])
        spot = next(
            (
                (group, i)
                for group in groups
                for i, h in enumerate(group.get("hooks", []))
                if _owned(owns, entry.event, h) and not any(h is p for p in placed)
            ),
            None,
        )
        new = entry.handler()
        if spot is not None:
            group, i = spot
            if group["hooks"][i] == new:
                new = group["hooks"][i]
            else:
                group["hooks"][i] = new
                added, removed = added + 1, removed + 1
            if all(_owned(owns, entry.event, h) for h in group["hooks"]):  # a group of ours alone
                if entry.matcher is None:
                    group.pop("matcher", None)
                else:
                    group["matcher"] = entry.matcher
        else:
            hole = next((g for g in groups if g.get("hooks") == [] and set(g) <= {"hooks", "matcher"}), None)
            group = hole if positional and hole is not None else {}
            if group is not hole:
                groups.append(group)
            group.clear()
            if entry.matcher is not None:
                group["matcher"] = entry.matcher
            group["hooks"] = [new]
            added += 1
        placed.append(new)
    removed += _remove_owned(data, owns, placed)
    _drop_emptied(data, positional)
    return added, removed


def _plan(
    path: str, entries: Sequence[HookEntry], owns: Callable[[str, str], bool], install: bool, positional: bool = False
) -> Plan:
    before, data = _load(path)
    original = json.loads(json.dumps(data))
    if install:
        added, removed = _merge(data, entries, owns, positional)
    else:
        added, removed = 0, _strip(data, owns, positional)
    if data == original:  # keep the text byte for byte
        plan = Plan(path, before, before if before is not None else "", 0, 0)
    else:
        plan = Plan(path, before, _dump(data), added, removed)
    plan._entries, plan._owns, plan._install, plan._positional = tuple(entries), owns, install, positional
    return plan


def _writable(path: str) -> None:
    """Refuse a settings file (or its folder) that is read-only: its owner made it so."""
    if os.path.lexists(path) and (not os.access(path, os.W_OK) or not os.stat(path).st_mode & 0o222):
        raise UsageError(
            "agent-settings-read-only",
            f"{path} is read-only; it was left untouched.",
            f"Make it writable (chmod u+w {path}) or edit it by hand, then run the same command again.",
        )
    folder = os.path.dirname(path)
    while folder and not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    if folder and (not os.access(folder, os.W_OK) or not os.stat(folder).st_mode & 0o222):
        raise UsageError(
            "agent-settings-read-only",
            f"{folder} is read-only, so {path} cannot be written; nothing was changed.",
            f"Make {folder} writable, then run the same command again.",
        )


def read_handlers(path: str) -> list[tuple[str, str]]:
    """(event, command) of every command handler in the file, in order ([] when it is absent);
    an invalid file is `agent-settings-invalid`, as for an install."""
    data = _load(path)[1]
    return [
        (event, h["command"])
        for event, groups in (data.get("hooks") or {}).items()
        for group in groups
        for h in group.get("hooks", [])
        if isinstance(h, dict) and isinstance(h.get("command"), str)
    ]


def plan_install(
    path: str,
    entries: Sequence[HookEntry],
    owns: Callable[[str], bool] | None = None,
    *,
    owned: Callable[[str, str], bool] | None = None,
    positional: bool = False,
) -> Plan:
    """The file after adding `entries`, in place of every handler `owns(command)` (or
    `owned(event, command)`) accepts (default: the same commands). `positional`: the agent keys
    trust by position (Codex), so emptied groups stay as place holders (see _drop_emptied)."""
    commands = {entry.command for entry in entries}
    test = owned or _by_command(owns or commands.__contains__)
    return _plan(path, entries, test, True, positional)


def plan_uninstall(
    path: str,
    owns: Callable[[str], bool] | None = None,
    *,
    owned: Callable[[str, str], bool] | None = None,
    positional: bool = False,
) -> Plan:
    """The file without the handlers `owns(command)` (or `owned(event, command)`) accepts."""
    return _plan(path, (), owned or _by_command(owns or (lambda command: False)), False, positional)


def _by_command(owns: Callable[[str], bool]) -> Callable[[str, str], bool]:
    return lambda event, command: owns(command)


def apply(plan: Plan) -> bool:
    """Write the plan atomically, re-planned under a lock against the file as it is now."""
    if not plan.changed:
        return False
    import hashlib

    from pylon.atomic import atomic_write
    from pylon.locks import file_lock
    from pylon.state import state_home

    key = hashlib.sha256(os.path.realpath(plan.path).encode()).hexdigest()[:20]
    with file_lock(os.path.join(state_home(), "locks", f"agent-settings-{key}.lock"), what=plan.path):
        fresh = _plan(plan.path, plan._entries, plan._owns, plan._install, plan._positional)
        if not fresh.changed:
            return False
        _writable(plan.path)
        os.makedirs(os.path.dirname(plan.path), exist_ok=True)
        atomic_write(plan.path, fresh.after.encode("utf-8"))
    return True
