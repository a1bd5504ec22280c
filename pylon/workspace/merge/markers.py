"""Conflict markers with names: what `ws apply --markers`, `ws sync --markers` and `ws conflicts` show.

`git merge-tree --write-tree` labels the sides of a conflict with the arguments it was given (for
pylon: commit ids; a rename adds `:path`) and the base of a diff3 section with an abbreviated id.
pylon names them instead: the side a merge writes into is `checkout` for `ws apply` (the
receiving checkout) and `session ID` for the session, the base `base`. Only marker lines whose
label is one of the merge's own commits are renamed, so a file that happens to hold a marker-like
line of its own keeps it.

`labelled_tree` turns the merged tree git wrote (markers and all) into the tree pylon writes for
`--markers`: each conflicted text file's blob with the names above, the rest as git merged it.
"""

from __future__ import annotations

from pylon.workspace import git
from pylon.workspace.repo import Checkout

MARKERS = ("<<<<<<<", "|||||||", ">>>>>>>")
BASE = "base"
CHECKOUT = "checkout"
MIN_ABBREV = 4


def session_label(worktree_id: str) -> str:
    return f"session {worktree_id}"


def _named(token: str, labels: dict[str, str], marker: str) -> str | None:
    oid, colon, rest = token.partition(":")
    if oid in labels:
        return labels[oid] + colon + rest
    if marker == "|||||||" and len(oid) >= MIN_ABBREV and all(c in "0123456789abcdef" for c in oid):
        for full, label in labels.items():
            if label == BASE and full.startswith(oid):
                return label + colon + rest
    return None


def relabel_line(line: str, labels: dict[str, str]) -> str:
    marker, space, token = line.partition(" ")
    if space and marker in MARKERS:
        named = _named(token, labels, marker)
        if named is not None:
            return f"{marker} {named}"
    return line


def relabel(data: bytes, labels: dict[str, str]) -> bytes:
    """The file with every marker line of this merge renamed (other lines byte for byte)."""
    if not any(m.encode() in data for m in MARKERS):
        return data
    out = []
    for line in data.split(b"\n"):
        if line[:7] in (b"<<<<<<<", b"|||||||", b">>>>>>>"):
            cr = line.endswith(b"\r")
            text = line[:-1] if cr else line
            new = relabel_line(text.decode("utf-8", "surrogateescape"), labels).encode("utf-8", "surrogateescape")
            line = new + (b"\r" if cr else b"")
        out.append(line)
    return b"\n".join(out)


def labelled_tree(checkout: Checkout, tree: str, paths: list[str], labels: dict[str, str]) -> str:
    """`tree` with the conflict markers of `paths` named (the tree git merged, otherwise unchanged)."""
    listing = git.run(
        ["ls-tree", "-z", "--full-tree", tree, "--", *paths], cwd=checkout.root, env={"GIT_LITERAL_PATHSPECS": "1"}
    )
    entries = []
    for record in listing.decode("utf-8", "surrogateescape").split("\0"):
        if not record:
            continue
        meta, path = record.split("\t", 1)
        mode, kind, oid = meta.split()
        if kind == "blob" and mode != "120000":
            entries.append((mode, oid, path))
    updates = []
    for mode, oid, path in entries:
        data = git.run(["cat-file", "blob", oid], cwd=checkout.root)
        if b"\0" in data[:8000]:
            continue  # binary: git kept one side, without markers
        named = relabel(data, labels)
        if named != data:
            new = git.run(["hash-object", "-w", "--stdin"], cwd=checkout.root, input=named).decode().strip()
            updates.append(f"{mode} {new}\t{path}\0")
    if not updates:
        return tree
    from pylon.workspace.commits import edited_tree

    return edited_tree(checkout, tree, "".join(updates), "markers-index")
