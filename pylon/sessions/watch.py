"""`pylon sessions --watch`: the sessions again whenever the clients write, as changes.

watchdog (imported here only) watches the folders the clients write a session's life into: Claude
Code's `projects/` (its transcripts) and `sessions/` (its running sessions), Codex's `sessions/`,
`archived_sessions/` and `thread-writer-locks/`, pylon's hook marks, and the client folders
themselves (non-recursively, so a folder made later is seen). After a change and DEBOUNCE seconds
of quiet the sessions are collected again (incrementally: cache.py) and each session whose
document changed is yielded; TICK seconds without a change collect anyway, since a phase also
changes with time (a client killed without a trace, a stale turn).
"""

from __future__ import annotations

import os
import threading
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from pylon.sessions.where import Places

DEBOUNCE = 0.3
TICK = 30.0


def _folders() -> list[tuple[str, bool]]:
    from pylon.sessions import claude, codex, marks

    wanted: list[tuple[str, bool]] = []
    for home in claude.config_dirs():
        wanted += [(home, False), (os.path.join(home, "projects"), True), (os.path.join(home, "sessions"), False)]
    home = codex.home()
    wanted += [
        (home, False),
        (os.path.join(home, "sessions"), True),
        (os.path.join(home, "archived_sessions"), True),
        (os.path.join(home, "thread-writer-locks"), False),
        (marks.folder(), False),
    ]
    return [(folder, deep) for folder, deep in wanted if os.path.isdir(folder)]


def watch(places: Places | None, *, timeout: float | None = None) -> Iterator[dict[str, Any]]:
    """`{"event": "ready", "sessions": [...]}` first, then `{"event": "session", "session": doc}`
    for each new or changed session and `{"event": "gone", "id": ...}`, until `timeout`."""
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    from pylon.sessions.collect import collect

    changed = threading.Event()

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: Any) -> None:
            if event.event_type not in ("opened", "closed_no_write"):
                changed.set()

    observer = Observer()
    watched: set[str] = set()

    def schedule() -> None:
        for folder, deep in _folders():
            if folder not in watched:
                try:
                    observer.schedule(Handler(), folder, recursive=deep)
                    watched.add(folder)
                except OSError:
                    continue

    schedule()
    observer.start()
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        shown = {_key(d): d for d in (s.to_doc() for s in collect(places))}
        yield {"event": "ready", "sessions": list(shown.values())}
        while True:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return
            if changed.wait(TICK if left is None else min(TICK, left)):
                while changed.is_set():  # quiet for DEBOUNCE seconds before reading
                    changed.clear()
                    time.sleep(DEBOUNCE)
            schedule()  # a client folder made since
            now = {_key(d): d for d in (s.to_doc() for s in collect(places))}
            for key, doc in now.items():
                if shown.get(key) != doc:
                    yield {"event": "session", "session": doc}
            for key in shown.keys() - now.keys():
                yield {"event": "gone", "client": key[0], "id": key[1]}
            shown = now
    finally:
        observer.stop()
        observer.join(timeout=5)


def _key(doc: dict[str, Any]) -> tuple[str, str]:
    return str(doc["client"]), str(doc["id"])
