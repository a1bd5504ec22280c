"""A reader's proof that the running `ws watch` has handled every file event up to now.

Filesystem events reach the watcher some time after the change (the kernel queues them, the
watcher's reader thread hands them on). Without a sync, a reader could trust the vouched state
(`fresh`) in that gap and miss an edit made just before it asked. With one:

1. The reader connects to the watcher's socket and asks "sync". Whatever the reader must see
   happened before this request.
2. The watcher then makes a *cookie*: a file event of its own inside the watched tree, so it comes
   through the same inotify queue and the same thread, which keep their order. In a checkout whose
   `.git` is a folder the cookie is a file created and removed in `.git/pylon/watch-sync/` (the
   one folder of the git dir the watcher watches: tracking/inotify.py); in a linked worktree
   (`.git` is a file) it is a new mtime on that `.git` file, which git only ever reads.
3. When the cookie reaches the handler, every earlier event has been handled: each one deleted
   `fresh` first. The watcher answers "ok", and the reader reads `fresh` only then.

The watcher has one cookie on its way at a time. One that has not arrived within SYNC_WAIT (a
burst of events in the tree ahead of it) answers "no", and so does every request until it
arrives, since an mtime cookie made meanwhile could not be told from the late one; so does a
watcher with a folder the kernel would not watch (`blind`). A reader told "no" scans, as it does
with no watcher. In a linked worktree, anything else that changes the `.git` file's metadata
while a cookie is on its way would be taken for it: git does not.
The socket is in Linux's abstract namespace (no file, no path length limit), named from the git
dir; the reader checks that the peer is the process that wrote `fresh` (SO_PEERCRED).
See docs/reference/workspace.md (`pylon ws watch`).
"""

from __future__ import annotations

import os
import sys

SYNC_WAIT = 1.0  # the watcher's wait for its own cookie, in seconds
ASK_WAIT = 2.0  # the reader's wait for an answer
COOKIE_DIR = "watch-sync"  # in the git dir's pylon folder: the cookies' folder


def address(git_dir: str) -> str | None:
    """The socket name of the watcher of this git dir (None where there is no abstract namespace).

    64 bits of CRC of the git dir's real path (hashlib costs readers 4 ms of imports). Two git dirs
    that shared a name would only mean the second watcher cannot bind and its readers scan: the
    reader checks the peer's pid before it trusts an answer."""
    if not sys.platform.startswith("linux"):
        return None
    import zlib

    key = os.path.realpath(git_dir).encode("utf-8", "surrogateescape")
    return f"\0pylon-watch-{zlib.crc32(key):08x}{zlib.crc32(key[::-1], 0x5EED):08x}"


def synced(git_dir: str, pid: int) -> bool:
    """True when the watcher `pid` answered that it has handled every event before this call."""
    name = address(git_dir)
    if name is None:
        return False
    # the C module: `import socket` costs a reader 12 ms (enum, selectors) on every watched read
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(ASK_WAIT)
        sock.connect(name)
        creds = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)  # struct ucred: 3 ints
        peer_pid, peer_uid = (int.from_bytes(creds[i : i + 4], sys.byteorder, signed=True) for i in (0, 4))
        if peer_pid != pid or peer_uid != os.getuid():
            return False
        sock.sendall(b"sync\n")
        return sock.recv(16) == b"ok\n"
    except OSError:
        return False
    finally:
        sock.close()


class Cookies:
    """The watcher's side: make a cookie, wait until the event handler reports it."""

    def __init__(self, root: str, pylon_dir: str) -> None:
        self.dot_git = os.path.join(root, ".git")
        self.dir: str | None = None
        if os.path.isdir(self.dot_git):
            os.makedirs(os.path.join(pylon_dir, COOKIE_DIR), exist_ok=True)
            # spelt from the watched root, as the events name it (the git dir may be spelt otherwise)
            self.dir = os.path.join(self.dot_git, os.path.basename(pylon_dir), COOKIE_DIR)
        import threading

        self.blind = False  # the tree is not wholly watched (tracking/inotify.py): never "ok"
        self.cond = threading.Condition()
        self.waiting: str | None = None  # the cookie on its way (its path, or `.git` for an mtime cookie)
        self.count = 0

    def seen(self, path: str, kind: str) -> bool:
        """Called by the event handler for every event first: True when it is a cookie."""
        if self.dir is not None:
            if os.path.dirname(path) != self.dir:
                return False
            mine = kind == "created" and path == self.waiting
        else:
            if path != self.dot_git:
                return False
            mine = kind in ("attrib", "modified")  # watchdog >= 5 says attrib
        if mine:
            with self.cond:
                self.waiting = None
                self.cond.notify_all()
        return True

    def sync(self) -> bool:
        """Make one cookie and wait for it (SYNC_WAIT). False when it is late, and for every request
        while it still is: a cookie made now could not be told from the late one."""
        with self.cond:
            if self.waiting is not None or self.blind:
                return False
            self.count += 1
            if self.dir is not None:
                self.waiting = os.path.join(self.dir, f".sync-{os.getpid()}-{self.count}")
            else:
                self.waiting = self.dot_git
            cookie = self.waiting
        try:
            if self.dir is not None:
                os.close(os.open(cookie, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
                os.unlink(cookie)
            else:
                st = os.stat(cookie, follow_symlinks=False)
                os.utime(cookie, ns=(st.st_atime_ns, st.st_mtime_ns + 1), follow_symlinks=False)
        except OSError:
            with self.cond:
                self.waiting = None
            return False
        with self.cond:
            return self.cond.wait_for(lambda: self.waiting is None, timeout=SYNC_WAIT)


class Server:
    """Answers "sync" requests on the watcher's socket, one at a time, in a daemon thread."""

    def __init__(self, git_dir: str, cookies: Cookies) -> None:
        self.cookies = cookies
        import socket
        import threading

        self.sock: socket.socket | None = None
        name = address(git_dir)
        if name is None:
            return
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(name)
            sock.listen(16)
        except OSError:  # another process holds the name: no sync, readers scan
            sock.close()
            return
        self.sock = sock
        threading.Thread(target=self._serve, name="pylon-watch-sync", daemon=True).start()

    def _serve(self) -> None:
        assert self.sock is not None
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return  # closed
            with conn:
                try:
                    conn.settimeout(ASK_WAIT)
                    if conn.recv(16) != b"sync\n":
                        continue
                    ok = self.cookies.sync()
                    conn.sendall(b"ok\n" if ok else b"no\n")
                except OSError:
                    continue

    def close(self) -> None:
        if self.sock is not None:
            import socket

            try:
                self.sock.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept()
            except OSError:
                pass
            self.sock.close()
