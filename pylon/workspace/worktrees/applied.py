"""Where a session's next `ws apply` starts from: the merge base of apply, and of `ws conflicts`
between that session and the checkout.

The first apply of a session merges what it changed since its baseline. Once an apply of it is
done (and not undone), the checkout already holds what the session had then, so the next apply
merges from that session state instead: only what the session changed since is new, as when git
merges a branch a second time from the newer merge base. Without this, a file the session added
and then edited again would come back as an add/add conflict with its own first version.

The op log says which applies are in effect: the newest `apply` op of the session with status
`done` and the same baseline (an id reused by a later `ws new` starts from its own baseline).
"""

from __future__ import annotations

from pylon.workspace.ops import oplog
from pylon.workspace.repo import Checkout


class Base:
    """The merge base for one session: a commit, and what it is (for the JSON and the op log)."""

    __slots__ = ("commit", "kind", "op")

    def __init__(self, commit: str, kind: str, op: int | None = None) -> None:
        self.commit, self.kind, self.op = commit, kind, op

    def to_dict(self) -> dict[str, object]:
        return {"commit": self.commit, "kind": self.kind, "op": self.op}


def bases(checkout: Checkout, baselines: dict[str, str], source: str = "checkout") -> dict[str, Base]:
    """Session id -> its merge base with `source`, for each id in `baselines` (id -> baseline commit).

    With the checkout, the newest merge in effect between the two counts, either way: an `apply`
    of the session (the checkout then held the session's state of that apply) or a `ws sync` of the
    session from the checkout (the session then held the checkout's state of that sync). With
    another session (`source` = its id), the newest sync of this session from that one."""
    found = {wid: Base(baseline, "baseline") for wid, baseline in baselines.items()}
    settled: set[str] = set()
    for op in oplog.entries(checkout):
        wid = str(op.data.get("id"))
        if wid not in found or wid in settled:
            continue
        if op.kind == "apply" and source == "checkout":
            point, kind = op.data.get("session_state"), "last-apply"
        elif op.kind == "sync" and op.data.get("from") == source:
            point, kind = op.data.get("source_state"), "last-sync"
        else:
            continue
        if op.data.get("baseline") != baselines[wid]:
            continue  # an earlier session that had the same id
        if op.status == "done" and point:
            found[wid] = Base(str(point), kind, op.seq)
            settled.add(wid)
        elif op.status == "undone":
            continue  # undone: the checkout does not hold it; look further back
        else:
            settled.add(wid)  # interrupted: apply refuses until it is settled; keep the baseline
    return found


def holding(checkout: Checkout, worktree_id: str, baseline: str, worktree_tree: str) -> int | None:
    """The op number of the apply in effect that took exactly the session's current tree, if any:
    then everything the session holds is in the checkout (applied, and unchanged since)."""
    for op in oplog.entries(checkout):
        if op.kind != "apply" or str(op.data.get("id")) != worktree_id or op.data.get("baseline") != baseline:
            continue
        if op.status == "undone":
            continue
        if op.status != "done" or not op.data.get("session_state"):
            return None
        from pylon.workspace import git

        tree = git.run(["rev-parse", f"{op.data['session_state']}^{{tree}}"], cwd=checkout.root).decode().strip()
        return op.seq if tree == worktree_tree else None
    return None
