"""`journal-changed`: journal entries are append-only, so an entry that exists in the base revision
and was modified or deleted since is an error. Git decides what changed (pylon/canon/git/journal.py);
this module only words the findings, so the lint core needs no git.
"""

from __future__ import annotations

import shlex

from pylon.canon.lint.findings import Finding, finding

_WHAT = {"M": "was modified", "T": "changed type", "D": "was deleted"}


def journal_changed(changes: list[tuple[str, str, str]], label: str, rev: str) -> list[Finding]:
    """Findings for (status letter, report-relative path, path from the project root) of entries
    that exist in `rev` (named `label` in messages)."""
    out: list[Finding] = []
    for status, path, repo_path in changes:
        what = _WHAT.get(status)
        if what is None:
            continue  # added since the base: new entries are what the journal is for
        out.append(
            finding(
                "journal-changed",
                f"{what} since {label}; journal entries are append-only: restore it "
                f"(git checkout {shlex.quote(rev)} -- {shlex.quote(repo_path)}) and record the correction as a new "
                'entry (canon journal "...")',
                path,
            )
        )
    return out
