"""`pylon ws watch`: report each settled batch of changes in the checkout.

Filesystem events (on Linux tracking/inotify.py, elsewhere watchdog) are a hint of *when* to look; what changed is
always decided by a fresh capture compared with the previous one, so a lost or dropped event can
delay a report but never falsify it. The event queue is bounded (PYLON_WATCH_QUEUE_MAX, default
10000; a test knob, as is PYLON_WATCH_EVENT_DELAY, which makes the handler slow): past it, or when
the kernel's inotify queue overflows, the watcher rescans and says so in the batch (`overflow: true`).

While it runs, the watcher holds `<git-dir>/pylon/watch.lock` and keeps `fresh` current, so
`changes`, `fingerprint`, `baseline`, `run`, `list` and `conflicts` skip their own scan once a sync
proves it has handled every event made before they asked (current.py, watchsync.py).
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
import time
from collections.abc import Callable

from pylon.workspace import state as st
from pylon.workspace.current import FRESH, WATCH_LOCK, write_fresh
from pylon.workspace.repo import Checkout
from pylon.workspace.since import resolve
from pylon.workspace.tracking.changes import count_changed, listed
from pylon.workspace.watchsync import Cookies, Server

TYPE_CHECKING = False
if TYPE_CHECKING:
    from watchdog.events import FileSystemEvent

DEFAULT_QUEUE_MAX = 10000


class _Events:
    """Thread-safe event bookkeeping shared by the observer thread and the main loop."""

    def __init__(self, root: str, fresh_path: str | None, queue_max: int) -> None:
        self.root = root.rstrip("/") + "/"
        self.git_dir = os.path.join(root, ".git")
        self.fresh_path = fresh_path
        self.queue_max = queue_max
        self.cond = threading.Condition()
        self.generation = 0
        self.queue: list[str] = []
        self.overflow = False
        self.last_event = 0.0
        self.seen = 0  # the generation the main loop last took
        self.vouched = fresh_path is not None  # `fresh` may be on disk (the main loop writes it, holding cond)

    def hit(self, path: str) -> None:
        if path == self.git_dir or path.startswith(self.git_dir + "/"):
            return
        with self.cond:
            if len(self.queue) >= self.queue_max:
                self.overflow = True
            else:
                self.queue.append(path)
            self._changed()

    def overflowed(self) -> None:
        with self.cond:
            self.overflow = True
            self._changed()

    def _changed(self) -> None:
        """With cond held. Only the first event after a batch wakes the main loop (it waits out the
        settle on its own): one wake-up per event made a burst share the GIL with it all along."""
        self.generation += 1
        self.last_event = time.monotonic()
        if self.vouched and self.fresh_path:
            self.vouched = False
            try:
                os.unlink(self.fresh_path)  # a reader must not trust the old state any more
            except FileNotFoundError:
                pass
        if self.generation == self.seen + 1:
            self.cond.notify_all()


class _OverflowLog(logging.Handler):
    """watchdog reports a kernel inotify overflow only as a log warning: turn it into a call."""

    def __init__(self, overflowed: Callable[[], None]) -> None:
        super().__init__(logging.WARNING)
        self.overflowed = overflowed

    def emit(self, record: logging.LogRecord) -> None:
        if "overflow" in record.getMessage().lower():
            self.overflowed()


def on_overflow(overflowed: Callable[[], None]) -> None:
    """Call `overflowed` whenever the kernel drops inotify events (then nothing seen since is whole)."""
    handler = _OverflowLog(overflowed)
    for name in ("watchdog.observers.inotify", "watchdog.observers.inotify_c", "watchdog.observers.inotify_buffer"):
        logging.getLogger(name).addHandler(handler)


def change_events() -> list[type]:
    """The event kinds that can mean a change: every kind but opening a file and closing it unwritten.
    Those two are asked of the kernel only when named, so without them reading a tree (a `git status`,
    a capture, a build) queues nothing; with them, one read of an 80,000-file worktree overflowed the
    kernel's queue (16,384 events) and every watcher there lost what it was for."""
    import watchdog.events as ev

    return [
        ev.FileCreatedEvent,
        ev.DirCreatedEvent,
        ev.FileDeletedEvent,
        ev.DirDeletedEvent,
        ev.FileMovedEvent,
        ev.DirMovedEvent,
        ev.FileModifiedEvent,
        ev.DirModifiedEvent,
        ev.FileAttribEvent,
        ev.DirAttribEvent,
        ev.FileClosedEvent,
    ]


def _start_events(root: str, events: _Events, cookies: Cookies | None) -> Callable[[], None]:
    """Start delivering the tree's file events to `events` (cookies first); returns the stop."""
    delay = float(os.environ.get("PYLON_WATCH_EVENT_DELAY") or 0)  # a test knob: events handled late

    def handle(path: str, kind: str) -> None:
        if cookies is not None and cookies.seen(path, kind):
            return
        if delay:
            time.sleep(delay)
        events.hit(path)

    from pylon.workspace.tracking import inotify

    if inotify.available():

        def lost(blind: bool) -> None:
            if blind and cookies is not None:
                cookies.blind = True
            events.overflowed()

        tree = inotify.Tree(root, cookies.dir if cookies is not None else None, handle, lost)
        return tree.stop
    return _start_watchdog(root, events, handle)


