"""State commits and refs: the State record, its metadata message, pylon's own commits (written as
`git commit-tree` would, loose.py), `git update-ref`, parsing. state.py (capture) builds on this
module, never the other way round."""

from __future__ import annotations

import os
import time

from pylon.workspace import git, immutable
from pylon.workspace.repo import EMPTY_TREE, Checkout, stored_tree

IDENT = {
    "GIT_AUTHOR_NAME": "pylon",
    "GIT_AUTHOR_EMAIL": "pylon@localhost",
    "GIT_COMMITTER_NAME": "pylon",
    "GIT_COMMITTER_EMAIL": "pylon@localhost",
}


def short_branch(branch: str | None) -> str | None:
    if branch and branch.startswith("refs/heads/"):
        return branch[len("refs/heads/") :]
    return branch


def iso(stamp: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))


def from_iso(text: str) -> int | None:
    """The Unix time of an `iso()` string; None when it is not one."""
    import calendar

    try:
        return calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ"))
    except ValueError:
        return None


class State:
    """One captured checkout state (the commit is None until anchored)."""

    __slots__ = (
        "commit",
        "head",
        "branch",
        "index_tree",
        "worktree",
        "notes",
        "captured_at",
        "label",
        "head_tree",
        "meta_raw",
    )

    def __init__(
        self,
        *,
        commit: str | None,
        head: str | None,
        branch: str | None,
        index_tree: str | None,
        worktree: str,
        notes: list[dict[str, str]],
        captured_at: int,
        label: str = "",
        head_tree: str | None = None,
        meta_raw: str | None = None,
    ) -> None:
        self.meta_raw = meta_raw  # exact.py: encoded modes and empty folders (None: not recorded)
        self.head_tree = head_tree  # HEAD's tree when the capture read it (None: not known, ask git)
        self.commit = commit
        self.head = head
        self.branch = branch
        self.index_tree = index_tree
        self.worktree = worktree
        self.notes = notes
        self.captured_at = captured_at
        self.label = label

    @property
    def meta(self) -> dict[str, object] | None:
        """The decoded `pylon-meta` (exact.py), None when the state recorded none."""
        if not self.meta_raw:
            return None
        from pylon.workspace.exact import decode

        return decode(self.meta_raw)

    def to_dict(self) -> dict[str, object]:
        return {
            "commit": self.commit,
            "head": self.head,
            "branch": short_branch(self.branch),
            "index_tree": self.index_tree,
            "worktree_tree": self.worktree,
            "captured_at": iso(self.captured_at),
            "notes": self.notes,
        }


def state_message(state: State, index_commit: str | None) -> str:
    lines = [
        f"pylon state: {state.label}",
        "",
        f"pylon-head: {state.head or 'unborn'}",
        f"pylon-branch: {state.branch or '(detached)'}",
        f"pylon-index-tree: {state.index_tree or 'unmerged'}",
        f"pylon-index-commit: {index_commit or 'none'}",
        f"pylon-captured: {state.captured_at}",
    ]
    for note in state.notes:
        lines.append(f"pylon-note: {note['kind']}: {note['message']}")
    if state.meta_raw:
        lines.append(f"pylon-meta: {state.meta_raw}")
    return "\n".join(lines) + "\n"


# Config words after which git, not pylon, writes the repository's objects: they change how objects
# are stored (shared permissions, fsync, another hash) or what a commit holds (an encoding header),
# or pull in more config (include) that this check does not follow.
_GIT_WRITES = (b"sharedrepository", b"fsync", b"objectformat", b"commitencoding", b"include")
_OWN: dict[str, tuple[object, bool]] = {}


