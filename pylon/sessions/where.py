"""Which of this repository's worktrees a session ran in: the checkout itself, pylon's owned
worktrees (by their id), Claude Code's own (`<checkout>/.claude/worktrees/<name>`, even once
removed), Codex's (`$CODEX_HOME/worktrees/...`) and any other `git worktree add`, all from one
`git worktree list` (through the owned-worktree survey, which also proves pylon's ids)."""

from __future__ import annotations

import os

CHECKOUT, PYLON, CLAUDE, CODEX, GIT = "checkout", "pylon", "claude", "codex", "git"


class Place:
    __slots__ = ("root", "kind", "id")

    def __init__(self, root: str, kind: str, worktree_id: str | None = None) -> None:
        self.root, self.kind, self.id = root, kind, worktree_id

    @property
    def name(self) -> str:
        """How a person names it: pylon's id, `checkout`, or the worktree folder's name."""
        return self.id or (CHECKOUT if self.kind == CHECKOUT else os.path.basename(self.root))


class Places:
    """Every worktree of the repository, matched against a session's working folder."""

    def __init__(self, main_root: str, places: list[Place]) -> None:
        self.main_root = main_root
        self.places = places
        self._claude = os.path.join(main_root, ".claude", "worktrees")
        self._keys = [(p, _forms(p.root)) for p in places]

    def of(self, cwd: str) -> Place | None:
        """The worktree `cwd` lies in (the deepest one: worktrees may sit inside the checkout)."""
        if not cwd:
            return None
        forms = _forms(cwd)
        best: tuple[int, Place] | None = None
        for form in forms:
            for place, roots in self._keys:
                for root in roots:
                    if (form == root or form.startswith(root.rstrip(os.sep) + os.sep)) and (
                        best is None or len(root) > best[0]
                    ):
                        best = (len(root), place)
        if best is None or best[1].kind == CHECKOUT:
            for form in forms:
                name = _under(form, self._claude)
                if name is not None:  # a Claude Code worktree git no longer lists
                    return Place(os.path.join(self._claude, name), CLAUDE)
        return best[1] if best else None


def _forms(path: str) -> list[str]:
    normal = os.path.normpath(path)
    real = os.path.realpath(normal)
    return [normal] if real == normal else [normal, real]


def _under(path: str, folder: str) -> str | None:
    """The first folder name below `folder` on `path`, or None when `path` is not under it."""
    prefix = folder.rstrip(os.sep) + os.sep
    if not path.startswith(prefix):
        return None
    name = path[len(prefix) :].split(os.sep, 1)[0]
    return name or None


def places(cwd: str, codex_home: str) -> Places:
    """The worktrees of the repository around `cwd` (`not-a-git-checkout` outside one)."""
    from pylon.workspace.repo import locate
    from pylon.workspace.worktrees.owned import survey

    checkout = locate(cwd)
    found = survey(checkout)
    owned = {os.path.realpath(o.path): o.id for o in found.owned.values()}
    main = found.main_root
    claude = os.path.join(main, ".claude", "worktrees") + os.sep
    codex = os.path.join(codex_home, "worktrees") + os.sep
    listed = [Place(main, CHECKOUT)]
    for entry in found.entries:
        path = entry.path
        if entry.bare or os.path.normpath(path) == os.path.normpath(main):
            continue
        worktree_id = owned.get(os.path.realpath(path))
        kind = PYLON if worktree_id else CLAUDE if path.startswith(claude) else CODEX if path.startswith(codex) else GIT
        listed.append(Place(path, kind, worktree_id))
    return Places(main, listed)
