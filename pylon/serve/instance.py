"""One board per checkout: a lock held while `pylon serve` runs, and a record saying where it is.

`<git-dir>/pylon/serve.lock` is held (flock) for the server's lifetime, so a crashed server never
blocks the next one (the kernel drops the lock with the process). `<git-dir>/pylon/serve.json`
(mode 0600: it holds the board's key) tells a second `pylon serve` where the first one runs, and
lets it mint a new login link to it (security.mint) without talking to it.
"""

from __future__ import annotations

import json
import os
import time

from pylon.errors import PylonError

LOCK_NAME = "serve.lock"
RECORD_NAME = "serve.json"


class Instance:
    """The held lock; `close()` removes the record and releases the lock."""

    def __init__(self, folder: str, fd: int) -> None:
        self.folder = folder
        self.fd = fd

    @property
    def record_path(self) -> str:
        return os.path.join(self.folder, RECORD_NAME)

    def publish(self, url: str, port: int, key: str) -> None:
        from pylon.atomic import atomic_write

        doc = {"pid": os.getpid(), "port": port, "url": url, "key": key, "started": int(time.time())}
        atomic_write(self.record_path, json.dumps(doc).encode(), mode=0o600)

    def close(self) -> None:
        import fcntl

        try:
            os.unlink(self.record_path)
        except FileNotFoundError:
            pass
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def running(folder: str) -> dict[str, object] | None:
    """The record of the board running for this checkout, or None."""
    try:
        with open(os.path.join(folder, RECORD_NAME), encoding="utf-8") as handle:
            doc = json.load(handle)
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def claim(folder: str) -> Instance:
    """Take the lock of this checkout's board, or raise `serve-running` naming the one that holds it."""
    import fcntl

    fd = os.open(os.path.join(folder, LOCK_NAME), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        doc = running(folder) or {}
        where = f" at {doc['url']} (pid {doc.get('pid')})" if doc.get("url") else ""
        link = None
        port, key = doc.get("port"), doc.get("key")
        if isinstance(key, str) and isinstance(port, int):
            from pylon.serve.security import login_link

            link = login_link(port, key)
        hint = (
            f"Open {link} (a new link: each opens the board once), or stop that `pylon serve` (Ctrl-C in its "
            "terminal) and start again."
            if link
            else "Stop that `pylon serve` (Ctrl-C in its terminal) and start again."
        )
        raise PylonError(
            "serve-running",
            f"A board already runs for this checkout{where}.",
            hint,
            details={"url": link, "pid": doc.get("pid")},
        ) from None
    return Instance(folder, fd)
