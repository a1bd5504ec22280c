"""sha256 and sha1 hex digests without `hashlib`'s import (it loads OpenSSL: ~4-10 ms a hook pays on every
event). CPython's built-in modules give the same digests; hashlib is the fallback."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def sha256() -> Any:
    """The sha256 constructor: CPython's built-in module, else hashlib's."""
    try:
        from _sha256 import sha256 as made  # type: ignore[import-not-found, unused-ignore]  # CPython 3.11
    except ImportError:
        try:
            from _sha2 import sha256 as made  # type: ignore[import-not-found, no-redef, unused-ignore]  # CPython 3.12+
        except ImportError:
            from hashlib import sha256 as made  # type: ignore[assignment, unused-ignore]
    return made


def sha1() -> Any:
    """The sha1 constructor git names its objects with (same rule: the built-in module first)."""
    try:
        from _sha1 import sha1 as made  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        from hashlib import sha1 as made  # type: ignore[assignment, unused-ignore]
    return made


def sha256_hex(data: bytes) -> str:
    return str(sha256()(data).hexdigest())


def sha1_hex(data: bytes) -> str:
    return str(sha1()(data).hexdigest())


def git_blob_id(data: bytes) -> str:
    """The object id git gives `data` as a blob (sha1 of `blob <size>\\0` and the bytes), without
    hashlib: the write-time check compares files with their base this way on every hook event."""
    digest = sha1()(b"blob %d\0" % len(data))
    digest.update(data)
    return str(digest.hexdigest())
