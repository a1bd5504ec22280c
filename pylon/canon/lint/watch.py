"""`canon watch`: re-lint what changes under `.canon/`, as it changes.

watchdog (imported here only) watches the `.canon/` folder tree, not single files, so an editor
that saves by writing a temp file and renaming it over the article (vim, JetBrains, most
atomic savers) is seen as a move onto the article's name and re-linted like any write. Events
are collected until the store has been quiet for `debounce` seconds; then each changed article
is linted on its own (`lint_article`), each changed journal entry with the journal rules, and a
change of `schema.json` or `config.toml` re-lints the whole store. Yields one dict per result:
`{"event": "ready"|"finding"|"clean"|"removed", ...}`.
"""

from __future__ import annotations

import os
import threading
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from watchdog.events import FileSystemEvent
    from watchdog.observers.api import BaseObserver

    from pylon.canon.lint.committed import Committed
    from pylon.canon.store import Project

_WHOLE_STORE = ("schema.json", "config.toml")


def _ignored(name: str) -> bool:
    # Temp files of pylon's own atomic writes and of editors; never articles.
    return (
        ".pylon-tmp-" in name
        or name.endswith(("~", ".swp", ".swx", ".tmp", ".part"))
        or name == "4913"
        or name.startswith(".#")
    )


class _Queue:
    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.paths: set[str] = set()
        self.last = 0.0

    def hit(self, path: str) -> None:
        with self.cond:
            self.paths.add(path)
            self.last = time.monotonic()
            self.cond.notify_all()

    def take(self, debounce: float, deadline: float | None) -> set[str] | None:
        """The paths of the next quiet batch; None at the deadline."""
        with self.cond:
            while True:
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    return None
                if self.paths and now - self.last >= debounce:
                    batch, self.paths = self.paths, set()
                    return batch
                wait = debounce - (now - self.last) if self.paths else 0.5
                if deadline is not None:
                    wait = min(wait, deadline - now)
                self.cond.wait(max(wait, 0.005))


def _observer(canon_dir: str, queue: _Queue) -> BaseObserver:
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    cache = os.path.join(canon_dir, ".cache")
    probe = os.path.join(cache, f".watch-probe-{os.getpid()}")
    live = threading.Event()

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            if os.fsdecode(event.src_path) == probe:
                live.set()
            if event.event_type in ("opened", "closed_no_write") or event.is_directory:
                return
            for raw in (event.src_path, getattr(event, "dest_path", "")):
                path = os.fsdecode(raw) if raw else ""
                if path and not path.startswith(cache + os.sep) and not _ignored(os.path.basename(path)):
                    queue.hit(path)

    observer = Observer()
    observer.schedule(Handler(), canon_dir, recursive=True)
    observer.start()
    _wait_live(probe, live)
    return observer


def _wait_live(probe: str, live: threading.Event) -> None:
    """Return once the observer delivers events: watchdog adds its kernel watches in its own
    thread, so a change made right after start() could otherwise go unseen. A probe file in the
    derived `.cache/` is touched until its event arrives (at most ~2 s)."""
    try:
        os.makedirs(os.path.dirname(probe), exist_ok=True)
        for _ in range(40):
            with open(probe, "w"):
                pass
            if live.wait(0.05):
                break
    except OSError:
        time.sleep(0.3)  # no writable cache folder: give the observer a moment instead
    finally:
        try:
            os.unlink(probe)
        except OSError:
            pass


def watch(
    project: Project, *, timeout: float | None = None, debounce: float = 0.2, committed: Committed | None = None
) -> Iterator[dict[str, Any]]:
    """Yield lint results for what changes under `.canon/` until `timeout` (or Ctrl-C)."""
    from pylon.canon.lint import _no_store

    store = project.store
    if not store.exists():
        raise _no_store(project)
    canon_dir = os.path.realpath(store.canon_dir)
    queue = _Queue()
    observer = _observer(canon_dir, queue)
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        yield {"event": "ready", "store": store.canon_dir}
        while True:
            batch = queue.take(debounce, deadline)
            if batch is None:
                return
            yield from _relint(project, canon_dir, sorted(batch), committed)
    finally:
        observer.stop()
        observer.join(timeout=5)


def _relint(
    project: Project, canon_dir: str, paths: list[str], committed: Committed | None
) -> Iterator[dict[str, Any]]:
    from pathlib import Path

    from pylon.canon.address import Address
    from pylon.canon.lint import lint, lint_article
    from pylon.canon.lint.context import repo_base

    base = str(repo_base(Path(project.root_dir)))
    articles = os.path.join(canon_dir, "articles") + os.sep
    journal = os.path.join(canon_dir, "journal") + os.sep

    def rel(path: str) -> str:
        real = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
        return os.path.relpath(real, os.path.realpath(base)).replace(os.sep, "/")

    if any(os.path.basename(p) in _WHOLE_STORE and os.path.dirname(p) == canon_dir for p in paths):
        report = lint(project, committed=committed)
        for finding in report.findings:
            yield {"event": "finding", "file": finding.path, **_finding(finding)}
        if not report.findings:
            yield {"event": "clean", "file": rel(os.path.join(canon_dir, "schema.json"))}
        return
    for path in paths:
        if not path.endswith(".md"):
            continue
        if not os.path.lexists(path):
            yield {"event": "removed", "file": rel(path)}
            continue
        if path.startswith(articles):
            findings = lint_article(project, Address(None, path[len(articles) : -3].replace(os.sep, "/")))
        elif path.startswith(journal) and os.path.dirname(path) + os.sep == journal:
            findings = lint(project, [path], committed=committed).findings
        else:
            continue
        for finding in findings:
            yield {"event": "finding", "file": finding.path, **_finding(finding)}
        if not findings:
            yield {"event": "clean", "file": rel(path)}


def _finding(finding: Any) -> dict[str, Any]:
    return {"line": finding.line, "severity": finding.severity, "rule": finding.rule, "message": finding.message}
