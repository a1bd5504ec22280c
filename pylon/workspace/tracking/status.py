"""`pylon ws status`: where you are (checkout, HEAD, operations in progress, baselines, watch)."""

from __future__ import annotations

from pylon.workspace import state as st
from pylon.workspace.current import watcher_alive
from pylon.workspace.repo import Checkout, config_values, layout_notes
from pylon.workspace.since import Since, resolve
from pylon.workspace.tracking.baseline import list_baselines


def status(checkout: Checkout) -> dict[str, object]:
    """A cheap summary: no working-tree scan (use `changes` for what changed)."""
    since = resolve(checkout, None)
    branch, _ = checkout.head_file()
    return {
        "root": checkout.root,
        "git_dir": checkout.git_dir,
        "common_dir": checkout.common_dir,
        "linked": checkout.is_linked,
        "prefix": checkout.prefix,
        "head": _head(checkout, since),
        "branch": st.short_branch(branch),
        "in_progress": checkout.in_progress(),
        "default_since": since.label,
        "baselines": list_baselines(checkout),
        "watching": watcher_alive(checkout),
        "worktrees": _owned(checkout),
        **_ops(checkout),
        "leftovers": _leftovers(checkout),
        "notes": layout_notes(checkout, config_values(checkout)),
    }


def _head(checkout: Checkout, since: Since) -> str | None:
    """HEAD's commit: from the default `--since` when that is HEAD (git was just asked), else git."""
    if since.ref == "HEAD":  # the default was resolved from HEAD: the same answer
        return since.commit
    head, _tree = st.head_info(st.start_head_query(checkout))
    return head


def _owned(checkout: Checkout) -> list[dict[str, str]]:
    """The owned worktrees (no scan: `ws list` reads their states)."""
    from pylon.workspace.worktrees.owned import survey

    return [{"id": o.id, "path": o.path, "branch": o.branch} for o in survey(checkout).owned.values() if o.present]


def _ops(checkout: Checkout) -> dict[str, object]:
    """The op log's tail, the move in effect, and an interrupted op with both ways out."""
    from pylon.workspace.ops import oplog

    recent = oplog.entries(checkout, limit=50)  # one reading of the log for both
    tail = recent[:5]
    stuck = oplog.interrupted(checkout, recent)
    moved = next((op for op in tail if op.kind in ("move", "move-back") and op.status != "undone"), None)
    return {
        "ops": [{"seq": op.seq, "kind": op.kind, "title": op.title, "status": op.status} for op in tail],
        "moved_in": moved.data.get("id")
        if moved is not None and moved.kind == "move" and moved.status == "done"
        else None,
        "interrupted": None
        if stuck is None
        else {
            "seq": stuck.seq,
            "kind": stuck.kind,
            "title": stuck.title,
            "status": stuck.status,
            **oplog.ways_out(stuck),
        },
    }


def _leftovers(checkout: Checkout) -> dict[str, object]:
    """Temp files and locks of killed pylons: removed now when their owner is proven dead, the rest
    listed with the command that removes them (leftovers.py)."""
    from pylon.workspace.leftovers import sweep

    found = sweep(checkout)
    return {"removed": len(found["removed"]) if isinstance(found["removed"], list) else 0, "kept": found["kept"]}
