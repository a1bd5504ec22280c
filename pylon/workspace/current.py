"""The current checkout state: from a live `pylon ws watch` when it vouches for it, else captured.

A running watcher keeps `<git-dir>/pylon/fresh` up to date: it deletes the file on the first
filesystem event and rewrites it after each settled rescan, and it holds `watch.lock` for as long
as it runs. A reader trusts it only while that lock is held, the real index and the
ignore-rule files are unchanged since it was written; otherwise it captures (one scan).
"""

from __future__ import annotations

import os

from pylon.atomic import replace_unsynced
from pylon.workspace import state as st
from pylon.workspace.repo import Checkout

FRESH = "fresh"
WATCH_LOCK = "watch.lock"


def watcher_alive(checkout: Checkout) -> bool:
    """True while some process holds this checkout's watch lock."""
    from pylon.locks import is_held

    return is_held(os.path.join(checkout.git_dir, "pylon", WATCH_LOCK))


def write_fresh(checkout: Checkout, state: st.State) -> None:
    """The watcher's vouch: one `key<TAB>value` per line (readers avoid importing json)."""
    import json

    fields = {
        "commit": state.commit or "",
        "worktree": state.worktree,
        "index_tree": state.index_tree or "",
        "head": state.head or "",
        "head_tree": state.head_tree or "",
        "branch": state.branch or "",
        "time": str(state.captured_at),
        "index_sig": str(st.file_sig(checkout.index_path)),
        "excl_sig": str(st.excludes_sig(checkout)),
        "pid": str(os.getpid()),
        "notes": json.dumps(state.notes),
        "meta": state.meta_raw or "",  # exact.py's record (base64: no tab, no newline)
    }
    path = os.path.join(checkout.git_dir, "pylon", FRESH)
    replace_unsynced(path, "".join(f"{k}\t{v}\n" for k, v in fields.items()).encode("utf-8"))


def fresh_state(checkout: Checkout) -> st.State | None:
    """The watcher-vouched state, when it is still valid; None otherwise.

    Valid means: the watcher that wrote it still holds its lock, answers a sync (watchsync.py: it
    has handled every file event made before this call), and the file is still there after it."""
    path = os.path.join(checkout.git_dir, "pylon", FRESH)
    pid = (_read_fresh(path) or {}).get("pid", "")
    if not pid.isdigit() or not watcher_alive(checkout):
        return None
    from pylon.workspace.watchsync import synced

    if not synced(checkout.git_dir, int(pid)):
        return None
    data = _read_fresh(path)  # again: what it holds now, after every earlier event was handled
    if not data or not data.get("worktree") or not data.get("commit") or data.get("pid") != pid:
        return None
    if data.get("index_sig") != str(st.file_sig(checkout.index_path)):
        return None
    if data.get("excl_sig") != str(st.excludes_sig(checkout)):
        return None
    if not watcher_alive(checkout):
        return None
    notes: list[dict[str, str]] = []
    if data.get("notes", "[]") != "[]":
        import json

        notes = json.loads(data["notes"])
    return st.State(
        commit=data["commit"],
        head=data.get("head") or None,
        branch=data.get("branch") or None,
        index_tree=data.get("index_tree") or None,
        worktree=data["worktree"],
        notes=notes,
        captured_at=int(data.get("time") or 0),
        label="current",
        meta_raw=data.get("meta") or None,
        head_tree=data.get("head_tree") or None,  # HEAD's tree when the watcher read it
    )


def _read_fresh(path: str) -> dict[str, str] | None:
    try:
        with open(path, encoding="utf-8") as fh:
            return dict(line.rstrip("\n").split("\t", 1) for line in fh if "\t" in line)
    except (OSError, ValueError):
        return None


def current_state(checkout: Checkout) -> tuple[st.State, str]:
    """(state, source) where source is "watch" (vouched by a live watcher) or "scan"."""
    fresh = fresh_state(checkout)
    if fresh is not None:
        return fresh, "watch"
    return st.capture(checkout), "scan"


def refresh_head(checkout: Checkout, state: st.State) -> st.State:
    """A watcher-vouched state with HEAD and branch re-read (they can move without file events)."""
    head, tree = st.head_info(st.start_head_query(checkout))
    state.head, state.head_tree = head, tree
    state.branch = checkout.head_file()[0]
    return state
