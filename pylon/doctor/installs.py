"""Where pylon's hooks are installed for each agent client, and whether Codex trusts them.

Places read (none is written):

- settings files: Claude Code's `.claude/settings.json` and `.claude/settings.local.json` in the
  project and `$CLAUDE_CONFIG_DIR/settings.json` (default `~/.claude`); Codex's `.codex/hooks.json`
  in the project and `$CODEX_HOME/hooks.json` (default `~/.codex`);
- plugins: Claude Code's `$CLAUDE_CONFIG_DIR/plugins/installed_plugins.json` (each install's
  `installPath` holds `hooks/hooks.json`), counted when `enabledPlugins` of a settings file in reach
  enables it; Codex's `[plugins."NAME@MARKET"] enabled = true` in `$CODEX_HOME/config.toml`, its
  files under `$CODEX_HOME/plugins/cache/MARKET/NAME/VERSION/`.

A handler is pylon's when its command is pylon's hook entry in any form (install.part_of), or the
plugins' fail-closed wrapper (`pylon-hook.sh`). An event that two places both answer runs pylon
twice (two snapshots, two notes).

Codex runs a non-managed hook only when `$CODEX_HOME/config.toml` holds
`[hooks.state."KEY"] trusted_hash = "sha256:..."` for it, KEY being `<hooks.json path>:<event in
snake case>:<group index>:<handler index>` (a plugin's: `NAME@MARKET:hooks/hooks.json:...`), and
the hash that of the handler's normalised definition: sha256 of the compact JSON, keys sorted, of
`{"event_name", "matcher" (when the group has one), "hooks": [{"type": "command", "command",
"timeout" (600 when unset), "async": false, "statusMessage" (when set)}]}`; a plugin's recorded hash
is that hash, `/`, and a fingerprint of the plugin's files. The formula was checked against Codex
0.171's own `hooks/list` (tests/doctor/test_codex_trust.py); `/hooks` in Codex's CLI records it.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

WRAPPER = "pylon-hook.sh"  # the plugins' fail-closed wrapper (plugins/*/hooks/)
DEFAULT_TIMEOUT = 600  # Codex's timeout of a handler that sets none


class Handler:
    """One pylon handler: where (file, event, group, index), its definition."""

    __slots__ = ("event", "group", "index", "command", "matcher", "timeout", "status_message")

    def __init__(self, event: str, group: int, index: int, handler: dict[str, Any], matcher: str | None) -> None:
        self.event, self.group, self.index, self.matcher = event, group, index, matcher
        self.command = str(handler.get("command"))
        timeout = handler.get("timeout")
        self.timeout = timeout if isinstance(timeout, int) and not isinstance(timeout, bool) else None
        message = handler.get("statusMessage")
        self.status_message = message if isinstance(message, str) else None


class Install:
    """pylon's hooks in one place: a settings file or an enabled plugin."""

    __slots__ = ("client", "scope", "kind", "path", "handlers", "plugin", "problem")

    def __init__(self, client: str, scope: str, kind: str, path: str, plugin: str = "") -> None:
        self.client, self.scope, self.kind, self.path, self.plugin = client, scope, kind, path, plugin
        self.handlers: list[Handler] = []
        self.problem = ""

    @property
    def events(self) -> list[str]:
        return sorted({h.event for h in self.handlers})

    def where(self) -> str:
        return (
            f"the pylon plugin ({self.plugin}, {self.scope})"
            if self.kind == "plugin"
            else f"{self.path} ({self.scope})"
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "client": self.client,
            "scope": self.scope,
            "kind": self.kind,
            "path": self.path,
            "plugin": self.plugin or None,
            "events": self.events,
            "problem": self.problem or None,
        }


def claude_home(env: dict[str, str] | None = None) -> str:
    environ = os.environ if env is None else env
    return environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")


def codex_home(env: dict[str, str] | None = None) -> str:
    environ = os.environ if env is None else env
    return environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")


def _json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        return exc


