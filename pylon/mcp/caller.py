"""What `pylon mcp` knows of the client that calls it: its roots (the folders a call may reach, with
their owned worktrees), Codex's sandbox folder a call runs in, and the harness and session it names.
Apart from server.py, which speaks the protocol; these read what the client sent.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping

TYPE_CHECKING = False  # typing costs the start-up an agent waits for (the `initialize` answer)
if TYPE_CHECKING:
    from typing import Any

    from pylon.mcp.jsonrpc import Message

# Codex sends the thread's working folder in each call's _meta to servers that declare this capability.
SANDBOX_META = "codex/sandbox-state-meta"


class Roots:
    """The client's roots (folders), asked for after `notifications/initialized` when it has the capability."""

    def __init__(self) -> None:
        self.supported = False
        self.asked: object = None  # the id of our pending roots/list
        self.folders: list[str] | None = None  # None: not sent (or unusable): the checkout is the project
        self.answered = threading.Event()
        self.answered.set()
        self.serial = 0

    def ask(self, send: Any) -> None:
        self.serial += 1
        self.asked = f"pylon-roots-{self.serial}"
        self.answered.clear()
        send({"jsonrpc": "2.0", "id": self.asked, "method": "roots/list"})

    def take(self, message: Message) -> bool:
        """A response to our roots/list (True), else not ours (False)."""
        if message.id != self.asked or self.asked is None:
            return False
        value = message.result if isinstance(message.result, dict) else {}
        listed = value.get("roots") if isinstance(value, dict) else None
        folders = [f for f in map(_folder_of, listed if isinstance(listed, list) else []) if f]
        self.folders = folders or None
        self.asked = None
        self.answered.set()
        return True


def _folder_of(root: object) -> str | None:
    """The local folder a root names: a `file:` URI with no host (or `localhost`), else None."""
    uri = root.get("uri") if isinstance(root, dict) else None
    if not isinstance(uri, str) or not uri.startswith("file:"):
        return None
    from urllib.parse import unquote, urlparse

    parsed = urlparse(uri)
    if parsed.netloc not in ("", "localhost"):
        return None  # file://HOST/...: a folder on another machine, not this one
    path = unquote(parsed.path)
    return path if os.path.isabs(path) and os.path.isdir(path) else None


def owned_worktrees(folders: list[str]) -> list[str]:
    from pylon.errors import PylonError
    from pylon.workspace.repo import locate
    from pylon.workspace.worktrees.owned import survey

    found: list[str] = []
    for folder in folders:
        try:
            found += [o.path for o in survey(locate(folder)).owned.values()]
        except (PylonError, OSError):
            continue  # not a checkout, or git cannot say: no worktrees of it
    return found


# pi-canon's environment names for the same facts, read after our own (scripts/runtime.mjs).
_SESSION_ENV = ("PYLON_MCP_SESSION", "CODEX_THREAD_ID", "CLAUDE_CODE_SESSION_ID")


def harness(given: str | None) -> str:
    """Who is calling: `--harness`, else PYLON_HARNESS, else the client's own session variable, else `mcp`."""
    if given:
        return given
    if os.environ.get("PYLON_HARNESS"):
        return os.environ["PYLON_HARNESS"]
    if os.environ.get("CODEX_THREAD_ID"):
        return "codex"
    if os.environ.get("CLAUDE_CODE_SESSION_ID"):
        return "claude-code"
    return "mcp"


def session_id(meta: Mapping[str, Any] | None) -> str | None:
    """The call's session: `_meta.threadId` or `_meta.sessionId` (as pi-canon reads them), else the
    environment the client started the server with; None when nothing names one."""
    for key in ("threadId", "sessionId"):
        value = (meta or {}).get(key)
        if isinstance(value, str) and value:
            return value
    for name in _SESSION_ENV:
        if os.environ.get(name):
            return os.environ[name]
    return None


def call_folder(meta: Mapping[str, Any] | None) -> str | None:
    """The folder a call runs in: Codex's `sandboxCwd` (a path or file: URL) when absolute, else None
    (the server's own folder). It must lie inside the project like any path (the boundary decides)."""
    state = (meta or {}).get(SANDBOX_META)
    value = state.get("sandboxCwd") if isinstance(state, Mapping) else None
    if not isinstance(value, str):
        return None
    if value.startswith("file:"):
        from urllib.parse import unquote, urlparse

        value = unquote(urlparse(value).path)
    return value if os.path.isabs(value) else None
