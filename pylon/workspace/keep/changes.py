"""What a shell op changed, from its two kept states: the exact paths (content, type, permission bits,
empty folders, kept ignored files), the staged index, HEAD, refs, the stash, `.git` itself, and what
the command touched that was not kept (over the budget). Recorded in the op (`data.changed`) for
`ws log`, the board and the note of `ws undo`.
"""

from __future__ import annotations

from pylon.workspace import immutable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.keep.kept import Kept
    from pylon.workspace.keep.store import Store
    from pylon.workspace.repo import Checkout

PATHS_MAX = 2000  # paths listed in the record (their total is always given)


def _diff(checkout: Checkout, store: Store, common_dir: str | None, old: str | None, new: str | None) -> list[str]:
    from pylon.workspace.keep.kept import _git_dir
    from pylon.workspace.repo import EMPTY_TREE

    old, new = old or EMPTY_TREE, new or EMPTY_TREE
    with store.objects_in(common_dir):  # the capture's check asked the same two trees (state.py)
        return immutable.name_only(checkout, old, new, env={"GIT_DIR": _git_dir(store, common_dir)}, here=False)


def meta_paths(a: dict[str, object] | None, b: dict[str, object] | None) -> list[str]:
    """Paths whose recorded bits differ, and empty folders made or removed."""
    from pylon.workspace.exact import dirs_of, modes_of

    ma, mb = modes_of(a), modes_of(b)
    paths = {p for p in set(ma) | set(mb) if ma.get(p) != mb.get(p)}
    return sorted(paths | (set(dirs_of(a)) ^ set(dirs_of(b))))


def _ignored_meta(kept: Kept) -> dict[str, object]:
    ign = kept.ignored
    return {"m": ign.get("modes") or {}, "d": ign.get("dirs") or []}


def _listed(value: object) -> list[list[object]]:
    return [entry for entry in value if isinstance(entry, list)] if isinstance(value, list) else []


def summary(checkout: Checkout, store: Store, before_commit: str, after: Kept) -> dict[str, object]:
    from pylon.workspace.keep.kept import load
    from pylon.workspace.keep.refsnap import changed

    common = checkout.common_dir
    before = load(store, before_commit, common)
    paths = set(_diff(checkout, store, common, before.state.worktree, after.state.worktree))
    paths |= set(
        _diff(
            checkout,
            store,
            common,
            str(before.ignored.get("tree") or "") or None,
            str(after.ignored.get("tree") or "") or None,
        )
    )
    paths |= set(meta_paths(before.state.meta, after.state.meta))
    paths |= set(meta_paths(_ignored_meta(before), _ignored_meta(after)))
    listed = sorted(paths)
    not_kept = [entry for side in (after, before) for entry in _listed(side.ignored.get("not_kept"))]
    out: dict[str, object] = {
        "paths": listed[:PATHS_MAX],
        "paths_total": len(listed),
        "index": before.state.index_tree != after.state.index_tree,
        "head": [before.state.head, after.state.head] if before.state.head != after.state.head else [],
        "branch": [before.state.branch, after.state.branch] if before.state.branch != after.state.branch else [],
        "refs": changed(before.refs, after.refs),
        "not_kept": [e for i, e in enumerate(not_kept) if e not in not_kept[:i]][:100],
    }
    if before.git_present != after.git_present:
        out["git"] = "removed" if before.git_present else "made again"
    return out


def said(change: dict[str, object]) -> list[str]:
    """One phrase per kind of change (for `ws log` and `ws undo`), empty when nothing is recorded."""
    words: list[str] = []
    total = change.get("paths_total")
    if isinstance(total, int) and total:
        words.append(f"{total} path(s)")
    if change.get("index"):
        words.append("the staged index")
    if change.get("head") or change.get("branch"):
        words.append("HEAD")
    refs = change.get("refs") if isinstance(change.get("refs"), dict) else {}
    assert isinstance(refs, dict)
    moved = [r for k in ("created", "deleted", "moved") for r in refs.get(k) or []]
    if moved:
        words.append("refs " + ", ".join(moved[:10]) + (f" (and {len(moved) - 10} more)" if len(moved) > 10 else ""))
    if refs.get("stash_added") or refs.get("stash_dropped"):
        words.append("the stash")
    if change.get("git"):
        words.append(f".git ({change['git']})")
    return words