def own_objects(checkout: Checkout) -> str | None:
    """The object folder where pylon may write its own commits (loose.py), else None (git writes
    them): the repository's, or the one pylon pointed git at (git.objects_in: a kept state's store),
    in a SHA-1 repository with none of the settings above in any config file git reads, and no
    object folder or config given by the caller's environment."""
    from pylon.workspace.index import _config_paths, file_sig

    if any(
        k in os.environ
        for k in ("GIT_OBJECT_DIRECTORY", "GIT_QUARANTINE_PATH", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT")
    ):
        return None
    pointed = dict(git.object_dirs())
    folder = pointed.get("GIT_OBJECT_DIRECTORY") if pointed else os.path.join(checkout.common_dir, "objects")
    if not folder:
        return None
    paths = _config_paths(checkout)
    sig = [file_sig(p) for p in paths]
    known = _OWN.get(checkout.common_dir)
    if known is None or known[0] != sig:
        plain = True
        for path in paths:
            try:
                with open(path, "rb") as fh:
                    text = fh.read().lower()
            except OSError:
                continue
            plain = plain and not any(word in text for word in _GIT_WRITES)
        known = _OWN[checkout.common_dir] = (sig, plain)
    return folder if known[1] else None


def _utf8(message: bytes) -> bool:
    """git rewrites a message that is not UTF-8 (as if Latin-1) and warns: that is git's to do."""
    try:
        message.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def write_commit(checkout: Checkout, tree: str, parents: list[str], message: bytes, date: str | None = None) -> str:
    """A commit of `tree` by pylon's identity (IDENT), as `git commit-tree -F -` writes it: by pylon
    itself (a hash and a zlib stream) where own_objects allows, else by git. `date`: git's raw form
    (`<seconds> <+hhmm>`); now, in local time, when None. The tree and the parents are ids git gave."""
    folder = own_objects(checkout) if len(tree) == 40 and _utf8(message) else None
    if folder is None:
        args = ["commit-tree", "--no-gpg-sign", stored_tree(checkout, tree)]
        for parent in parents:
            args += ["-p", parent]
        env = IDENT if date is None else dict(IDENT, GIT_AUTHOR_DATE=f"@{date}", GIT_COMMITTER_DATE=f"@{date}")
        out = git.run(args + ["-F", "-"], cwd=checkout.root, env=env, input=message, what="git commit-tree")
        return out.decode().strip()
    from pylon.workspace import loose

    if tree == EMPTY_TREE:
        loose.write(folder, "tree", b"")  # git knows it without storing it; fsck asks for it
    if date is None:
        now = time.time()
        offset = time.localtime(now).tm_gmtoff // 60
        date = f"{int(now)} {'-' if offset < 0 else '+'}{abs(offset) // 60:02d}{abs(offset) % 60:02d}"
    return loose.write(folder, "commit", loose.commit_body(tree, parents, message, date))


def commit_tree(checkout: Checkout, tree: str, parents: list[str], message: str) -> str:
    data = message.encode("utf-8")
    commit = write_commit(checkout, tree, parents, data)
    immutable.wrote(checkout, commit, tree, data)  # read_state() of it needs no git process
    return commit


def update_refs(checkout: Checkout, updates: list[tuple[str, str]], deletes: list[str] | None = None) -> None:
    """One `git update-ref --stdin` transaction (all refs move or none)."""
    lines = [f"update {ref} {oid}" for ref, oid in updates] + [f"delete {ref}" for ref in deletes or []]
    git.run(
        ["update-ref", "--stdin"], cwd=checkout.root, input=("\n".join(lines) + "\n").encode(), what="git update-ref"
    )


def read_state(checkout: Checkout, commitish: str) -> State:
    """Parse a state commit written by capture() (read once per process: immutable.py)."""
    return parse_state(immutable.commits(checkout, [commitish], written=True)[0], commitish)


def read_states(checkout: Checkout, commits: list[str]) -> list[State]:
    """read_state() of each, the ones not read yet from one `git cat-file --batch`."""
    return [parse_state(out, name) for name, out in zip(commits, immutable.commits(checkout, commits, written=True))]


def parse_state(raw: bytes, commit: str) -> State:
    header, _, body = raw.decode("utf-8", "replace").partition("\n\n")
    tree = ""
    for line in header.splitlines():
        if line.startswith("tree "):
            tree = line[5:].strip()
    fields: dict[str, str] = {}
    notes = []
    label = ""
    for line in body.splitlines():
        if line.startswith("pylon state: "):
            label = line[len("pylon state: ") :]
        elif line.startswith("pylon-note: "):
            kind, _, message = line[len("pylon-note: ") :].partition(": ")
            notes.append({"kind": kind, "message": message})
        elif line.startswith("pylon-") and ": " in line:
            key, _, value = line.partition(": ")
            fields[key] = value
    head = fields.get("pylon-head")
    branch = fields.get("pylon-branch")
    index_tree = fields.get("pylon-index-tree")
    return State(
        commit=commit,
        head=None if head in (None, "unborn") else head,
        branch=None if branch in (None, "(detached)") else branch,
        index_tree=None if index_tree in (None, "unmerged") else index_tree,
        worktree=tree,
        notes=notes,
        captured_at=int(fields.get("pylon-captured", "0") or 0),
        label=label,
        meta_raw=fields.get("pylon-meta"),
    )


def tree_with_files(checkout: Checkout, base_tree: str, files: list[str]) -> str:
    """base_tree plus `files` (root-relative) read from disk byte for byte, in a throw-away index."""
    from pylon.workspace.leftovers import temp_name

    index = os.path.join(checkout.pylon_dir(), temp_name("tree-index", rand=True))  # owner in its name
    env = {"GIT_INDEX_FILE": index}
    try:
        git.run(["read-tree", base_tree], cwd=checkout.root, env=env)
        regular = [
            f
            for f in files
            if not os.path.islink(os.path.join(checkout.root, f)) and os.path.isfile(os.path.join(checkout.root, f))
        ]
        entries: list[bytes] = []
        if regular:
            listing = "".join(f + "\n" for f in regular).encode("utf-8", "surrogateescape")
            out = git.run(["hash-object", "-w", "--no-filters", "--stdin-paths"], cwd=checkout.root, input=listing)
            for rel, oid in zip(regular, out.decode().split()):
                mode = "100755" if os.access(os.path.join(checkout.root, rel), os.X_OK) else "100644"
                entries.append(f"{mode} {oid}\t".encode() + rel.encode("utf-8", "surrogateescape") + b"\0")
        for rel in files:
            full = os.path.join(checkout.root, rel)
            if os.path.islink(full):
                target = os.fsencode(os.readlink(full))
                oid = git.run(["hash-object", "-w", "--stdin"], cwd=checkout.root, input=target).decode().strip()
                entries.append(f"120000 {oid}\t".encode() + rel.encode("utf-8", "surrogateescape") + b"\0")
        if entries:
            git.run(["update-index", "-z", "--index-info"], cwd=checkout.root, env=env, input=b"".join(entries))
        return git.run(["write-tree"], cwd=checkout.root, env=env).decode().strip()
    finally:
        if os.path.exists(index):
            os.unlink(index)


def edited_tree(checkout: Checkout, base_tree: str | None, index_info: str, name: str) -> str:
    """`base_tree` (None: empty) with the `git update-index -z --index-info` records applied (a mode
    of 0 removes a path; a file may replace a folder or the reverse), written as a tree. Works on a
    throw-away index in the worktree's pylon folder, removed again with its lock."""
    index = os.path.join(checkout.pylon_dir(), f"{name}-{os.getpid()}")
    env = {"GIT_INDEX_FILE": index}
    try:
        git.run(["read-tree", base_tree] if base_tree else ["read-tree", "--empty"], cwd=checkout.root, env=env)
        git.run(
            ["update-index", "-z", "--add", "--remove", "--replace", "--index-info"],
            cwd=checkout.root,
            env=env,
            input=index_info.encode("utf-8", "surrogateescape"),
        )
        return git.run(["write-tree"], cwd=checkout.root, env=env).decode().strip()
    finally:
        remove_index(index)


def remove_index(index: str) -> None:
    """A throw-away index file and its lock, gone (either may be missing)."""
    for leftover in (index, index + ".lock"):
        try:
            os.unlink(leftover)
        except FileNotFoundError:
            pass
