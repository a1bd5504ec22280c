"""The decoded schema.json, cached by content in `.canon/.cache/schema.marshal` for `canon read`.

Decoding JSON needs the json package, which imports re (and enum, functools, the regex compiler):
~6 ms of a `canon read` that otherwise takes ~25. The store `canon init` makes has a schema.json
with bounds, so every read of a default store would pay it. The cache holds the file's exact bytes
next to the decoded value (marshal, a built-in module that costs no import), and is used only when
the bytes read now are the same: there is no timestamp to go stale. Like the journal index it is
derived data in the git-ignored `.cache/` folder; losing or damaging it only costs one decode.
"""

from __future__ import annotations

import marshal
import os

TYPE_CHECKING = False  # typing costs start-up time on every `canon read`; annotations are strings
if TYPE_CHECKING:
    from typing import Any

    from pylon.canon.store import Store

    Json = None | bool | int | float | str | list[Any] | dict[str, Any]  # what json.loads builds

CACHE_NAME = "schema.marshal"
_FORMAT = 1  # bump when the cached tuple changes shape


def cached(store: Store, raw: bytes) -> tuple[bool, object]:
    """(True, decoded JSON) when the cache holds the decoding of exactly `raw`; (False, None) else."""
    try:
        with open(os.path.join(store.cache_dir, CACHE_NAME), "rb") as fh:
            entry = marshal.loads(fh.read())
    except (OSError, ValueError, EOFError, TypeError):
        return False, None
    if isinstance(entry, tuple) and len(entry) == 3 and entry[0] == _FORMAT and entry[1] == raw:
        return True, entry[2]
    return False, None


def remember(store: Store, raw: bytes, data: Json) -> None:
    """Cache the decoding of `raw`, best effort. Only into an existing cache folder (the journal
    index creates it, with its `*` .gitignore), and by rename so a reader never sees half a file."""
    folder = store.cache_dir
    if not os.path.isdir(folder):
        return
    try:
        blob = marshal.dumps((_FORMAT, raw, data))
    except ValueError:  # not marshal-able; json.loads never builds such a value, but be safe
        return
    tmp = os.path.join(folder, f".{CACHE_NAME}.{os.getpid()}.tmp")
    try:
        if os.path.lexists(tmp):  # a killed writer's (same pid) or a planted link: never written through
            os.unlink(tmp)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
        with os.fdopen(fd, "wb") as fh:
            fh.write(blob)
        os.replace(tmp, os.path.join(folder, CACHE_NAME))
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
