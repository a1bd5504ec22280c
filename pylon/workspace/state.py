"""Checkout-state capture: HEAD, branch, the staged index as a tree, the working tree as a tree.

How a capture works without touching the real index, HEAD, the stash or the working tree:

1. A private index `<git-dir>/pylon/index` starts as a byte copy of the real index (mtime kept, so
   git's racy-entry check stays exact) and is then kept between captures while the real index is
   unchanged: its stat cache and untracked cache stay warm, which makes the next scan cheaper than
   `git status` on the real index.
2. `git write-tree` on a fresh copy gives the index tree (cached while the real index is unchanged).
3. Staging the working tree into the private index (see stage_worktree: `git status` on it, then
   `git update-index` of the paths it reports), then `git write-tree`, gives the working-tree
   tree: tracked changes, deletions, and untracked files that are not ignored.
4. A commit object (tree = working tree; parents = HEAD when born, and an index commit when the
   index differs from HEAD) carries the metadata in its message, and `git update-ref` anchors it
   under refs/pylon/ so `git gc --prune=now` never erases it.

Only the private index is ever locked or written. See docs/workspace.md for the measurements.
"""

from __future__ import annotations

import fcntl
import os
import time

from pylon.workspace import git, refs
from pylon.workspace.repo import EMPTY_TREE, Checkout, config_values, layout_notes

IDENT = {
    "GIT_AUTHOR_NAME": "pylon",
    "GIT_AUTHOR_EMAIL": "pylon@localhost",
    "GIT_COMMITTER_NAME": "pylon",
    "GIT_COMMITTER_EMAIL": "pylon@localhost",
}
_STATUS = ["-c", "core.untrackedCache=true", "-c", "core.safecrlf=false", "-c", "status.showUntrackedFiles=normal"]
_META_VERSION = 1


class State:
    """One captured checkout state (the commit is None until anchored)."""

    __slots__ = ("commit", "head", "branch", "index_tree", "worktree", "notes", "captured_at", "label")

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
    ) -> None:
        self.commit = commit
        self.head = head
        self.branch = branch
        self.index_tree = index_tree
        self.worktree = worktree
        self.notes = notes
        self.captured_at = captured_at
        self.label = label

    def to_dict(self) -> dict[str, object]:
        return {
            "commit": self.commit,
            "head": self.head,
            "branch": _short_branch(self.branch),
            "index_tree": self.index_tree,
            "worktree_tree": self.worktree,
            "captured_at": _iso(self.captured_at),
            "notes": self.notes,
        }


def _short_branch(branch: str | None) -> str | None:
    if branch and branch.startswith("refs/heads/"):
        return branch[len("refs/heads/") :]
    return branch


def _iso(stamp: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))


# ---------------------------------------------------------------- signatures and private files


