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
        raise UsageError("unknown-agent", f"{agent!r} is not an agent pylon knows (claude-code, codex).",
                         "canon hook install claude-code")
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

    __slots__ = ("path", "before", "after", "added", "removed", "_entries", "_owns", "_install")

    def __init__(self, path: str, before: str | None, after: str, added: int, removed: int) -> None:
        self.path, self.before, self.after, self.added, self.removed = path, before, after, added, removed
        self._entries: Sequence[HookEntry] = ()
        self._owns: Callable[[str], bool] = _never
        self._install = True

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
        return "".join(difflib.unified_diff(old, new, fromfile="a/" + label.lstrip("/") if self.before is not None
                                            else "/dev/null", tofile="b/" + label.lstrip("/")))


def _never(command: str) -> bool:
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
            raise _invalid(path, f'has hooks.{event} that is not a list of matcher groups')
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
    return UsageError("agent-settings-invalid", f"{path} {why}; it was left untouched.",
                      f"Fix or move the file, then run the same command again (inspect: cat {path}).")


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"  # strict JSON only


def _strip(data: dict[str, Any], owns: Callable[[str], bool]) -> int:
    """Remove owned handlers (and the groups/events that only held them); the count removed."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return 0
    removed = 0
    for event in list(hooks):
        groups = hooks[event]
        kept_groups = []
        for group in groups:
            handlers = group.get("hooks", [])
            kept = [h for h in handlers if not (isinstance(h, dict) and isinstance(h.get("command"), str)
                                                and owns(h["command"]))]
            removed += len(handlers) - len(kept)
            if kept or not handlers:
                if len(kept) != len(handlers):
                    group["hooks"] = kept
                kept_groups.append(group)
        if len(kept_groups) != len(groups):
            if kept_groups or not groups:
                hooks[event] = kept_groups
            else:
                del hooks[event]
    if removed and not hooks:
        del data["hooks"]
    return removed


def _plan(path: str, entries: Sequence[HookEntry], owns: Callable[[str], bool], install: bool) -> Plan:
    before, data = _load(path)
    original = json.loads(json.dumps(data))
    removed = _strip(data, owns)
    added = 0
    if install:
        hooks = data.setdefault("hooks", {})
        for entry in entries:
            groups = hooks.setdefault(entry.event, [])
            handlers: list[dict[str, Any]] = []
            group = {"matcher": entry.matcher, "hooks": handlers} if entry.matcher is not None else {"hooks": handlers}
            handlers.append(entry.handler())
            groups.append(group)
            added += 1
    if data == original or (install and _installed(original, entries, owns)):  # keep the text byte for byte
        plan = Plan(path, before, before if before is not None else "", 0, 0)
    else:
        plan = Plan(path, before, _dump(data), added, removed)
    plan._entries, plan._owns, plan._install = tuple(entries), owns, install
    return plan


def _installed(data: dict[str, Any], entries: Sequence[HookEntry], owns: Callable[[str], bool]) -> bool:
    """True when the file already holds exactly these entries and no other owned handler.

    Checked on the file as it is, so a repeated install leaves it alone wherever the user moved
    our groups to."""
    owned: list[tuple[str, object, dict[str, Any]]] = []
    for event, groups in (data.get("hooks") or {}).items():
        for group in groups:
            for handler in group.get("hooks", []):
                if isinstance(handler, dict) and isinstance(handler.get("command"), str) and owns(handler["command"]):
                    owned.append((event, group.get("matcher"), handler))
    wanted = [(e.event, e.matcher, e.handler()) for e in entries]
    return len(owned) == len(wanted) and all(w in owned for w in wanted)


def _writable(path: str) -> None:
    """Refuse a settings file (or its folder) that is read-only: its owner made it so."""
    if os.path.lexists(path) and (not os.access(path, os.W_OK) or not os.stat(path).st_mode & 0o222):
        raise UsageError("agent-settings-read-only", f"{path} is read-only; it was left untouched.",
                         f"Make it writable (chmod u+w {path}) or edit it by hand, then run the same command again.")
    folder = os.path.dirname(path)
    while folder and not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    if folder and (not os.access(folder, os.W_OK) or not os.stat(folder).st_mode & 0o222):
        raise UsageError("agent-settings-read-only", f"{folder} is read-only, so {path} cannot be written; "
                         "nothing was changed.", f"Make {folder} writable, then run the same command again.")


def plan_install(path: str, entries: Sequence[HookEntry], owns: Callable[[str], bool] | None = None) -> Plan:
    """The file after adding `entries`, replacing every handler `owns` accepts (default: same commands)."""
    commands = {entry.command for entry in entries}
    return _plan(path, entries, owns or commands.__contains__, True)


def plan_uninstall(path: str, owns: Callable[[str], bool]) -> Plan:
    """The file without the handlers `owns` accepts."""
    return _plan(path, (), owns, False)


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
        fresh = _plan(plan.path, plan._entries, plan._owns, plan._install)
        if not fresh.changed:
            return False
        _writable(plan.path)
        os.makedirs(os.path.dirname(plan.path), exist_ok=True)
        atomic_write(plan.path, fresh.after.encode("utf-8"))
    return True
