"""sha256 hex digests without `hashlib`'s import (it loads OpenSSL: ~4-10 ms a hook pays on every
event). CPython's built-in module gives the same digests; hashlib is the fallback."""

from __future__ import annotations


def sha256_hex(data: bytes) -> str:
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]  # CPython 3.11
    except ImportError:
        try:
            from _sha2 import sha256  # type: ignore[import-not-found,no-redef]  # CPython 3.12+
        except ImportError:
            from hashlib import sha256  # type: ignore[assignment]
    return str(sha256(data).hexdigest())


def sha1_hex(data: bytes) -> str:
    """The SHA-1 git names its objects with (same rule: the built-in module first)."""
    try:
        from _sha1 import sha1  # type: ignore[import-not-found]
    except ImportError:
        from hashlib import sha1  # type: ignore[assignment]
    return str(sha1(data).hexdigest())