def _is_pylon(client: str, event: str, command: str) -> bool:
    from pylon.hooks.install import part_of

    agent = "claude-code" if client == "claude-code" else "codex"
    return WRAPPER in command or part_of(agent)(event, command) is not None


def _read(install: Install) -> Install | None:
    """The install with its pylon handlers ({} of them: None); a file that does not parse is kept
    with its problem."""
    doc = _json(install.path)
    if doc is None:
        return None
    if isinstance(doc, Exception) or not isinstance(doc, dict):
        install.problem = f"{install.path} does not parse ({doc})"
        return install
    hooks = doc.get("hooks")
    for event, groups in hooks.items() if isinstance(hooks, dict) else []:
        for g, group in enumerate(groups if isinstance(groups, list) else []):
            if not isinstance(group, dict):
                continue
            matcher = group.get("matcher") if isinstance(group.get("matcher"), str) else None
            for i, handler in enumerate(group.get("hooks") or []):
                if (
                    isinstance(handler, dict)
                    and isinstance(handler.get("command"), str)
                    and _is_pylon(install.client, event, handler["command"])
                ):
                    install.handlers.append(Handler(event, g, i, handler, matcher))
    return install if install.handlers else None


def _toml(path: str) -> dict[str, Any]:
    try:
        import tomllib

        with open(path, "rb") as fh:
            return tomllib.loads(fh.read().decode("utf-8"))
    except (OSError, ValueError):
        return {}


def find(project: str | None, env: dict[str, str] | None = None) -> list[Install]:
    """Every place pylon's hooks are installed for Claude Code and Codex, as seen from `project`."""
    claude, codex = claude_home(env), codex_home(env)
    places = []
    if project:
        places += [
            Install("claude-code", "project", "settings", os.path.join(project, ".claude", "settings.json")),
            Install("claude-code", "local", "settings", os.path.join(project, ".claude", "settings.local.json")),
            Install("codex", "project", "settings", os.path.join(project, ".codex", "hooks.json")),
        ]
    places += [
        Install("claude-code", "user", "settings", os.path.join(claude, "settings.json")),
        Install("codex", "user", "settings", os.path.join(codex, "hooks.json")),
    ]
    found = [i for i in (_read(p) for p in places) if i is not None]
    found += _claude_plugins(claude, project)
    found += _codex_plugins(codex)
    return found


def _claude_plugins(home: str, project: str | None) -> list[Install]:
    doc = _json(os.path.join(home, "plugins", "installed_plugins.json"))
    plugins = doc.get("plugins") if isinstance(doc, dict) else None
    if not isinstance(plugins, dict):
        return []
    enabled: dict[str, bool] = {}
    for settings in (
        os.path.join(home, "settings.json"),
        *(
            [os.path.join(project, ".claude", "settings.json"), os.path.join(project, ".claude", "settings.local.json")]
            if project
            else []
        ),
    ):
        data = _json(settings)
        flags = data.get("enabledPlugins") if isinstance(data, dict) else None
        if isinstance(flags, dict):
            enabled.update({str(k): bool(v) for k, v in flags.items()})
    found = []
    for name, entries in plugins.items():
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict) or not enabled.get(name):
                continue
            where = entry.get("projectPath")
            if entry.get("scope") in ("project", "local") and (
                not project or not where or os.path.realpath(str(where)) != os.path.realpath(project)
            ):
                continue
            path = os.path.join(str(entry.get("installPath") or ""), "hooks", "hooks.json")
            got = _read(Install("claude-code", str(entry.get("scope") or "user"), "plugin", path, name))
            if got is not None:
                found.append(got)
    return found


def _codex_plugins(home: str) -> list[Install]:
    config = _toml(os.path.join(home, "config.toml"))
    plugins = config.get("plugins")
    if not isinstance(plugins, dict):
        plugins = {}
    found = []
    for name, setting in plugins.items():
        if not isinstance(setting, dict) or setting.get("enabled") is False or "@" not in name:
            continue
        plugin, market = name.split("@", 1)
        folder = os.path.join(home, "plugins", "cache", market, plugin)
        try:
            versions = sorted(os.listdir(folder))
        except OSError:
            continue
        for version in versions[-1:]:
            got = _read(Install("codex", "user", "plugin", os.path.join(folder, version, "hooks", "hooks.json"), name))
            if got is not None:
                found.append(got)
    return found