def _start_watchdog(root: str, events: _Events, handle: Callable[[str, str], None]) -> Callable[[], None]:
    """Where there is no inotify: watchdog's recursive watch (readers there never trust a vouch,
    watchsync.address)."""
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            if event.event_type in ("opened", "closed_no_write"):
                return
            handle(os.fsdecode(event.src_path), event.event_type)
            dest = getattr(event, "dest_path", "")
            if dest:
                events.hit(os.fsdecode(dest))

    on_overflow(events.overflowed)
    observer = Observer()
    observer.schedule(Handler(), root, recursive=True, event_filter=change_events())
    observer.start()
    return observer.stop


def _vouch(events: _Events, checkout: Checkout, state: st.State) -> None:
    """With events.cond held."""
    write_fresh(checkout, state)
    events.vouched = True


def watch(
    checkout: Checkout,
    emit: Callable[[dict[str, object]], None],
    *,
    ready: Callable[[str], None],
    since: str | None = None,
    timeout: float | None = None,
    settle: float = 0.2,
    limit: int = 200,
) -> dict[str, object]:
    """Watch until `timeout` (or Ctrl-C); `emit` gets one dict per settled batch."""
    queue_max = int(os.environ.get("PYLON_WATCH_QUEUE_MAX") or DEFAULT_QUEUE_MAX)
    pdir = checkout.pylon_dir()
    lock_fd = os.open(os.path.join(pdir, WATCH_LOCK), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fresh_path: str | None = os.path.join(pdir, FRESH)
        os.ftruncate(lock_fd, 0)
        os.pwrite(lock_fd, f"{os.getpid()}\n".encode(), 0)  # who to stop (watchers.py)
    except OSError:
        fresh_path = None  # another watcher vouches for this checkout; this one only reports
    events = _Events(checkout.root, fresh_path, queue_max)
    deadline = None if timeout is None else time.monotonic() + timeout
    batches = 0
    mode = "events"
    stop_events = None
    server = None
    cookies = Cookies(checkout.root, pdir) if fresh_path else None
    try:
        try:
            stop_events = _start_events(checkout.root, events, cookies)
            if cookies is not None:  # readers trust `fresh` only after a sync (watchsync.py)
                server = Server(checkout.git_dir, cookies)
        except OSError as exc:
            mode = f"polling (file events unavailable: {exc.strerror or exc})"
        base = resolve(checkout, since) if since is not None else None
        with events.cond:
            seen = events.seen = events.generation
        previous = st.capture(checkout)
        with events.cond:  # held: an event between the check and the write would be vouched over
            if fresh_path and events.generation == seen:
                _vouch(events, checkout, previous)
        ready(mode)
        if base is not None:
            emit(_batch(checkout, base.tree, previous, base.label, base.tree, limit, overflow=False, initial=True))
        polling = mode != "events"
        while True:
            with events.cond:
                while events.generation == seen:
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= 0:
                        return {"batches": batches, "mode": mode}
                    waits = [w for w in (left, 1.0 if polling else 5.0) if w is not None]
                    events.cond.wait(timeout=min(waits))
                    if _gone(checkout):
                        return {"batches": batches, "mode": mode, "stopped": "checkout removed"}
                    if polling and events.generation == seen:
                        break  # no file events: rescan on every tick
                while events.generation != seen and time.monotonic() - events.last_event < settle:
                    events.cond.wait(timeout=max(0.01, settle - (time.monotonic() - events.last_event)))
                seen = events.seen = events.generation
                overflow = events.overflow
                events.overflow = False
                events.queue.clear()
            if _gone(checkout):
                return {"batches": batches, "mode": mode, "stopped": "checkout removed"}
            current = st.capture(checkout)
            if current.worktree != previous.worktree or overflow or current.head != previous.head:
                emit(
                    _batch(
                        checkout,
                        previous.worktree,
                        current,
                        base.label if base else None,
                        base.tree if base else None,
                        limit,
                        overflow=overflow,
                        initial=False,
                    )
                )
                batches += 1
            previous = current
            with events.cond:
                if fresh_path and events.generation == seen:
                    _vouch(events, checkout, current)
    except KeyboardInterrupt:
        return {"batches": batches, "mode": mode}
    finally:
        if server is not None:
            server.close()
        if stop_events is not None:
            stop_events()
        if fresh_path:
            try:
                os.unlink(fresh_path)
            except FileNotFoundError:
                pass
        os.close(lock_fd)


def _gone(checkout: Checkout) -> bool:
    """The checkout or its git dir was removed (`ws rm` of a worktree whose watcher runs on)."""
    return not (os.path.isdir(checkout.root) and os.path.isdir(checkout.git_dir))


def _batch(
    checkout: Checkout,
    old_tree: str,
    current: st.State,
    since_label: str | None,
    since_tree: str | None,
    limit: int,
    *,
    overflow: bool,
    initial: bool,
) -> dict[str, object]:
    total, shown = listed(checkout, old_tree, current.worktree, limit)
    doc: dict[str, object] = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "files": [e.to_dict() for e in shown],
        "total": total,
        "truncated": len(shown) < total,
        "overflow": overflow,
        "rescanned": True,
        "head": current.head,
        "initial": initial,
    }
    if since_label is not None and since_tree is not None:
        doc["since"] = since_label
        doc["total_since"] = count_changed(checkout, since_tree, current.worktree) if not initial else total
    return doc
