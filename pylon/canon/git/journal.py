"""Which journal entries changed since a revision (`canon lint --base REV`; default HEAD)."""

from __future__ import annotations

import os

from pylon.canon.git.run import open_repo, parse_name_status, resolve_rev
from pylon.canon.lint.findings import Finding
from pylon.canon.lint.rules_journal_changed import journal_changed
from pylon.canon.store import Project
from pylon.errors import PylonError


def journal_findings(project: Project, base: str | None, report_base: str) -> list[Finding]:
    """`journal-changed` findings against `base`; with base None (the default, HEAD) a folder
    outside git, a repository without commits, or no git at all yields none."""
    try:
        repo = open_repo(project.root_dir)
    except PylonError:
        if base is None:
            return []
        raise
    if base is None:
        if repo.head is None:
            return []
        rev, label = repo.head, "HEAD"
    else:
        rev, label = resolve_rev(repo, base, "--base"), base
    journal_dir = os.path.relpath(os.path.realpath(project.store.journal_dir), repo.top)
    if journal_dir.startswith(".."):
        return []
    out = repo.run("diff", "--name-status", "-z", "--no-renames", "--no-ext-diff", rev, "--",
                   journal_dir.replace(os.sep, "/") + "/")
    rows = []
    for change in parse_name_status(out):
        name = change.old.rpartition("/")[2]
        if name.startswith("."):
            continue  # .gitkeep and other dot-files are not entries
        shown = os.path.relpath(os.path.join(repo.top, change.old), report_base).replace(os.sep, "/")
        rows.append((change.status, shown, change.old))
    return journal_changed(rows, label, base or "HEAD")
