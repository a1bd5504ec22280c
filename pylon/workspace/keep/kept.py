"""One kept state: the checkout captured into pylon's store, with its refs, stash and ignored files.

The state commit has the capture format (state.py: tree = the working tree with untracked files,
`pylon-head`, `pylon-branch`, `pylon-index-tree`, `pylon-meta`), written by pylon itself into the
store (loose.py), plus one line `pylon-keep: <blob>` naming a JSON record:

    {"v": 1, "root": ..., "git": true|false,          # false: the checkout's .git was gone
     "refs": {"refs": {...}, "head": ..., "stash": [...]},   # refsnap.py
     "ignored": {"tree", "count", "bytes", "modes", "dirs", "not_kept"}}   # ignored.py

The capture runs on the keep's own private index (in the store, kept warm between commands) with
the store as git's object folder, so it writes nothing into the repository. A state equal to the
last one kept (same `key`) is that one: nothing new is written.
"""

from __future__ import annotations

import os
import time

from pylon.workspace.keep.store import KeepCheckout, Store
from pylon.workspace.repo import EMPTY_TREE, Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.commits import State

VERSION = 1


class Kept:
    """A kept state: its commit in the store, the capture's State, its record, its key, and `fresh`:
    which vouch of a running `pylon ws watch` it was read from (None: captured by a scan)."""

    __slots__ = ("commit", "state", "record", "key", "fresh")

    def __init__(
        self, commit: str, state: State, record: dict[str, object], key: str, fresh: str | None = None
    ) -> None:
        self.commit, self.state, self.record, self.key, self.fresh = commit, state, record, key, fresh

    @property
    def refs(self) -> dict[str, object]:
        value = self.record.get("refs")
        return value if isinstance(value, dict) else {}

    @property
    def ignored(self) -> dict[str, object]:
        value = self.record.get("ignored")
        return value if isinstance(value, dict) else {}

    @property
    def git_present(self) -> bool:
        return self.record.get("git") is not False


def key_of(state: State, record: dict[str, object]) -> str:
    from pylon.agents.jsonio import dumps
    from pylon.digest import sha256_hex

    ignored = record.get("ignored") if isinstance(record.get("ignored"), dict) else {}
    assert isinstance(ignored, dict)
    parts = [
        state.worktree,
        state.index_tree,
        state.head,
        state.branch,
        state.meta_raw,
        record.get("git"),
        record.get("refs"),
        {k: ignored.get(k) for k in ("tree", "modes", "dirs", "not_kept")},
    ]
    return sha256_hex(dumps(parts, ascii=True, sort_keys=True).encode("ascii"))


def take(
    checkout: Checkout, store: Store, *, git_present: bool = True, last: tuple[str, str, str | None] | None = None
) -> Kept:
    """Keep the checkout's state now; `last` = (key, commit, fresh) of the last one kept, reused when
    equal. A running `pylon ws watch` that vouches for the tree (current.py) spares the scan."""
    from pylon.workspace import git
    from pylon.workspace.keep import ignored, refsnap
    from pylon.workspace.state import capture

    kc = KeepCheckout(checkout, store)
    env = store.env(checkout.common_dir)
    if not git_present:  # read through the store's copy of the .git that is gone
        env.update(GIT_DIR=checkout.git_dir, GIT_WORK_TREE=checkout.root)
    from pylon.workspace.index import file_sig

    private = os.path.join(kc.keep_dir, "index")
    with git.objects_in(env):
        vouched = _vouched(checkout) if git_present else None
        if vouched is not None:
            # the watcher's vouch: every file event before this call handled, and none since the
            # state was read, ignored files included; a vouch other than the last one kept means
            # events came between them, and those may have made or removed ignored entries
            state, fresh = vouched
            moved = last is None or last[2] != fresh
        else:
            fresh = None
            was = file_sig(private)
            state = capture(kc, anchor=False, label="kept")
            # git's untracked cache notices any folder whose entries changed: when the capture's status
            # left the private index as it was, no ignored entry came or went outside ignored folders
            # (ignored.py re-reads those folders and every kept file by their stat data)
            moved = was is None or file_sig(private) != was
        listing = ignored.listing(kc, checkout.index_path) if moved else None
        kept_ignored = ignored.keep(kc, listing, budget(checkout.root))
    record: dict[str, object] = {
        "v": VERSION,
        "root": checkout.root,
        "git": git_present,
        "refs": refsnap.snapshot(checkout.common_dir, checkout.git_dir),
        "ignored": kept_ignored,
    }
    key = key_of(state, record)
    if last is not None and last[0] == key:
        return Kept(last[1], state, record, key, fresh)
    return Kept(write(store, state, record), state, record, key, fresh)


