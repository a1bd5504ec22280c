"""What pylon learned from each transcript, kept under the state directory between runs, so that
a second `pylon sessions` reads only what the clients appended since the first.

One small file per transcript (`<state dir>/sessions/files/<hash of its path>.m`, marshal), so a
status line reads its own session's file and nothing else. An entry is the transcript's device,
inode, size and modification time, the offset read up to (just past its last whole line), the 64
bytes before that offset, and the reader's state (counts, hashes, times: never the transcript's
text). A transcript whose size and time are those recorded is not opened; one that grew, with the
same inode and the same 64 bytes before the offset, is read from the offset; anything else is read
from its start. A cache file that cannot be read counts as absent (it is only derived state).
"""

from __future__ import annotations

import marshal
import os

from pylon.sessions import claude, codex
from pylon.sessions.jsonl import decoder, fingerprint, whole_lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

VERSION = 2  # bump when a reader's state changes shape or meaning: old entries are then read anew
_MAGIC = b"PYLNSES1"


def folder() -> str:
    from pylon.state import state_home

    return os.path.join(state_home(), "sessions", "files")


def entry_path(path: str) -> str:
    from pylon.digest import sha256_hex

    return os.path.join(folder(), sha256_hex(os.fsencode(path))[:32] + ".m")


def load(path: str) -> list[Any] | None:
    try:
        with open(entry_path(path), "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    if not data.startswith(_MAGIC):
        return None
    try:
        entry = marshal.loads(data[len(_MAGIC) :])
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(entry, list) or len(entry) != 9 or entry[0] != VERSION or entry[1] != path:
        return None
    return entry


def save(path: str, entry: list[Any]) -> None:
    from pylon.atomic import replace_unsynced

    target = entry_path(path)
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        replace_unsynced(target, _MAGIC + marshal.dumps(entry))
    except OSError:
        pass  # a cache that cannot be written costs a full read next time, nothing more


def new_state(client: str, path: str, session: str) -> dict[str, Any]:
    return claude.start(session) if client == claude.CLIENT else codex.start(os.path.basename(path))


_ABSENT: list[Any] = []  # `read`'s default: look the entry up


def unread(entry: list[Any] | None, st: os.stat_result) -> int:
    """About how many bytes of the transcript its cache entry does not cover (its size when it has
    no entry, or one of another inode)."""
    if entry is None or (entry[2], entry[3]) != (st.st_dev, st.st_ino) or st.st_size < entry[6]:
        return st.st_size
    return st.st_size - entry[6]


def read(
    client: str,
    path: str,
    session: str,
    st: os.stat_result,
    decode: Any = None,
    keep: bool = True,
    entry: list[Any] | None = _ABSENT,
) -> dict[str, Any]:
    """The state of one transcript, brought up to date from the cache and the file's new lines
    (`entry`: its cache entry when the caller loaded it already)."""
    if entry is _ABSENT:
        entry = load(path) if keep else None
    if entry is not None:
        _, _, dev, ino, size, mtime, offset, tail, state = entry
        if (dev, ino, size, mtime) == (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns):
            return state
        if (dev, ino) != (st.st_dev, st.st_ino) or st.st_size < offset or fingerprint(path, offset) != tail:
            entry = None
    if entry is None:
        offset, state = 0, new_state(client, path, session)
    module = claude if client == claude.CLIENT else codex
    reader = module.Reader(state, decode or decoder())
    try:
        end, tail = whole_lines(path, offset, reader.feed)
    except OSError:
        return state  # gone or unreadable since it was listed: what was read
    if end == offset:
        tail = entry[7] if entry is not None else b""
    elif len(tail) < min(64, end):
        tail = fingerprint(path, end)
    if keep:
        save(path, [VERSION, path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, end, tail, state])
    return state


def prune(kept: set[str]) -> None:
    """Remove the cache files of transcripts that are gone (`kept`: the entry paths just read;
    an entry of another client folder, such as another CLAUDE_CONFIG_DIR, stays while its
    transcript exists)."""
    try:
        names = os.listdir(folder())
    except OSError:
        return
    for name in names:
        full = os.path.join(folder(), name)
        if not name.endswith(".m") or full in kept:
            continue
        try:
            with open(full, "rb") as fh:
                data = fh.read()
            entry = marshal.loads(data[len(_MAGIC) :]) if data.startswith(_MAGIC) else None
            if isinstance(entry, list) and len(entry) > 1 and isinstance(entry[1], str) and os.path.exists(entry[1]):
                continue
            os.unlink(full)
        except (OSError, EOFError, ValueError, TypeError):
            continue
