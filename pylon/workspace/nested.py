"""What a capture finds that git records differently from what is on disk, and says so in a note.

- A git repository inside the checkout without `.gitmodules` (an embedded clone) is recorded as
  `git add` records it: a gitlink to its checked-out commit. Edits inside it are invisible.
- One with no commit yet cannot be recorded at all (`git add` refuses): it is left out.
- A clean filter that fails and is not `required` makes git store the file as it is on disk
  (`git add` prints an error and goes on): the state then holds unfiltered content.
"""

from __future__ import annotations

import os

from pylon.workspace import git


def has_commit(folder: str) -> bool:
    """Does the git repository at `folder` have HEAD pointing at a commit? (`git add` refuses one
    that has none.) Read from its files; git is asked only for layouts this does not know."""
    dotgit = os.path.join(folder, ".git")
    if os.path.isdir(dotgit):
        try:
            with open(os.path.join(dotgit, "HEAD"), "rb") as fh:
                head = fh.read(512).strip()
        except OSError:
            return False
        if not head.startswith(b"ref: "):
            return len(head) in (40, 64)
        ref = head[5:].decode("utf-8", "surrogateescape")
        if os.path.isfile(os.path.join(dotgit, ref)):
            return True
        try:
            with open(os.path.join(dotgit, "packed-refs"), "rb") as fh:
                return any(line.endswith(b" " + ref.encode()) for line in fh.read().splitlines())
        except OSError:
            if not os.path.isdir(os.path.join(dotgit, "reftable")):
                return False
    code, _, _ = git.run_full(["rev-parse", "-q", "--verify", "HEAD^{commit}"], cwd=folder)
    return code == 0


def embedded_notes(embedded: list[str], empty: list[str]) -> list[dict[str, str]]:
    notes = []
    if embedded:
        notes.append(
            {
                "kind": "embedded-repo",
                "message": "git repositories inside the checkout without .gitmodules: "
                + _names([p + "/" for p in embedded])
                + "; recorded as git add records them, a gitlink to their checked-out commit, so pylon cannot "
                "see edits inside them (commit there, or make them submodules)",
            }
        )
    if empty:
        notes.append(
            {
                "kind": "embedded-repo-empty",
                "message": "git repositories inside the checkout with no commit yet: "
                + _names(empty)
                + "; git cannot record them (git add refuses), so they are left out of the state and pylon cannot "
                "see inside them",
            }
        )
    return notes


def filter_errors(err: bytes) -> list[str]:
    """git's own lines about clean filters that failed (`error: external filter 'x' failed 1`)."""
    found: list[str] = []
    for line in err.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if "external filter" in line and "failed" in line and line not in found:
            found.append(line)
    return found


def filter_note(errors: list[str]) -> list[dict[str, str]]:
    if not errors:
        return []
    return [
        {
            "kind": "filter-failed",
            "message": "a clean filter failed (" + "; ".join(errors[:3]) + "); git stores such files as they are on "
            "disk, as git add does, so the state holds them unfiltered; fix the filter, or mark it "
            "filter.<driver>.required to make git refuse",
        }
    ]


def _names(paths: list[str]) -> str:
    shown = ", ".join(os.fsencode(p).decode("utf-8", "backslashreplace") for p in paths[:10])
    return shown + (f" and {len(paths) - 10} more" if len(paths) > 10 else "")
