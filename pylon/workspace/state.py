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

Only the private index is ever locked or written (index.py); the State record, commits and refs are
in commits.py.
See docs/benchmarks.md for the measurements.
"""

from __future__ import annotations

import os
import time

from pylon.workspace import exact as exact_mod
from pylon.workspace import git, refs
from pylon.workspace.commits import (
    IDENT,
    State,
    commit_tree,
    iso,
    parse_state,
    read_state,
    short_branch,
    state_message,
    update_refs,
)
from pylon.workspace.exact import Scan
from pylon.workspace.index import (
    PrivateIndex,
    _config_paths,
    at_risk,
    copy_index,
    excludes_sig,
    file_sig,
    read_json,
    stage_worktree,
    write_json,
    write_tree,
)
from pylon.workspace.nested import embedded_notes, filter_note
from pylon.workspace.repo import EMPTY_TREE, Checkout, layout_notes

__all__ = [
    "IDENT",
    "State",
    "capture",
    "commit_tree",
    "excludes_sig",
    "file_sig",
    "head_info",
    "iso",
    "parse_state",
    "read_json",
    "read_state",
    "short_branch",
    "start_head_query",
    "state_message",
    "update_refs",
    "write_json",
]
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.exact_quick import Quick

_META_VERSION = 1
_RECENT_MAX = 100_000  # more paths hashed in one capture: the next one starts afresh from the real index


def head_info(proc: git.GitProcess) -> tuple[str | None, str | None]:
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


def capture(
    checkout: Checkout,
    *,
    anchor: bool = True,
    label: str = "current",
    extra_refs: list[str] | None = None,
    exact: bool = False,
    scanned: Scan | None = None,
) -> State:
    """Capture the checkout state; with `anchor`, write the state commit and refs/pylon refs.

    Every capture records the files' permission bits other than 644/755 and the empty folders
    (exact.py), kept current from what its `git status` saw (exact_quick.py). `exact` (named
    baselines) walks the checkout for them instead: `scanned` when the caller walked it already,
    else a walk run beside the capture's `git status`."""
    from pylon.workspace.exact_quick import Quick

    private = PrivateIndex(checkout)
    quick = Quick(checkout, private.path, private.persistent)
    if exact:
        quick.force(scanned)
    try:
        return _capture(checkout, private, anchor=anchor, label=label, extra_refs=extra_refs or [], quick=quick)
    finally:
        private.close()
        quick.close()


