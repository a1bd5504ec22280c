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
    from pylon.workspace.current import current_state, refresh_head

    checkout = locate(path)
    state, source = current_state(checkout)
    if source == "watch":  # HEAD can move with no file event in the checkout (a commit, a reset --soft)
        state = refresh_head(checkout, state)
    head_tree = state.head_tree if state.head else EMPTY_TREE
    if head_tree is None:
        head_tree = git.run(["rev-parse", str(state.head) + "^{tree}"], cwd=checkout.root).decode().strip()
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
    if side.state.index_tree is None:
        return unmerged_dirty(side)
    staged, unstaged = tree_diffs(
        side.checkout, [(side.head_tree, side.state.index_tree), (side.state.index_tree, side.state.worktree)]
    )
    return dirty_from(staged, unstaged)


def unmerged_dirty(side: Side) -> tuple[list[str], list[str]]:
    """dirty() of a side whose index is unmerged: no index tree to compare, so ask git status."""
    out = git.run(["status", "--porcelain", "-z", "-unormal"], cwd=side.checkout.root)
    tracked: list[str] = []
    untracked: list[str] = []
    for rec in names(out):
        (untracked if rec.startswith("??") else tracked).append(rec[3:])
    return sorted(set(tracked)), sorted(untracked)


def dirty_from(staged: list[tuple[str, str]], unstaged: list[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """dirty() from the two tree diffs HEAD -> index and index -> working tree: what the working
    tree adds to the index is untracked, everything else is a tracked change."""
    changed = {path for _, path in staged}
    untracked = []
    for status, path in unstaged:
        if status == "A":
            untracked.append(path)
        else:
            changed.add(path)
    return sorted(changed), sorted(untracked)


def tree_diffs(checkout: Checkout, pairs: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """[(status, path), ...] for each (old tree, new tree) pair, no rename detection, from one
    `git diff-tree --stdin` for all of them (a pair of equal trees costs nothing).

    With --stdin git echoes each input line ("<old> <new>\n") before that pair's records, also when
    they are empty, so the output is split on the headers it was sent, in order."""
    results: list[list[tuple[str, str]]] = [[] for _ in pairs]
    todo = [i for i, (a, b) in enumerate(pairs) if a != b]
    if not todo:
        return results
    lines = [f"{pairs[i][0]} {pairs[i][1]}\n".encode() for i in todo]
    out = git.run(
        ["diff-tree", "--stdin", "-r", "--name-status", "--no-renames", "-z"], cwd=checkout.root, input=b"".join(lines)
    )
    pos = 0
    for i, header in zip(todo, lines):
        if not out.startswith(header, pos):
            raise git.failure(["diff-tree", "--stdin"], 0, b"unexpected output for " + header.strip())
        pos += len(header)
        found = results[i]
        # records are "<status>\0<path>\0"; a status is an upper-case letter, a header a hex digit
        while pos < len(out) and 65 <= out[pos] <= 90:
            end = out.index(b"\0", pos)
            status = out[pos:end].decode()
            stop = out.index(b"\0", end + 1)
            found.append((status, out[end + 1 : stop].decode("utf-8", "surrogateescape")))
            pos = stop + 1
    return results


def peel_trees(checkout: Checkout, revs: list[str]) -> list[str]:
    """The tree of each commit-ish, from one `git cat-file --batch-check`."""
    if not revs:
        return []
    data = "".join(f"{r}^{{tree}}\n" for r in revs).encode()
    out = git.run(["cat-file", "--batch-check=%(objectname) %(objecttype)"], cwd=checkout.root, input=data)
    trees = []
    for rev, line in zip(revs, out.decode().splitlines()):
        oid, _, kind = line.partition(" ")
        if kind != "tree":
            raise git.failure(["cat-file", "--batch-check"], 128, f"{rev}: not a commit or tree".encode())
        trees.append(oid)
    return trees


def changed_since(checkout: Checkout, base: str, tree: str) -> list[str]:
    """Paths that differ between two tree-ish objects (no rename detection)."""
    out = git.run(["diff-tree", "-r", "--name-only", "--no-renames", "-z", base, tree], cwd=checkout.root)
    return names(out)
