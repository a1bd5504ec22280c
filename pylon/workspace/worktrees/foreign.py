"""Worktrees pylon did not make, in the picture: who made them, where they forked, what they lack.

`ws list`, `ws conflicts`, the board and the write-time check (clash.py) read every live worktree
of the repository, not only the owned ones: those an agent client made itself (Claude Code under
`<checkout>/.claude/worktrees/<name>`, Codex under `$CODEX_HOME/worktrees/<bucket>/<repo>`) and
plain `git worktree add` ones. They are read-only for pylon: read through the same capture as an
owned worktree (a private index; never their files, index or branch), never changed or removed.
Their base, for "what they changed", is where they forked from the main checkout's HEAD (the
merge base of the two HEADs). The owners are told apart by path, the one thing each client fixes.
"""

from __future__ import annotations

import os

from pylon.workspace import git
from pylon.workspace.repo import Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.worktrees.owned import Survey


class Other:
    """A live worktree that is not pylon's: where, who made it, its label in reports."""

    __slots__ = ("path", "head", "branch", "made_by", "label", "base")

    def __init__(self, path: str, head: str | None, branch: str | None, made_by: dict[str, str]) -> None:
        self.path, self.head, self.branch, self.made_by = path, head, branch, made_by
        client, name = made_by["client"], made_by.get("name", "")
        self.label = f"{client}:{name}" if client != "git" else f"git:{path}"  # pylon:ID for a failed proof
        self.base = ""  # the merge base with the main checkout's HEAD (filled by bases())

    def to_dict(self) -> dict[str, object]:
        return {
            "label": self.label,
            "path": self.path,
            "branch": (self.branch or "").removeprefix("refs/heads/") or None,
            "head": self.head,
            "made_by": self.made_by,
            "owned": False,
        }


def codex_homes() -> list[str]:
    """Where Codex keeps its worktrees: `$CODEX_HOME` (as set) and `~/.codex`, as real paths."""
    found = []
    for home in (os.environ.get("CODEX_HOME"), os.path.join(os.path.expanduser("~"), ".codex")):
        if home:
            real = os.path.realpath(home)
            if real not in found:
                found.append(real)
    return found


def made_by(path: str) -> dict[str, str]:
    """Who made the worktree at `path`: claude-code (`.claude/worktrees/NAME`), codex
    (`$CODEX_HOME/worktrees/BUCKET/REPO`) or git (anything else)."""
    real = os.path.realpath(path)
    marker = os.sep + os.path.join(".claude", "worktrees") + os.sep
    if marker in real + os.sep:
        name = real.split(marker, 1)[1].strip(os.sep) or os.path.basename(real)
        from pylon.workspace.worktrees.clients import purpose_of

        return {"client": "claude-code", "name": name, "purpose": purpose_of(name.split(os.sep)[0])}
    for home in codex_homes():
        folder = os.path.join(home, "worktrees") + os.sep
        if real.startswith(folder):
            return {"client": "codex", "name": real[len(folder) :], "purpose": "session"}
    return {"client": "git", "name": os.path.basename(real)}


def others(survey: Survey, checkout: Checkout) -> list[Other]:
    """The live worktrees (folder present, not prunable) that are neither the main checkout, nor
    owned, nor a half-made or unresolved one of pylon's records, and whose folder is, on disk, that
    worktree of this repository (its `.git` file names an admin folder here that names it back:
    another repository moved onto the path is never read)."""
    mine = {os.path.realpath(o.path) for o in survey.owned.values()}
    mine |= {os.path.realpath(str(r.get("path") or "")) for r in (*survey.pending.values(), *survey.stale.values())}
    bound = {os.path.realpath(f["path"]): f for f in survey.foreign if f.get("id") and f.get("path")}
    found = []
    for entry in survey.entries[1:]:
        real = os.path.realpath(entry.path)
        if entry.prunable or entry.bare or real in mine or not _ours(checkout, entry.path):
            continue
        who = made_by(entry.path)
        if real in bound:  # a worktree of pylon's that fails its proof (moved, relocked, switched): `ws prune` says why
            who = {"client": "pylon", "name": bound[real]["id"], "why": bound[real]["why"]}
        found.append(Other(entry.path, entry.head, entry.branch, who))
    return found


