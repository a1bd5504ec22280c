"""The change set a command judges: staged (the index a commit will record), since a revision
(what a branch adds: merge-base..working tree), or the working tree against HEAD; untracked files
count as added outside --staged. Renames are git's own (-M), so they need the move staged
(`git mv`, or `git add -A`) for git to see them.
"""

from __future__ import annotations

from pylon.canon.git.run import Change, Repo, index_env, merge_base, parse_name_status, resolve_rev
from pylon.canon.record import Record


class ChangeSet(Record):
    __slots__ = ("mode", "base", "label", "changes")

    def __init__(self, mode: str, base: str, label: str, changes: list[Change]) -> None:
        self.mode = mode  # "staged", "since" or "worktree"
        self.base = base  # the commit (or empty tree) compared against
        self.label = label  # how to name the base in messages: "HEAD", "the empty tree", "main (merge-base abc1234)"
        self.changes = changes


def _untracked(out: bytes) -> list[Change]:
    return [Change("A", p, p) for p in (out.decode("utf-8", "surrogateescape").split("\0")) if p]


def change_set(repo: Repo, staged: bool = False, since: str | None = None, against: str | None = None) -> ChangeSet:
    """`against`: that exact revision (no merge-base) against the working tree (`canon mv --from-git REV`)."""
    diff = ["diff", "--name-status", "-z", "-M", "--no-ext-diff", "--ignore-submodules=dirty"]
    if staged:
        base = repo.base_or_empty()
        # An unborn branch diffs the index against the empty tree, exactly what the first commit records.
        out = repo.run(*diff, "--cached", base, "--", env=index_env())
        return ChangeSet(
            "staged", base, "HEAD" if repo.head else "the empty tree (first commit)", parse_name_status(out)
        )
    if since is not None:
        exact = resolve_rev(repo, since, "--since")
        base = merge_base(repo, since, "--since", exact)
        label = since if base == exact else f"{since} (merge-base {base[:12]})"
    elif against is not None:
        base = resolve_rev(repo, against, "--from-git")
        label = against
    else:
        base = repo.base_or_empty()
        label = "HEAD" if repo.head else "the empty tree (no commit yet)"
    # Both passes stat the whole tree: they run side by side (two processes, one wait).
    others = repo.start("ls-files", "-z", "--others", "--exclude-standard")
    try:
        changes = parse_name_status(repo.run(*diff, base, "--"))
    except BaseException:
        others.abandon()
        raise
    listed = others.finish()
    seen = {c.new for c in changes}
    changes += [c for c in _untracked(listed) if c.new not in seen]
    return ChangeSet("since" if since is not None or against is not None else "worktree", base, label, changes)
