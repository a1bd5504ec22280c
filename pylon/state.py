"""Where pylon keeps state that is not part of any repository (ledgers, sessions, logs, caches)."""

from __future__ import annotations

import os

from pylon.errors import UsageError

TYPE_CHECKING = False  # pathlib and re cost ~15 ms of start-up; `pylon read` needs neither
if TYPE_CHECKING:
    from pathlib import Path

_SESSION_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def state_home() -> str:
    """`$PYLON_STATE_DIR`, else `$XDG_STATE_HOME/pylon`, else `~/.local/state/pylon`, absolute. Not created.

    A plain string, without pathlib, for the hot paths; `state_dir()` is the same as a Path.
    """
    explicit = os.environ.get("PYLON_STATE_DIR")
    if explicit:
        return _absolute(os.path.expanduser(explicit))
    xdg = os.environ.get("XDG_STATE_HOME")
    base = os.path.expanduser(xdg) if xdg else os.path.join(os.path.expanduser("~"), ".local", "state")
    return _absolute(os.path.join(base, "pylon"))


def _absolute(path: str) -> str:
    # Like Path.absolute(): joined to the current folder, `..` kept (abspath would resolve `..`
    # lexically, which differs from the kernel's resolution when a component is a symlink).
    return path if os.path.isabs(path) else os.path.join(os.getcwd(), path)


def state_dir() -> Path:
    """`state_home()` as a Path."""
    from pathlib import Path

    return Path(state_home())


def session_name() -> str:
    """The `PYLON_SESSION` that scopes per-session state; `default` when unset."""
    name = os.environ.get("PYLON_SESSION") or "default"
    if not 1 <= len(name) <= 128 or not _SESSION_CHARS.issuperset(name) or name in (".", ".."):
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
