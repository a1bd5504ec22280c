"""Which journal entries changed since a revision (`canon lint --since REV`; default HEAD)."""

from __future__ import annotations

import os
from pathlib import Path

from pylon.canon.git.run import git, git_full, open_repo, parse_name_status, resolve_rev
from pylon.canon.lint.findings import Finding
from pylon.canon.lint.rules_journal_changed import journal_changed
from pylon.canon.store import Project
from pylon.errors import PylonError


def _rows(data: bytes, folder: str, report_base: str) -> list[tuple[str, str, str]]:
    """(status, report-relative path, path relative to the project root) of changed entries."""
    rows = []
    for change in parse_name_status(data):
        if change.old.rpartition("/")[2].startswith("."):
            continue  # .gitkeep and other dot-files are not entries
        shown = os.path.relpath(os.path.join(folder, change.old), report_base).replace(os.sep, "/")
        rows.append((change.status, shown, change.old))
    return rows


def journal_findings(project: Project, base: str | None, report_base: str) -> list[Finding]:
    """`journal-changed` findings against `base`; with base None (the default, HEAD) a folder
    outside git, a repository without commits, or no git at all yields none."""
    diff = ["diff", "--name-status", "-z", "--no-renames", "--no-ext-diff"]
    journal = os.path.relpath(project.store.journal_dir, project.root_dir).replace(os.sep, "/") + "/"
    if base is None:
        # One git process on every lint: paths relative to the project root; a failure (no git,
        # no repository, no commit yet) means there is nothing to compare against.
        try:
            code, out, _ = git_full(project.root_dir, *diff, "--relative", "HEAD", "--", journal)
        except PylonError:
            return []
        if code != 0:
            return []
        return journal_changed(_rows(out, project.root_dir, report_base), "HEAD", "HEAD")
    rev = resolve_rev(open_repo(project.root_dir), base, "--since")
    out = git(project.root_dir, *diff, "--relative", rev, "--", journal)
    return journal_changed(_rows(out, project.root_dir, report_base), base, base)


def committed_entries(journal: Path) -> set[str] | None:
    """Names of files directly in `journal` that are in HEAD with the same content in the index and
    the working tree; None when `journal` is in no git checkout or HEAD has no commit."""
    folder = os.fspath(journal)
    try:
        # Both paths relative to `journal` itself (ls-tree by default, diff with --relative).
        tracked = git(folder, "ls-tree", "-z", "--name-only", "HEAD", "--", "./")
        changed = git(folder, "diff", "--name-only", "-z", "--no-renames", "--relative", "HEAD", "--", "./")
    except (PylonError, OSError):
        return None
    names = {n.decode("utf-8", "surrogateescape") for n in tracked.split(b"\0") if n}
    names -= {n.decode("utf-8", "surrogateescape") for n in changed.split(b"\0") if n}
    return {n for n in names if "/" not in n}