def remove_command(install: Install) -> str:
    """The command that removes pylon's hooks from `install`."""
    agent = install.client
    if install.kind == "plugin":
        return (
            f"claude plugin uninstall {install.plugin}"
            if agent == "claude-code"
            else f"codex plugin remove {install.plugin}"
        )
    flag = {"user": " --user", "local": ""}.get(install.scope, "")
    if install.scope == "local":
        return f"edit {install.path} (remove its `pylon hook {agent}` handlers)"
    return f"pylon hook uninstall {agent}{flag}"


def twice(installs: list[Install]) -> dict[tuple[str, str], list[Install]]:
    """(client, event) -> the places that both run pylon on it (two or more)."""
    by: dict[tuple[str, str], list[Install]] = {}
    for install in installs:
        for event in install.events:
            by.setdefault((install.client, event), []).append(install)
    return {k: v for k, v in by.items() if len(v) > 1}


def overlapping(
    client: str, scope: str, path: str, project: str | None, env: dict[str, str] | None = None
) -> list[Install]:
    """The other places that run pylon's hooks for `client` (what an install into `path` doubles)."""
    real = os.path.realpath(path)
    return [i for i in find(project, env) if i.client == client and os.path.realpath(i.path) != real]


# -- Codex's trust ----------------------------------------------------------------------------------


def snake(event: str) -> str:
    return "".join("_" + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(event))


def handler_hash(handler: Handler) -> str:
    """Codex's hash of a handler's normalised definition (the module docstring)."""
    from pylon.digest import sha256_hex

    entry: dict[str, object] = {
        "type": "command",
        "command": handler.command,
        "timeout": handler.timeout if handler.timeout is not None else DEFAULT_TIMEOUT,
        "async": False,
    }
    if handler.status_message is not None:
        entry["statusMessage"] = handler.status_message
    doc: dict[str, object] = {"event_name": snake(handler.event), "hooks": [entry]}
    if handler.matcher is not None:
        doc["matcher"] = handler.matcher
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + sha256_hex(text.encode("utf-8"))


def trust_key(install: Install, handler: Handler, env: dict[str, str] | None = None) -> str:
    """The key of the handler's `[hooks.state]` record. Codex canonicalises an explicitly set
    `$CODEX_HOME` before it lands in a key, and the project's folder (found from the real path)."""
    environ = os.environ if env is None else env
    if install.kind == "plugin":
        where = f"{install.plugin}:hooks/hooks.json"
    elif install.scope == "user" and not environ.get("CODEX_HOME"):
        where = install.path
    else:
        where = os.path.join(os.path.realpath(os.path.dirname(install.path)), os.path.basename(install.path))
    return f"{where}:{snake(handler.event)}:{handler.group}:{handler.index}"


def untrusted(install: Install, env: dict[str, str] | None = None) -> list[tuple[Handler, str]]:
    """The Codex handlers of `install` that Codex will not run: (handler, why: untrusted, modified
    since trusted, or disabled)."""
    state = _toml(os.path.join(codex_home(env), "config.toml")).get("hooks", {})
    state = state.get("state", {}) if isinstance(state, dict) else {}
    out = []
    for handler in install.handlers:
        record = state.get(trust_key(install, handler, env)) if isinstance(state, dict) else None
        record = record if isinstance(record, dict) else {}
        if record.get("enabled") is False:
            out.append((handler, "disabled"))
            continue
        recorded = record.get("trusted_hash")
        if not isinstance(recorded, str):
            out.append((handler, "untrusted"))
        elif recorded.split("/")[0] != handler_hash(handler):
            out.append((handler, "modified"))
    return out