def _vouched(checkout: Checkout) -> tuple[State, str] | None:
    """The state a running `pylon ws watch` vouches for, HEAD re-read (it moves without a file event),
    and the identity of that vouch (its file's inode and times); None when there is no valid vouch.
    The tree's objects are in the repository, which the mirror of .git links before the command
    runs (chain.before), so the kept state outlives a `rm -rf .git` as a scanned one does."""
    from pylon.workspace.current import FRESH, fresh_state, refresh_head
    from pylon.workspace.index import file_sig

    path = os.path.join(checkout.git_dir, "pylon", FRESH)
    sig = file_sig(path)
    if sig is None:  # no watcher vouches (its file goes with it): the common case costs one stat
        return None
    state = fresh_state(checkout)
    if state is None or file_sig(path) != sig:  # replaced meanwhile: which one we read is unknown
        return None
    if state.head_tree is None or checkout.head_by_files() != state.head:
        state = refresh_head(checkout, state)  # HEAD moved since the watcher read it: git says where
    else:
        state.branch = checkout.head_file()[0]  # the same commit, read from the ref files alone
    state.label = "kept"
    return state, repr(sig)


FILE_MAX, TOTAL_MAX = 1 << 20, 64 << 20  # the [keep] defaults (pylon/guard/policy.py reads the settings)


def budget(root: str) -> tuple[int, int]:
    """(ignored_file_max, ignored_max): the policy's `[keep]`, read only when a policy file exists
    (the hook pays no TOML parser otherwise)."""
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.environ.get("HOME", "/"), ".config")
    files = (os.path.join(root, ".pylon", "guard.toml"), os.path.join(config, "pylon", "guard.toml"))
    if not any(os.path.exists(p) for p in files):
        return FILE_MAX, TOTAL_MAX
    from pylon.guard.policy import keep_budget

    return keep_budget(root)


def write(store: Store, state: State, record: dict[str, object]) -> str:
    """The state commit of `state` with its record, written into the store."""
    from pylon.agents.jsonio import dumps
    from pylon.workspace import loose
    from pylon.workspace.commits import state_message

    objects = store.objects
    index_commit = None
    head_tree = state.head_tree or EMPTY_TREE
    now = int(time.time())
    if state.index_tree and state.index_tree != head_tree:
        index_commit = loose.commit(
            objects, state.index_tree, [state.head] if state.head else [], "pylon index of kept\n", now
        )
    blob = loose.blob(objects, dumps(record, ascii=True, sort_keys=True).encode("ascii"))
    message = state_message(state, index_commit) + f"pylon-keep: {blob}\n"
    if state.worktree == EMPTY_TREE:
        loose.write(objects, "tree", b"")  # the empty tree is an object too (git fsck asks for it)
    return loose.commit(objects, state.worktree, [p for p in (state.head, index_commit) if p], message, now)


def load(store: Store, commit: str, common_dir: str | None) -> Kept:
    """A kept state read back from its commit."""
    from pylon.agents.jsonio import loads
    from pylon.workspace import git, loose
    from pylon.workspace.commits import parse_state

    def read(kind: str, oid: str) -> bytes:
        # pylon wrote both objects into the store (write()): read there, checked against their id
        found = loose.read([store.objects], oid, kind)
        if found is not None:
            return found
        with store.objects_in(common_dir):  # packed since, or another hash: git reads it
            return git.run(["cat-file", kind, oid], env={"GIT_DIR": _git_dir(store, common_dir)})

    raw = read("commit", commit)
    state = parse_state(raw, commit)
    blob = next(
        (
            line.split(": ", 1)[1]
            for line in raw.decode("utf-8", "replace").splitlines()
            if line.startswith("pylon-keep: ")
        ),
        None,
    )
    record: dict[str, object] = loads(read("blob", blob)) if blob else {}
    return Kept(commit, state, record, key_of(state, record))


def _git_dir(store: Store, common_dir: str | None) -> str:
    """A git folder to run plumbing in: the repository's, else the mirror's (its .git may be gone)."""
    if common_dir and os.path.isdir(common_dir):
        return common_dir
    return store.mirror
