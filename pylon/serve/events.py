"""Live updates: a file-system watcher (watchdog, the one `ws watch` uses) over the checkout, its
owned worktrees and the op refs, debounced into one event per settled batch, fanned out to every
open page as server-sent events. Pages refetch only what an event names: no polling.

Ignored: git's object store and pylon's own scratch files under the git dir (a capture writes its
private index; reacting to that would loop). Kept: refs (ops, baselines, guard snapshots, branches),
HEAD and the real index, everything in the working trees, and `.canon/` (the memory views).
"""

from __future__ import annotations

import os
import queue
import threading
import time
from typing import Any

DEBOUNCE = 0.3  # seconds of quiet before a batch is announced
_GIT_KEEP = ("refs/", "HEAD", "index", "packed-refs", "logs/refs/pylon/")
# Refs a capture moves to anchor what it read (workspace/refs.py `current_ref`): written by readers,
# the board's own included, so they announce nothing (reacting to them would reload twice per change).
_READER_REFS = ("/current",)


class Broker:
    """Subscribers (one queue per open event stream) and the batch being gathered."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queues: list[queue.Queue[dict[str, object] | None]] = []
        self._pending: dict[str, int] = {}
        self._timer: threading.Timer | None = None
        self.sent = 0

    def subscribe(self) -> queue.Queue[dict[str, object] | None]:
        q: queue.Queue[dict[str, object] | None] = queue.Queue(maxsize=100)
        with self._lock:
            self._queues.append(q)
        return q

    def unsubscribe(self, q: queue.Queue[dict[str, object] | None]) -> None:
        with self._lock:
            if q in self._queues:
                self._queues.remove(q)

    def note(self, kind: str) -> None:
        """One change of `kind` (workspace or memory); announced after DEBOUNCE of quiet."""
        with self._lock:
            self._pending[kind] = self._pending.get(kind, 0) + 1
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(DEBOUNCE, self.flush)
            self._timer.daemon = True
            self._timer.start()

    def flush(self) -> None:
        with self._lock:
            batch, self._pending, self._timer = self._pending, {}, None
            if batch:
                self.sent += 1
        if batch:
            self.publish({"kinds": sorted(batch), "changes": sum(batch.values()), "time": time.time()})

    def publish(self, event: dict[str, object] | None) -> None:
        with self._lock:
            queues = list(self._queues)
        for q in queues:
            try:
                q.put_nowait(event)
            except queue.Full:
                pass  # a stalled page misses a batch; its next one refetches everything it shows

    def close(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
        self.publish(None)  # ends every open stream


def classify(path: str, git_dirs: list[str], folder: bool = False) -> str | None:
    """`workspace`, `memory` or None (ignored) for a changed path (`folder`: the path is a folder)."""
    for git_dir in git_dirs:
        if path == git_dir or path.startswith(git_dir + os.sep):
            rel = path[len(git_dir) + 1 :]
            if rel.startswith("worktrees" + os.sep):  # a linked worktree's admin folder: its HEAD, index
                rel = rel.split(os.sep, 2)[2] if rel.count(os.sep) >= 2 else ""
            if folder or rel.endswith(".lock") or rel.startswith("refs/pylon/") and rel.endswith(_READER_REFS):
                return None  # inside git only files count; a reader's anchor ref is no change
            return "workspace" if rel.startswith(_GIT_KEEP) else None
    if os.sep + ".git" + os.sep in path:
        return None
    if os.sep + ".canon" + os.sep in path:
        return None if os.sep + ".cache" + os.sep in path else "memory"
    return "workspace"


class Watcher:
    """watchdog observers over the folders of `roots`; `refresh(roots)` follows new worktrees."""

    def __init__(self, broker: Broker, git_dirs: list[str], on_change: Any = None) -> None:
        self.broker = broker
        self.git_dirs = git_dirs
        self.on_change = on_change  # on_change(kind, path) for each change as it is seen (before the debounce)
        self._observer: Any = None
        self._watched: dict[str, Any] = {}
        self._lock = threading.Lock()

    def start(self, roots: list[str]) -> None:
        from watchdog.observers import Observer

        from pylon.workspace.tracking.watch import on_overflow

        on_overflow(self.overflowed)
        self._observer = Observer()
        self._observer.daemon = True
        self._observer.start()
        self.refresh(roots)

    def overflowed(self) -> None:
        """The kernel dropped events: whatever they were, every view may be out of date."""
        for kind in ("workspace", "memory"):
            if self.on_change is not None:
                self.on_change(kind, "")  # "": anywhere
            self.broker.note(kind)

    def refresh(self, roots: list[str]) -> None:
        from watchdog.events import FileSystemEventHandler

        from pylon.workspace.tracking.watch import change_events

        watcher = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: Any) -> None:
                if event.event_type in ("opened", "closed", "closed_no_write") or (
                    event.is_directory and event.event_type == "modified"
                ):
                    return  # a folder's "modified" repeats the event of the file inside it
                for raw in (event.src_path, getattr(event, "dest_path", "")):
                    path = os.fsdecode(raw) if raw else ""
                    kind = classify(path, watcher.git_dirs, event.is_directory) if path else None
                    if kind is not None:
                        if watcher.on_change is not None:
                            watcher.on_change(kind, path)
                        watcher.broker.note(kind)

        with self._lock:
            if self._observer is None:
                return
            for root in roots:
                if root not in self._watched and os.path.isdir(root):
                    try:
                        self._watched[root] = self._observer.schedule(
                            Handler(), root, recursive=True, event_filter=change_events()
                        )
                    except OSError:
                        pass  # inotify limits: the page still refreshes on its own actions
            for root in [r for r in self._watched if r not in roots]:
                self._observer.unschedule(self._watched.pop(root))

    def alive(self) -> bool:
        """Whether events are still delivered (the observer's thread runs)."""
        observer = self._observer
        return observer is not None and observer.is_alive()

    def covered(self) -> frozenset[str]:
        """The roots watched now (a root whose watch failed, on inotify limits, is not among them)."""
        with self._lock:
            return frozenset(self._watched) if self._observer is not None else frozenset()

    def stop(self) -> None:
        with self._lock:
            if self._observer is not None:
                self._observer.stop()
                self._observer.join(timeout=5)
                self._observer = None
