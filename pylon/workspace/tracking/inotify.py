"""`ws watch`'s own file events on Linux: inotify on the tree's folders, not on the git dir's.

Why not watchdog's recursive watch here: it watches `.git` too, and one `git gc` (run on its own
by git after a commit or fetch that left many loose objects) deletes tens of thousands of them;
each event then went through watchdog's four threads before the sync cookie behind them, which
arrived seconds late, so every reader in that time waited its second and scanned. watchdog also
holds the first half of every rename for up to 0.5 s to pair it, and everything queued behind it.
The watcher needs no event from `.git`: HEAD, the index and the ignore rules are read by whoever
trusts a vouch. So `.git` itself is not watched; only the cookie folder in it is.

One thread reads the kernel's queue and calls `on_event(path, kind)` for each event in the
kernel's order (the sync's proof rests on it). A folder made or moved into the tree is watched,
with every folder in it, before its event is reported, so the rescan that follows sees whatever
was written into it before its watch. A folder moved out keeps its watches (its events then cost
a rescan, never a miss). The kernel's queue overflowing, or a folder the kernel will not watch
(fs.inotify.max_user_watches), calls `on_lost` (with True in the second case: from then on
the tree is not wholly watched, and nothing may be vouched).
"""

from __future__ import annotations

import ctypes
import errno
import os
import select
import struct
import threading
from collections.abc import Callable

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF = 0x400, 0x800
IN_Q_OVERFLOW, IN_IGNORED, IN_ISDIR = 0x4000, 0x8000, 0x40000000
IN_ONLYDIR, IN_DONT_FOLLOW, IN_CLOEXEC, IN_NONBLOCK = 0x1000000, 0x2000000, 0o2000000, 0o4000
# what can be a change: not IN_ACCESS, IN_OPEN or IN_CLOSE_NOWRITE, which every read of the tree makes
MASK = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR
    | IN_DONT_FOLLOW
)
KINDS = (  # watchdog's names, which watchsync.Cookies knows
    (IN_CREATE, "created"),
    (IN_DELETE | IN_DELETE_SELF, "deleted"),
    (IN_MOVED_FROM | IN_MOVED_TO | IN_MOVE_SELF, "moved"),
    (IN_MODIFY, "modified"),
    (IN_ATTRIB, "attrib"),
    (IN_CLOSE_WRITE, "closed"),
)
GONE = (errno.ENOENT, errno.ENOTDIR, errno.EACCES, errno.ELOOP)  # a folder that vanished or is no folder
HEADER = struct.Struct("iIII")  # struct inotify_event: wd, mask, cookie, len (then the name)


def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.inotify_init1  # noqa: B018 (raises AttributeError where there is no inotify)
    except (OSError, AttributeError):
        return None
    return libc


def available() -> bool:
    return _libc() is not None


class Tree:
    """Watches `root` and its folders but not `dot_git`'s; in `dot_git`, only `cookie_dir`."""

    def __init__(
        self,
        root: str,
        cookie_dir: str | None,
        on_event: Callable[[str, str], None],
        on_lost: Callable[[bool], None],
    ) -> None:
        libc = _libc()
        if libc is None:
            raise OSError(errno.ENOSYS, "inotify is not available")
        self.libc = libc
        self.root = root
        self.dot_git = os.path.join(root, ".git")
        self.cookie_dir = cookie_dir
        self.on_event = on_event
        self.on_lost = on_lost
        self.blind = False  # a folder went unwatched: nothing may be vouched any more
        self.paths: dict[int, str] = {}
        fd = libc.inotify_init1(IN_CLOEXEC | IN_NONBLOCK)
        if fd < 0:
            raise _error("inotify_init1")
        self.fd = fd
        self.wake_r, self.wake_w = os.pipe()
        try:
            self._add_tree(root, initial=True)  # every watch in place before the first capture
        except OSError:
            self._close_fds()
            raise
        self.thread = threading.Thread(target=self._run, name="pylon-watch-inotify", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        os.write(self.wake_w, b"x")
        self.thread.join(timeout=5)
        self._close_fds()

    def _close_fds(self) -> None:
        for fd in (self.fd, self.wake_r, self.wake_w):
            try:
                os.close(fd)
            except OSError:
                pass

    def _watch(self, path: str, initial: bool) -> bool:
        """Watch one folder; False when it is gone or no folder. Out of watches: an error at the
        start (the watcher polls instead), blindness later."""
        wd = self.libc.inotify_add_watch(self.fd, os.fsencode(path), MASK)
        if wd >= 0:
            self.paths[wd] = path  # the same folder moved: the kernel gives its watch back, renamed
            return True
        code = ctypes.get_errno()
        if code in GONE:
            return False
        if initial:
            raise OSError(code, f"cannot watch {path}: {os.strerror(code)}")
        self.blind = True
        self.on_lost(True)
        return False

    def _add_tree(self, top: str, initial: bool = False) -> None:
        """Watch `top` and every folder below it (no symlinks), the watch before the listing so
        nothing made meanwhile goes unseen; in the git dir only the cookie folder."""
        if top == self.dot_git:
            if self.cookie_dir is not None:
                self._watch(self.cookie_dir, initial)
            return
        stack = [top]
        while stack:
            folder = stack.pop()
            if not self._watch(folder, initial):
                continue
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        if entry.is_dir(follow_symlinks=False):
                            if entry.path == self.dot_git:
                                self._add_tree(entry.path, initial)
                            else:
                                stack.append(entry.path)
            except OSError:
                continue  # gone since its watch was added: its IN_IGNORED follows

    def _run(self) -> None:
        poll = select.poll()
        poll.register(self.fd, select.POLLIN)
        poll.register(self.wake_r, select.POLLIN)
        while True:
            ready = {fd for fd, _ in poll.poll()}
            if self.wake_r in ready:
                return
            try:
                buf = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                continue
            except OSError:
                return
            self._events(buf)

    def _events(self, buf: bytes) -> None:
        offset = 0
        while offset + HEADER.size <= len(buf):
            wd, mask, _cookie, size = HEADER.unpack_from(buf, offset)
            name = buf[offset + HEADER.size : offset + HEADER.size + size].rstrip(b"\0")
            offset += HEADER.size + size
            if mask & IN_Q_OVERFLOW:
                self._add_tree(self.root)  # folders made while events were lost
                self.on_lost(False)
                continue
            if mask & IN_IGNORED:
                self.paths.pop(wd, None)
                continue
            folder = self.paths.get(wd)
            if folder is None:
                continue
            path = os.path.join(folder, os.fsdecode(name)) if name else folder
            if mask & IN_ISDIR and mask & (IN_CREATE | IN_MOVED_TO):
                self._add_tree(path)
            kind = next((k for bits, k in KINDS if mask & bits), "modified")
            self.on_event(path, kind)


def _error(what: str) -> OSError:
    code = ctypes.get_errno()
    return OSError(code, f"{what}: {os.strerror(code)}")
