"""Worktrees that left pylon's ownership, for the board: `ws list` only counts foreign worktrees
(owned.py never lists them as owned), but a session whose branch was switched, whose record no
longer matches what git says, or an agent's plain `git worktree add` still holds work that can
collide with the others. The board shows each as such, and compares those it can.

A foreign worktree is compared when git lists it as a live worktree of this repository and a base
for its changes is known: its record's baseline while its HEAD still descends from it (a session
that switched to a branch of its own), else where its HEAD and the main checkout's meet (a plain
`git worktree add`, or a session moved to unrelated history). Nothing here changes anything.
"""

from __future__ import annotations

import os

from pylon.workspace import git
from pylon.workspace.repo import Checkout
from pylon.workspace.sides import Side, dirty
from pylon.workspace.worktrees.owned import GitWorktree, Survey


class Departed:
    """One foreign worktree (or foreign folder in pylon's root) as the board shows it. `label` names
    it in the conflicts document: its id when a record names it, else its path."""

    __slots__ = ("id", "path", "why", "resolve", "entry", "baseline")

    def __init__(self, item: dict[str, str], entry: GitWorktree | None) -> None:
        self.id = item.get("id", "")
        self.path = item.get("path", "")
        self.why = item.get("why", "")
        self.resolve = item.get("resolve", "")
        self.entry = entry  # git's live worktree at `path`, or None (not a worktree, gone, prunable)
        self.baseline: str | None = None  # the base its changes are counted from; None: not compared

    @property
    def label(self) -> str:
        return self.id or self.path

    @property
    def branch(self) -> str | None:
        branch = self.entry.branch if self.entry else None
        return branch.removeprefix("refs/heads/") if branch else None

    def row(self, side: Side | None) -> dict[str, object]:
        tracked, untracked = dirty(side) if side is not None else (None, None)
        return {"id": self.id, "label": self.label, "path": self.path, "why": self.why, "resolve": self.resolve,
                "branch": self.branch, "head": self.entry.head if self.entry else None,
                "baseline": self.baseline, "compared": self.baseline is not None,
                "dirty": None if tracked is None or untracked is None else
                {"tracked": len(tracked), "untracked": len(untracked)}}


def departed(checkout: Checkout, info: Survey) -> list[Departed]:
    """Every foreign item of the survey, each with git's live worktree at its path and a base."""
    live = {os.path.realpath(e.path): e for e in info.entries[1:]
            if not e.prunable and not e.bare and e.head and os.path.isdir(e.path)}
    found = [Departed(item, live.get(os.path.realpath(item["path"])) if item.get("path") else None)
             for item in info.foreign]
    main_head = info.entries[0].head if info.entries and not info.entries[0].bare else None
    for one in found:
        if one.entry is not None:
            one.baseline = _base(checkout, one, info, main_head)
    return found


def _base(checkout: Checkout, one: Departed, info: Survey, main_head: str | None) -> str | None:
    assert one.entry is not None and one.entry.head
    head = one.entry.head
    record = info.records.get(one.id) if one.id else None
    recorded = str(record.get("baseline") or "") if record else ""
    if recorded:
        code, _, _ = git.run_full(["merge-base", "--is-ancestor", recorded, head], cwd=checkout.root)
        if code == 0:
            return recorded
    if not main_head:
        return None
    code, out, _ = git.run_full(["merge-base", head, main_head], cwd=checkout.root)
    if code != 0:
        return None  # no history in common with the checkout
    return out.decode().strip() or None
