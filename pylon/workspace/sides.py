"""The current state of one worktree (an owned one or the main checkout) and what is dirty in it.

Reuses the checkout-state capture (current.py: a live `ws watch` when it vouches, else a capture on
the worktree's own private index, whose stat data and untracked cache stay warm between calls),
so reading a worktree never writes its index or takes its `index.lock`. Several worktrees are
read in parallel threads: each capture is mostly waiting on git processes.
"""

from __future__ import annotations

import os

from pylon.workspace import git
from pylon.workspace.commits import State
from pylon.workspace.repo import EMPTY_TREE, Checkout, locate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import TypeVar

    Item = TypeVar("Item")
    Result = TypeVar("Result")


class Side:
    """A worktree's captured state: its checkout, the State, HEAD's tree."""

    __slots__ = ("checkout", "state", "source", "head_tree")

    def __init__(self, checkout: Checkout, state: State, source: str, head_tree: str) -> None:
        self.checkout, self.state, self.source, self.head_tree = checkout, state, source, head_tree


def read_side(path: str) -> Side:
    from pylon.workspace.current import current_state

    checkout = locate(path)
    state, source = current_state(checkout)
    head_tree = EMPTY_TREE
    if state.head:
        head_tree = git.run(["rev-parse", state.head + "^{tree}"], cwd=checkout.root).decode().strip()
    return Side(checkout, state, source, head_tree)


def parallel(items: Iterable[Item], work: Callable[[Item], Result], jobs: int | None = None) -> list[Result]:
    """work(item) for every item, in threads (git does the work; Python waits), results in order.
    The first exception is raised after every thread has finished."""
    todo = list(items)
    if len(todo) <= 1:
        return [work(item) for item in todo]
    from concurrent.futures import ThreadPoolExecutor

    workers = jobs or max(2, min(8, (os.cpu_count() or 2) * 2))
    with ThreadPoolExecutor(max_workers=min(workers, len(todo))) as pool:
        futures = [pool.submit(work, item) for item in todo]
    return [f.result() for f in futures]


def names(raw: bytes) -> list[str]:
    return [p for p in raw.decode("utf-8", "surrogateescape").split("\0") if p]


def dirty(side: Side) -> tuple[list[str], list[str]]:
    """(tracked paths with staged or unstaged changes, untracked paths), sorted, like git status."""
    state, root = side.state, side.checkout.root
    if state.index_tree is None:  # unmerged index: no tree to compare, ask git status
        out = git.run(["status", "--porcelain", "-z", "-unormal"], cwd=root)
        tracked: list[str] = []
        untracked: list[str] = []
        for rec in names(out):
            (untracked if rec.startswith("??") else tracked).append(rec[3:])
        return sorted(set(tracked)), sorted(untracked)
    staged = git.start(["diff-tree", "-r", "--name-only", "-z", side.head_tree, state.index_tree], cwd=root)
    code, out, err = git.start(
        ["diff-tree", "-r", "--name-status", "--no-renames", "-z", state.index_tree, state.worktree], cwd=root
    ).wait()
    if code != 0:
        raise git.failure(["diff-tree"], code, err)
    fields = names(out)
    unstaged, untracked = set(), []
    for status, path in zip(fields[0::2], fields[1::2]):
        if status == "A":
            untracked.append(path)
        else:
            unstaged.add(path)
    code, out, err = staged.wait()
    if code != 0:
        raise git.failure(["diff-tree"], code, err)
    return sorted(unstaged | set(names(out))), sorted(untracked)


def changed_since(checkout: Checkout, base: str, tree: str) -> list[str]:
    """Paths that differ between two tree-ish objects (no rename detection)."""
    out = git.run(["diff-tree", "-r", "--name-only", "--no-renames", "-z", base, tree], cwd=checkout.root)
    return names(out)
