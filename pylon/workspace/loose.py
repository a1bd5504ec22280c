"""Git objects written and read by pylon itself, as loose objects: a blob, a tree, a commit cost a
hash and a zlib stream here instead of a git process each (a hook pays ~3 ms per process it starts).

The format is git's own (`<type> <size>\\0<body>`, zlib-compressed, at objects/xx/<38 hex>), written
to a temporary file beside its place and renamed in, so a reader never sees half an object. Only
SHA-1 ids are written or read this way; the callers decide when git must do it instead
(commits.own_objects for the repository's own store).
"""

from __future__ import annotations

import os
import zlib

from pylon.digest import sha1_hex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


def object_id(kind: str, body: bytes) -> str:
    return sha1_hex(b"%s %d\0" % (kind.encode(), len(body)) + body)


def write(objects: str, kind: str, body: bytes) -> str:
    """Store one object in the object folder `objects` (nothing written when it is there); its id."""
    header = b"%s %d\0" % (kind.encode(), len(body))
    oid = sha1_hex(header + body)
    folder = os.path.join(objects, oid[:2])
    path = os.path.join(folder, oid[2:])
    if os.path.exists(path):
        return oid
    os.makedirs(folder, exist_ok=True)
    # A name of its own per write (O_EXCL): threads of one process may write the same object at the
    # same moment (ws conflicts' parallel merges), and must never share or truncate a temporary file.
    tmp = os.path.join(folder, f"tmp_obj_pylon_{os.getpid()}_{os.urandom(6).hex()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)  # read-only, as git leaves objects
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(zlib.compress(header + body, 1))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return oid


def blob(objects: str, data: bytes) -> str:
    return write(objects, "blob", data)


def tree_body(entries: Iterable[tuple[str, bytes, str]]) -> bytes:
    """A tree's body from (mode, name, oid) entries, sorted as git sorts them (a folder's name
    compares as if it ended in `/`)."""

    def key(entry: tuple[str, bytes, str]) -> bytes:
        return entry[1] + b"/" if entry[0] == "40000" else entry[1]

    return b"".join(
        b"%s %s\0" % (mode.encode(), name) + bytes.fromhex(oid) for mode, name, oid in sorted(entries, key=key)
    )


def tree(objects: str, files: dict[bytes, tuple[str, str]]) -> str:
    """The tree of root-relative paths -> (mode, oid), with its subtrees, written; its id."""
    children: dict[bytes, dict[bytes, tuple[str, str]]] = {}
    here: list[tuple[str, bytes, str]] = []
    for path, (mode, oid) in files.items():
        head, sep, rest = path.partition(b"/")
        if sep:
            children.setdefault(head, {})[rest] = (mode, oid)
        else:
            here.append((mode, head, oid))
    for name, sub in children.items():
        here.append(("40000", name, tree(objects, sub)))
    return write(objects, "tree", tree_body(here))


def commit_body(tree_oid: str, parents: list[str], message: bytes, date: str) -> bytes:
    """A commit's bytes as `git commit-tree` writes them for pylon's identity; `date`: git's raw
    form, `<seconds> <+hhmm>`."""
    ident = f"pylon <pylon@localhost> {date}"
    lines = [f"tree {tree_oid}", *[f"parent {p}" for p in parents], f"author {ident}", f"committer {ident}", "", ""]
    return "\n".join(lines).encode() + message


def commit(objects: str, tree_oid: str, parents: list[str], message: str, when: int) -> str:
    body = commit_body(tree_oid, parents, message.encode("utf-8", "surrogateescape"), f"{when} +0000")
    return write(objects, "commit", body)


def read(objects: list[str], oid: str, kind: str) -> bytes | None:
    """The body of the loose object `oid` of type `kind` found in one of `objects`, exactly as
    `git cat-file <kind> <oid>` prints it; None when none holds it loose (packed, or not a SHA-1
    id), when it is of another type, or when its bytes do not hash to its id (then git answers)."""
    if len(oid) != 40:
        return None
    for folder in objects:
        try:
            with open(os.path.join(folder, oid[:2], oid[2:]), "rb") as fh:
                raw = zlib.decompress(fh.read())
        except (OSError, zlib.error):
            continue
        header, _, body = raw.partition(b"\0")
        if sha1_hex(raw) != oid or header != b"%s %d" % (kind.encode(), len(body)):
            return None
        return body
    return None
