"""What the board keeps between the changes its watcher sees: each worktree's side (its captured
state, the expensive part of `ws list` and `ws conflicts`: every file of the worktree read) and the
two survey documents made from them.

A worktree's side is read again only when the watcher saw a change under that worktree, or in the
git dir (HEAD, the index, refs: they belong to every worktree), since the side was read. A survey
document is kept while no change at all was seen since it began. Nothing is kept until the watcher
watches every root, nor for a root it does not watch, nor while the watcher's thread is not alive,
nor for longer than KEEP_FOR seconds. An inotify overflow counts as a change everywhere (events.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.sides import Side

# Seconds anything is trusted at most, even with no event: a net under the watcher, not the
# mechanism (an overflow already counts as a change everywhere, and a watcher whose thread has
# died keeps nothing). `ws watch`'s vouch, which captures trust, has no age limit at all.
KEEP_FOR = 300.0


class Keeper:
    def __init__(self) -> None:
        # every change seen (the survey documents' key); -1 until the watcher watches every root
        self.generation = -1
        self.watched: frozenset[str] = frozenset()  # the roots watched now
        self.git_dirs: list[str] = []
        self._roots: dict[str, int] = {}  # changes seen under each root
        self._git = 0  # changes seen in the git dir
        self._unwatched_reads = 0  # sides read for a root not watched (a survey using one is not kept)
        self._sides: dict[str, tuple[tuple[int, int], float, Side]] = {}
        self._docs: dict[str, tuple[int, float, dict[str, Any]]] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._locks_lock = threading.Lock()
        self.alive: Callable[[], bool] = lambda: True  # whether the watcher still delivers events

    @property
    def watching(self) -> bool:
        return self.generation >= 0 and self.alive()

    def ready(self, watched: frozenset[str], git_dirs: list[str]) -> None:
        """The watcher is in place over `watched`: from now on every change there is seen."""
        self.watched, self.git_dirs = watched, git_dirs
        self.generation = 0

    def changed(self, path: str) -> None:
        """A change seen at `path` (or everywhere: path "")."""
        if self.generation < 0:
            return
        self.generation += 1
        if not path or any(path == g or path.startswith(g + "/") for g in self.git_dirs):
            self._git += 1
        for root in self.watched:  # every root holding it (a worktree may lie inside the checkout)
            if not path or path == root or path.startswith(root + "/"):
                self._roots[root] = self._roots.get(root, 0) + 1

    def side(self, path: str, reuse: bool = True) -> Side:
        """The side of the worktree at `path`: kept (with `reuse`), or read now (sides.read_side)."""
        from pylon.workspace.sides import read_side

        key = (self._roots.get(path, 0), self._git)
        hit = self._sides.get(path)
        watched = self.watching and path in self.watched
        if reuse and hit is not None and watched and hit[0] == key and time.monotonic() - hit[1] < KEEP_FOR:
            return hit[2]
        if not watched:
            self._unwatched_reads += 1
        side = read_side(path)
        if watched and (self._roots.get(path, 0), self._git) == key:
            self._sides[path] = (key, time.monotonic(), side)
        else:
            self._sides.pop(path, None)
        return side

    def survey(
        self, name: str, make: Callable[[Callable[[str], Side]], dict[str, Any]], fresh: bool = False
    ) -> tuple[dict[str, Any], float]:
        """The survey `name` (agents, conflicts; or a memory answer: lint, stale, coverage, which
        ignore the reader): kept while nothing changed since it began, else made now by
        `make(side_reader)` (every side read anew with `fresh`). One at a time per name: a page
        opened during a survey waits for it instead of starting a second one.
        Returns (document, its age in seconds: 0 when made for this call)."""
        with self._locks_lock:
            lock = self._locks.setdefault(name, threading.Lock())
        with lock:
            generation, hit = self.generation, self._docs.get(name)
            if (
                not fresh
                and hit is not None
                and self.watching
                and hit[0] == generation
                and time.monotonic() - hit[1] < KEEP_FOR
            ):
                return hit[2], time.monotonic() - hit[1]
            unwatched = self._unwatched_reads
            doc = make((lambda path: self.side(path, reuse=False)) if fresh else self.side)
            if self.watching and self.generation == generation and self._unwatched_reads == unwatched:
                self._docs[name] = (generation, time.monotonic(), doc)
            else:
                self._docs.pop(name, None)
            return doc, 0.0