def _ours(checkout: Checkout, path: str) -> bool:
    from pylon.workspace.worktrees.proof import admin_dir_of, named_by

    if os.path.islink(path) or not os.path.isdir(path) or not os.path.isfile(os.path.join(path, ".git")):
        return False
    admin = admin_dir_of(path)
    home = os.path.realpath(os.path.join(checkout.common_dir, "worktrees"))
    named = named_by(admin) if admin else None
    return (
        admin is not None
        and os.path.realpath(os.path.dirname(admin)) == home
        and named is not None
        and os.path.realpath(named) == os.path.realpath(os.path.join(path, ".git"))
    )


def bases(checkout: Checkout, items: list[Other], main_head: str | None) -> None:
    """Each worktree's base: the merge base of its HEAD with the main checkout's (its own HEAD
    when they share no history, or the main checkout has no commit)."""
    for item in items:
        item.base = item.head or ""
        if item.head and main_head and item.head != main_head:
            out = git.run(["merge-base", item.head, main_head], cwd=checkout.root, ok=(0, 1)).decode().strip()
            item.base = out or item.head


def lacking(root: str) -> str:
    """For a session starting in the linked worktree `root` that pylon did not make: a note of
    what it lacks of the main checkout (local commits, uncommitted paths, the canon store) and,
    while it is still where it forked, the one command that brings the person's current state in
    (a fast-forward to the baseline `ws new` would start from). "" when it lacks nothing."""
    from pylon.workspace.repo import locate
    from pylon.workspace.worktrees import owned

    here = locate(root)
    info = owned.survey(here)
    if any(owned.same_path(o.path, root) for o in info.owned.values()) or owned.same_path(info.main_root, root):
        return ""
    main = locate(info.main_root)
    head = _head(here)
    main_head = _head(main)
    from pylon.workspace.worktrees.new import baseline_commit

    baseline, _start, base_info = baseline_commit(main)
    missing = 0
    if head and main_head and head != main_head:
        out = git.run(["rev-list", "--count", f"{head}..{main_head}"], cwd=main.root, ok=(0, 128)).decode().strip()
        missing = int(out or 0)
    dirty_paths: list[str] = []
    if base_info["dirty"] and main_head:
        names = git.run(["diff-tree", "-r", "-z", "--name-only", "--no-renames", main_head, baseline], cwd=main.root)
        # other worktrees inside the main checkout (Claude Code's `.claude/worktrees/`, this one) are
        # not the person's work, though a capture records them (as git add would: gitlinks)
        inside = [
            os.path.relpath(e.path, info.main_root)
            for e in info.entries[1:]
            if owned.same_path(
                os.path.commonpath([os.path.realpath(e.path), os.path.realpath(info.main_root)]), info.main_root
            )
        ]
        dirty_paths = [
            p
            for p in names.decode("utf-8", "surrogateescape").split("\0")
            if p and not any(p == i or p.startswith(i + "/") for i in inside)
        ]
    if not missing and not dirty_paths:
        return ""
    who = made_by(root)
    whose = {"claude-code": "a Claude Code worktree", "codex": "a Codex worktree"}.get(who["client"], "a git worktree")
    parts = []
    if missing:
        from pylon.findroot import find_root

        branch = find_root(info.main_root)[1] or "the main checkout's HEAD"
        parts.append(f"{missing} local commit(s) of {branch}")
    if dirty_paths:
        parts.append(f"{len(dirty_paths)} uncommitted path(s) of the main checkout {info.main_root}")
    canon = [p for p in dirty_paths if p == ".canon" or p.startswith(".canon/")]
    if not os.path.isdir(os.path.join(root, ".canon")) and (
        canon or os.path.isdir(os.path.join(info.main_root, ".canon"))
    ):
        parts.append("the canon store .canon/ (project memory)")
    text = f"pylon: this session runs in {whose} ({root}), not one pylon made; it lacks " + ", ".join(parts) + "."
    clean = not git.run(["status", "--porcelain", "-uall"], cwd=root).strip()
    ancestor = head is not None and git.run_full(["merge-base", "--is-ancestor", head, baseline], cwd=main.root)[0] == 0
    if clean and ancestor:
        from pylon.workspace.commits import update_refs

        update_refs(main, [(f"refs/pylon/foreign/{os.path.basename(root)}-{baseline[:12]}", baseline)])
        text += (
            f" To start from the person's current state (their commits and uncommitted work), run "
            f"`git merge --ff-only {baseline}` here first."
        )
    else:
        text += f" Compare before relying on it: `git -C {owned.quoted(info.main_root)} status`."
    return text


def _head(checkout: Checkout) -> str | None:
    out = git.run(["rev-parse", "-q", "--verify", "HEAD"], cwd=checkout.root, ok=(0, 1, 128)).decode().strip()
    return out or None
