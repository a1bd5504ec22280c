"""Revision tags: the first 12 hex characters of SHA-256 of the file's exact bytes.

The ledger keeps the full digest. When two different contents of one file share a prefix, the
newer tag grows 4 characters at a time until it is unique among that file's revisions.
"""

from __future__ import annotations

import hashlib

TYPE_CHECKING = False  # typing, re and threading cost start-up time on `pylon read`
if TYPE_CHECKING:
    import threading
    from collections.abc import Iterable

TAG_LEN = 12
_HEX = frozenset("0123456789abcdef")


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class BackgroundDigest:
    """SHA-256 of a large buffer on a second thread (hashlib releases the GIL while hashing).

    The main thread meanwhile indexes lines or writes the file; `.value` waits for the result.
    """

    def __init__(self, data: bytes | list[bytes | memoryview]) -> None:
        self._result = ""
        parts: list[bytes | memoryview] = [data] if isinstance(data, (bytes, memoryview)) else data
        if sum(len(p) for p in parts) < (1 << 20):
            self._run(parts)
            self._thread: threading.Thread | None = None
        else:
            import threading  # only large buffers are hashed on a second thread

            self._thread = threading.Thread(target=self._run, args=(parts,), daemon=True)
            self._thread.start()

    def _run(self, parts: list[bytes | memoryview]) -> None:
        h = hashlib.sha256()
        for part in parts:
            h.update(part)
        self._result = h.hexdigest()

    @property
    def value(self) -> str:
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        return self._result


def make_tag(full: str, others: Iterable[str]) -> str:
    """The shortest tag (12, 16, 20... characters) that no other digest of this file shares."""
    others = [o for o in others if o != full]
    length = TAG_LEN
    while length < len(full) and any(o.startswith(full[:length]) for o in others):
        length += 4
    return full[:length]


def normalize_tag(text: str) -> str | None:
    """A tag as typed by a user (any case), or None when it is not 12-64 hex characters."""
    tag = text.strip().lower()
    return tag if TAG_LEN <= len(tag) <= 64 and _HEX.issuperset(tag) else None
