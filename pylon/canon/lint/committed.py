"""Warnings on journal entries already committed to git fold into one `legacy-journal` note.

An entry is immutable (the journal is append-only), so a warning on an entry that is in HEAD and
unchanged since can never be fixed by editing it: pi-canon 0.1.x wrote every entry without
`logged`, and an entry without subjects or naming a since-moved article stays that way. Reported
one by one, each would make `canon lint --strict` fail forever. They are counted in one note per
run instead (a note never fails a lint); entries not committed yet keep their warnings, since the
writer can still fix those.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from pylon.canon.lint.findings import WARNING, Finding, finding
from pylon.errors import PylonError


def committed_entries(journal: Path) -> set[str] | None:
    """Names of files directly in `journal` that are in HEAD with the same content in the index and
    the working tree; None when `journal` is in no git checkout or HEAD has no commit."""
    from pylon.workspace.git import run

    folder = os.fspath(journal)
    try:
        # Both paths relative to `journal` itself (ls-tree by default, diff with --relative).
        tracked = run(["--no-optional-locks", "ls-tree", "-z", "--name-only", "HEAD", "--", "./"], cwd=folder)
        changed = run(["--no-optional-locks", "diff", "--name-only", "-z", "--no-renames", "--relative",
                       "HEAD", "--", "./"], cwd=folder)
    except (PylonError, OSError):
        return None
    names = {n.decode("utf-8", "surrogateescape") for n in tracked.split(b"\0") if n}
    names -= {n.decode("utf-8", "surrogateescape") for n in changed.split(b"\0") if n}
    return {n for n in names if "/" not in n}


def _kind(f: Finding) -> str:
    if f.rule == "unknown-subject":
        return "a subject that names no article"
    return f.message.removeprefix("journal entry: ")


def fold_committed(findings: list[Finding], journal: Path, journal_rel: str) -> list[Finding]:
    """`findings` with the warnings on committed entries replaced by one `legacy-journal` note."""
    candidates = [f for f in findings if f.severity == WARNING]
    if not candidates:
        return findings
    committed = committed_entries(journal)
    if not committed:
        return findings
    folded = [f for f in candidates if f.path.rpartition("/")[2] in committed]
    if not folded:
        return findings
    gone = {id(f) for f in folded}
    entries = len({f.path for f in folded})
    kinds = sorted(Counter(_kind(f) for f in folded).items(), key=lambda item: (-item[1], item[0]))
    counts = ", ".join(f"{kind}: {n}" for kind, n in kinds)
    note = finding(
        "legacy-journal",
        f"{entries} committed journal entr{'ies' if entries != 1 else 'y'} ({counts}) cannot be changed, so this "
        "is not a failure: an entry without `logged` is dated by its file name; new entries from "
        "`canon journal` carry both",
        journal_rel,
    )
    return [f for f in findings if id(f) not in gone] + [note]