def _capture(
    checkout: Checkout, private: PrivateIndex, *, anchor: bool, label: str, extra_refs: list[str], quick: Quick
) -> State:
    meta_path = os.path.join(private.dir, "state.json")
    meta = read_json(meta_path) if private.persistent else None
    head_kept = _head_kept(checkout, meta)  # HEAD where the last capture saw it: its tree is known
    head_proc = None if head_kept else start_head_query(checkout)
    config_sig = [file_sig(p) for p in _config_paths(checkout)]
    config_kept = meta.get("config") if meta and meta.get("config_sig") == config_sig else None
    config_proc = (
        None
        if isinstance(config_kept, dict)
        else git.start(["config", "-z", "--get-regexp", r"^(core\.sparsecheckout|filter\..*)$"], cwd=checkout.root)
    )
    real_sig = file_sig(checkout.index_path)
    excl = excludes_sig(checkout)
    anchored = bool(meta) and (checkout.objects_kept or _anchored(checkout, meta.get("commit") if meta else None))
    reuse = bool(
        meta
        and meta.get("v") == _META_VERSION
        and meta.get("index_sig") == real_sig
        and meta.get("excl_sig") == excl
        and meta.get("worktree")
        and not meta.get("filter_failed")
        and meta.get("recent") is not None  # else what the last capture hashed is not known: start afresh
        and real_sig is not None
        # the private index as the last capture left it: a capture killed after staging into it, before
        # this record, left an index newer than `worktree` (its status would then see nothing to stage)
        and meta.get("private_sig") == file_sig(private.path)
        and anchored
    )
    for attempt in (0, 1):
        if reuse and meta:
            index_tree, unmerged = meta.get("index_tree"), bool(meta.get("unmerged"))
            copied_sig = real_sig
        else:
            copied_sig = copy_index(checkout.index_path, private.path)
            if copied_sig is None:
                index_tree, unmerged = EMPTY_TREE, False
            else:
                index_tree, unmerged = write_tree(checkout, private.path)
        recheck = (
            at_risk(checkout, meta.get("recent") or [], meta.get("recent_window") or [0, 0]) if reuse and meta else []
        )
        quick.begin(reuse)
        staged = stage_worktree(checkout, private.path, recheck, quick.after_status)
        embedded, empty = staged.embedded, staged.empty
        if reuse and meta:
            # a kept private index already holds earlier embedded repositories as gitlinks, so
            # status no longer names them: carry them over while they are still repositories
            kept = [p for p in meta.get("embedded") or [] if os.path.exists(os.path.join(checkout.root, p, ".git"))]
            embedded = sorted(set(embedded) | set(kept))
        if reuse and meta and not staged.paths and not staged.dropped and not staged.embedded:
            worktree = str(meta["worktree"])  # nothing staged into the kept index: its tree is the last one
        else:
            written, _ = write_tree(checkout, private.path)
            if written is None:
                raise git.failure(["write-tree"], 1, b"the private index still has unmerged entries")
            worktree = written
        if (
            attempt == 0
            and reuse
            and meta
            and worktree != meta["worktree"]
            and _ignore_rules_changed(checkout, meta["worktree"], worktree)
        ):
            reuse = False  # entries added before may be ignored now: start again from the real index
            continue
        break
    head, head_tree = head_info(head_proc) if head_proc is not None else head_kept or (None, None)
    branch, _detached = checkout.head_file()
    config = _parse_config(config_proc) if config_proc is not None else config_kept
    assert isinstance(config, dict)
    notes = layout_notes(checkout, config, index_unmerged=unmerged)
    notes += embedded_notes(embedded, empty) + filter_note(staged.filter_errors)
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
        head_tree=head_tree or (EMPTY_TREE if head is None else None),
    )
    exact_meta = quick.meta(worktree, staged.paths)
    quick.save(exact_meta)
    state.meta_raw = exact_mod.encode(exact_meta)
    new_meta: dict[str, object] = {
        "v": _META_VERSION,
        "index_sig": copied_sig,
        "excl_sig": excl,
        "index_tree": index_tree,
        "unmerged": unmerged,
        "worktree": worktree,
        "head": head,
        "head_tree": head_tree,
        "branch": branch,
        "notes": notes,
        "embedded": embedded,
        # a file staged through a failed filter looks clean to the next status: start afresh then
        "filter_failed": bool(staged.filter_errors),
        # what this capture hashed and when, for the next one to hash again if edited in the same second
        "recent": [os.fsdecode(p) for p in staged.paths] if len(staged.paths) <= _RECENT_MAX else None,
        "recent_window": list(staged.window),
        "time": now,
        "meta_raw": state.meta_raw,
        # the settings layout_notes reads, kept while no config file git reads changed (one process less)
        "config": config,
        "config_sig": config_sig,
    }
    index_commit = None
    if meta and meta.get("index_tree") == index_tree and meta.get("head") == head:
        index_commit = meta.get("index_commit")
    if anchor:
        reusable = (
            label == "current"
            and not extra_refs
            and meta
            and meta.get("meta_raw") == state.meta_raw
            and anchored  # else a capture on a temporary index moved the ref: anchor a commit again
            and meta.get("commit")
            and all(meta.get(k) == new_meta[k] for k in ("worktree", "head", "branch", "index_tree"))
        )
        if reusable and meta:
            state.commit = meta["commit"]
            index_commit = meta.get("index_commit")
        else:
            if index_tree and index_tree != (head_tree or EMPTY_TREE) and not index_commit:
                index_commit = commit_tree(checkout, index_tree, [head] if head else [], f"pylon index of {label}\n")
            state.commit = commit_tree(
                checkout, worktree, [p for p in (head, index_commit) if p], state_message(state, index_commit)
            )
            update_refs(
                checkout, [(refs.current_ref(checkout), state.commit), *[(r, state.commit) for r in extra_refs]]
            )
        new_meta["commit"] = state.commit
    elif (
        meta
        and meta.get("commit")
        and all(meta.get(k) == new_meta[k] for k in ("worktree", "head", "branch", "index_tree"))
    ):
        new_meta["commit"] = meta["commit"]
    new_meta["index_commit"] = index_commit
    if private.persistent:
        new_meta["private_sig"] = file_sig(private.path)
        write_json(meta_path, new_meta)
    return state


def _head_kept(checkout: Checkout, meta: dict[str, object] | None) -> tuple[str, str] | None:
    """(HEAD, its tree) from the last capture's record when HEAD's ref files still name that commit
    (a commit's tree never changes): one git process less per capture."""
    if not meta or meta.get("v") != _META_VERSION:
        return None
    head, tree = meta.get("head"), meta.get("head_tree")
    if not (isinstance(head, str) and isinstance(tree, str) and head and tree):
        return None
    return (head, tree) if checkout.head_by_files() == head else None


def _anchored(checkout: Checkout, commit: object) -> bool:
    """Is the last capture still anchored by refs/pylon/.../current? If someone deleted that ref,
    a gc may have pruned the objects the kept private index points at: start from the real index."""
    if not isinstance(commit, str):
        return False
    ref = refs.current_ref(checkout)
    try:
        with open(os.path.join(checkout.common_dir, ref), "rb") as fh:
            return fh.read(80).strip().decode("ascii", "replace") == commit
    except FileNotFoundError:
        pass
    except OSError:
        return False
    try:
        with open(os.path.join(checkout.common_dir, "packed-refs"), "rb") as fh:
            return f"{commit} {ref}\n".encode() in fh.read()
    except OSError:
        return False


def _ignore_rules_changed(checkout: Checkout, old: str, new: str) -> bool:
    from pylon.workspace import immutable

    env = {"GIT_INDEX_FILE": os.path.join(checkout.git_dir, "pylon", "no-index")}  # see changes.tree_env
    paths = immutable.name_only(checkout, old, new, env=env)  # the keep's op summary asks the same
    return any(p == ".gitignore" or p.endswith("/.gitignore") for p in paths)


def _parse_config(proc: git.GitProcess) -> dict[str, list[str]]:
    code, out, _ = proc.wait()
    values: dict[str, list[str]] = {}
    if code == 0:
        for item in out.split(b"\0"):
            if item:
                key, _, value = item.decode("utf-8", "replace").partition("\n")
                values.setdefault(key.lower(), []).append(value)
    return values
