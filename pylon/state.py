"""Where pylon keeps state that is not part of any repository (ledgers, sessions, logs, caches)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from pylon.errors import UsageError

_SESSION_RE = re.compile(r"^[A-Za-z0-9._-]{1,128}$")


def state_dir() -> Path:
    """`$PYLON_STATE_DIR`, else `$XDG_STATE_HOME/pylon`, else `~/.local/state/pylon`. Not created."""
    explicit = os.environ.get("PYLON_STATE_DIR")
    if explicit:
        return Path(explicit).expanduser().absolute()
    xdg = os.environ.get("XDG_STATE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "state"
    return (base / "pylon").absolute()


def session_name() -> str:
    """The `PYLON_SESSION` that scopes per-session state; `default` when unset."""
    name = os.environ.get("PYLON_SESSION") or "default"
    if not _SESSION_RE.match(name) or name in (".", ".."):
        raise UsageError(
            "bad-session",
            f"PYLON_SESSION {name!r} is not a valid session name (1-128 of A-Z a-z 0-9 . _ -).",
            "export PYLON_SESSION=my-session",
        )
    return name


def state_path(*parts: str, create: bool = True) -> Path:
    """A folder or file path under the state directory; parent folders are created on request."""
    path = state_dir().joinpath(*parts)
    if create:
        path.parent.mkdir(parents=True, exist_ok=True)
    return path
