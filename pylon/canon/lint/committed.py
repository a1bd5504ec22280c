"""Warnings on journal entries already committed to git fold into one `legacy-journal` note.

An entry is immutable (the journal is append-only), so a warning on an entry that is in HEAD and
unchanged since can never be fixed by editing it: pi-canon 0.1.x wrote every entry without
`logged`, and an entry without subjects or naming a since-moved article stays that way. Reported
one by one, each would make `canon lint --strict` fail forever. They are counted in one note per
run instead (a note never fails a lint); entries not committed yet keep their warnings, since the
writer can still fix those.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

from pylon.canon.lint.findings import WARNING, Finding, finding

# journal folder -> names of entries committed unchanged, or None outside git (pylon.canon.git
# answers it: the lint core never runs git).
Committed = Callable[[Path], "set[str] | None"]


def _kind(f: Finding) -> str:
    if f.rule == "unknown-subject":
        return "a subject that names no article"
    return f.message.removeprefix("journal entry: ")


def fold_committed(findings: list[Finding], committed_of: Committed, journal: Path, journal_rel: str) -> list[Finding]:
    """`findings` with the warnings on committed entries replaced by one `legacy-journal` note."""
    candidates = [f for f in findings if f.severity == WARNING]
    if not candidates:
        return findings
    committed = committed_of(journal)
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