def file_sig(path: str) -> list[int] | None:
    """Changes whenever the file is replaced or rewritten (git replaces its index by rename)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def excludes_sig(checkout: Checkout) -> list[object]:
    """Ignore rules outside the working tree: info/exclude, the global ignore file, config files."""
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    paths = [
        os.path.join(checkout.common_dir, "info", "exclude"),
        os.path.join(xdg, "git", "ignore"),
        os.path.join(xdg, "git", "config"),
        os.path.join(home, ".gitconfig"),
        os.path.join(checkout.common_dir, "config"),
        os.path.join(checkout.git_dir, "config.worktree"),
    ]
    return [file_sig(p) for p in paths]


def read_json(path: str) -> dict | None:
    import json  # lazily: json pulls in re and enum, which the fast paths avoid

    try:
        with open(path, "rb") as fh:
            data = json.loads(fh.read())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_json(path: str, data: dict) -> None:
    """Private cache files: temp + rename (a reader sees the old or the new file, never half)."""
    import json

    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(data))
    os.replace(tmp, path)


def _copy_index(src: str, dst: str) -> list[int] | None:
    """Copy the real index to `dst` keeping its mtime; returns the signature of what was copied.

    The source is read through one descriptor, so a concurrent `git commit` replacing it (git
    writes index.lock and renames) gives us either the old or the new file, never a mix.
    """
    tmp = f"{dst}.{os.getpid()}.tmp"
    try:
        src_fd = os.open(src, os.O_RDONLY)
    except FileNotFoundError:
        for stale in (dst,):
            try:
                os.unlink(stale)
            except FileNotFoundError:
                pass
        return None
    try:
        st = os.fstat(src_fd)
        dst_fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            remaining = st.st_size
            offset = 0
            while remaining > 0:
                sent = os.sendfile(dst_fd, src_fd, offset, remaining)
                if sent <= 0:
                    break
                offset += sent
                remaining -= sent
        finally:
            os.close(dst_fd)
        os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))
        os.replace(tmp, dst)
        return [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
    finally:
        os.close(src_fd)


class _PrivateIndex:
    """The private index used for one capture: the persistent one (locked) or a throwaway copy."""

    def __init__(self, checkout: Checkout) -> None:
        self.dir = checkout.pylon_dir()
        self.lock_fd = os.open(os.path.join(self.dir, "capture.lock"), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self.lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self.persistent = True
            self.path = os.path.join(self.dir, "index")
        except OSError:
            # Another capture holds the persistent index: use a throwaway copy instead of waiting.
            os.close(self.lock_fd)
            self.lock_fd = -1
            self.persistent = False
            self.path = os.path.join(self.dir, f"index-{os.getpid()}-{os.urandom(3).hex()}")

    def close(self) -> None:
        if not self.persistent:
            for p in (self.path, self.path + ".lock"):
                try:
                    os.unlink(p)
                except FileNotFoundError:
                    pass
        if self.lock_fd >= 0:
            os.close(self.lock_fd)
            self.lock_fd = -1


def _write_tree(checkout: Checkout, index: str) -> tuple[str | None, bool]:
    """(tree, unmerged): write-tree on a private index; None+True when it has conflicts."""
    code, out, err = git.run_full(["write-tree"], cwd=checkout.root, env={"GIT_INDEX_FILE": index})
    if code == 0:
        return out.decode().strip(), False
    text = err.decode("utf-8", "replace")
    if "unmerged" in text or "error building trees" in text:
        return None, True
    raise git.failure(["write-tree"], code, err, "writing a tree of the checkout")


def _head_info(proc: git.GitProcess) -> tuple[str | None, str | None]:
    """(HEAD commit, HEAD tree) from a `cat-file --batch-check` of HEAD and HEAD^{tree}."""
    code, out, _ = proc.wait()
    lines = out.decode().splitlines()
    head = tree = None
    if len(lines) >= 2:
        a = lines[0].split()
        b = lines[1].split()
        if len(a) == 2 and a[1] == "commit":
            head = a[0]
        if len(b) == 2 and b[1] == "tree":
            tree = b[0]
    return head, tree


def start_head_query(checkout: Checkout) -> git.GitProcess:
    return git.start(
        ["cat-file", "--batch-check=%(objectname) %(objecttype)"], cwd=checkout.root, input=b"HEAD\nHEAD^{tree}\n"
    )


def capture(checkout: Checkout, *, anchor: bool = True, label: str = "current", extra_refs: list[str] | None = None) -> State:
    """Capture the checkout state; with `anchor`, write the state commit and refs/pylon refs."""
    private = _PrivateIndex(checkout)
    try:
        return _capture(checkout, private, anchor=anchor, label=label, extra_refs=extra_refs or [])
    finally:
        private.close()


def _capture(checkout: Checkout, private: _PrivateIndex, *, anchor: bool, label: str, extra_refs: list[str]) -> State:
    meta_path = os.path.join(private.dir, "state.json")
    meta = read_json(meta_path) if private.persistent else None
    head_proc = start_head_query(checkout)
    config_proc = git.start(
        ["config", "-z", "--get-regexp", r"^(core\.sparsecheckout|filter\..*)$"], cwd=checkout.root
    )
    real_sig = file_sig(checkout.index_path)
    excl = excludes_sig(checkout)
    reuse = bool(
        meta
        and meta.get("v") == _META_VERSION
        and meta.get("index_sig") == real_sig
        and meta.get("excl_sig") == excl
        and meta.get("worktree")
        and real_sig is not None
        and os.path.exists(private.path)
    )
    for attempt in (0, 1):
        if reuse and meta:
            index_tree, unmerged = meta.get("index_tree"), bool(meta.get("unmerged"))
            copied_sig = real_sig
        else:
            copied_sig = _copy_index(checkout.index_path, private.path)
            if copied_sig is None:
                index_tree, unmerged = EMPTY_TREE, False
            else:
                index_tree, unmerged = _write_tree(checkout, private.path)
        stage_worktree(checkout, private.path)
        worktree, _ = _write_tree(checkout, private.path)
        if worktree is None:
            raise git.failure(["write-tree"], 1, b"the private index still has unmerged entries")
        if attempt == 0 and reuse and meta and worktree != meta["worktree"] and _ignore_rules_changed(
            checkout, meta["worktree"], worktree
        ):
            reuse = False  # entries added before may be ignored now: start again from the real index
            continue
        break
    head, head_tree = _head_info(head_proc)
    branch, _detached = checkout.head_file()
    notes = layout_notes(checkout, _parse_config(config_proc), index_unmerged=unmerged)
    now = int(time.time())
    state = State(
        commit=None,
        head=head,
        branch=branch,
        index_tree=index_tree,
        worktree=worktree,
        notes=notes,
        captured_at=now,
        label=label,
    )
    new_meta: dict[str, object] = {
        "v": _META_VERSION,
        "index_sig": copied_sig,
        "excl_sig": excl,
        "index_tree": index_tree,
        "unmerged": unmerged,
        "worktree": worktree,
        "head": head,
        "branch": branch,
        "notes": notes,
        "time": now,
    }
    index_commit = None
    if meta and meta.get("index_tree") == index_tree and meta.get("head") == head:
        index_commit = meta.get("index_commit")
    if anchor:
        reusable = (
            label == "current"
            and not extra_refs
            and meta
            and meta.get("commit")
            and all(meta.get(k) == new_meta[k] for k in ("worktree", "head", "branch", "index_tree"))
        )
        if reusable and meta:
            state.commit = meta["commit"]
            index_commit = meta.get("index_commit")
        else:
            if index_tree and index_tree != (head_tree or EMPTY_TREE) and not index_commit:
                index_commit = _commit_tree(checkout, index_tree, [head] if head else [], f"pylon index of {label}\n")
            state.commit = _commit_tree(
                checkout, worktree, [p for p in (head, index_commit) if p], state_message(state, index_commit)
            )
            update_refs(checkout, [(refs.current_ref(checkout), state.commit), *[(r, state.commit) for r in extra_refs]])
        new_meta["commit"] = state.commit
    elif meta and meta.get("commit") and all(meta.get(k) == new_meta[k] for k in ("worktree", "head", "branch", "index_tree")):
        new_meta["commit"] = meta["commit"]
    new_meta["index_commit"] = index_commit
    if private.persistent:
        write_json(meta_path, new_meta)
    return state


def stage_worktree(checkout: Checkout, index: str) -> int:
    """Make the private `index` match the working tree (like `git add -A`); returns paths staged.

    `git add -A` cannot use git's untracked cache (its directory walk needs other flags), so a
    scan goes through `git status -unormal` on the private index, which does use it and keeps it
    (and the refreshed stat data) warm in that private index; only the reported paths are then
    hashed by `git update-index`. On a warm private index this costs less than `git status` on the
    real one.
    """
    env = {"GIT_INDEX_FILE": index, "GIT_OPTIONAL_LOCKS": "1"}  # the private index may be refreshed
    code, out, err = git.run_full(
        [*_STATUS, "status", "--porcelain=v2", "-z", "-unormal", "--no-renames", "--ignore-submodules=dirty"],
        cwd=checkout.root,
        env=env,
    )
    if code != 0:
        _raise_add_failure(code, err)
    paths: list[bytes] = []
    dirs: list[bytes] = []
    records = out.split(b"\0")
    i = 0
    while i < len(records):
        rec = records[i]
        i += 1
        kind = rec[:2]
        if kind == b"1 ":
            if rec[3:4] != b".":
                paths.append(rec.split(b" ", 8)[8])
        elif kind == b"2 ":
            if rec[3:4] != b".":
                paths.append(rec.split(b" ", 9)[9])
            i += 1  # the original path of a rename follows
        elif kind == b"u ":
            paths.append(rec.split(b" ", 10)[10])
        elif kind == b"? ":
            (dirs if rec.endswith(b"/") else paths).append(rec[2:])
    if dirs:
        listed = git.run(
            ["ls-files", "-z", "--others", "--exclude-standard", "--", *[d.decode("utf-8", "surrogateescape") for d in dirs]],
            cwd=checkout.root,
            env={"GIT_INDEX_FILE": index, "GIT_LITERAL_PATHSPECS": "1"},
        )
        paths.extend(p.rstrip(b"/") for p in listed.split(b"\0") if p)
    if not paths:
        return 0
    code, _, err = git.run_full(
        [*_STATUS, "update-index", "-z", "--add", "--remove", "--replace", "--stdin"],
        cwd=checkout.root,
        env={"GIT_INDEX_FILE": index},
        input=b"\0".join(paths) + b"\0",
    )
    if code != 0:
        _raise_add_failure(code, err)
    return len(paths)


def _raise_add_failure(code: int, err: bytes) -> None:
    from pylon.errors import PylonError

    lines = [ln for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()]
    detail = "; ".join(lines[-3:]) or f"exit status {code}"
    raise PylonError(
        "capture-failed",
        f"pylon could not read the working tree to capture it: {detail}",
        "Fix the file named above (permissions, a broken filter driver), then run the command again.",
    )


def _ignore_rules_changed(checkout: Checkout, old: str, new: str) -> bool:
    out = git.run(
        ["diff-tree", "-r", "--name-only", "-z", old, new],
        cwd=checkout.root,
        env={"GIT_INDEX_FILE": os.path.join(checkout.git_dir, "pylon", "no-index")},  # see changes.tree_env
    )
    return any(p == b".gitignore" or p.endswith(b"/.gitignore") for p in out.split(b"\0"))


def _parse_config(proc: git.GitProcess) -> dict[str, list[str]]:
    code, out, _ = proc.wait()
    values: dict[str, list[str]] = {}
    if code == 0:
        for item in out.split(b"\0"):
            if item:
                key, _, value = item.decode("utf-8", "replace").partition("\n")
                values.setdefault(key.lower(), []).append(value)
    return values


# ---------------------------------------------------------------- commits and refs


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
    return "\n".join(lines) + "\n"


def _commit_tree(checkout: Checkout, tree: str, parents: list[str], message: str) -> str:
    args = ["commit-tree", "--no-gpg-sign", tree]
    for parent in parents:
        args += ["-p", parent]
    args += ["-F", "-"]
    out = git.run(args, cwd=checkout.root, env=IDENT, input=message.encode("utf-8"), what="git commit-tree")
    return out.decode().strip()


def update_refs(checkout: Checkout, updates: list[tuple[str, str]], deletes: list[str] | None = None) -> None:
    """One `git update-ref --stdin` transaction (all refs move or none)."""
    lines = [f"update {ref} {oid}" for ref, oid in updates] + [f"delete {ref}" for ref in deletes or []]
    git.run(["update-ref", "--stdin"], cwd=checkout.root, input=("\n".join(lines) + "\n").encode(), what="git update-ref")


def read_state(checkout: Checkout, commitish: str) -> State:
    """Parse a state commit written by capture()."""
    out = git.run(["cat-file", "commit", commitish], cwd=checkout.root)
    return parse_state(out, commitish)


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
    )
