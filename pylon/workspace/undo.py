"""`pylon ws undo [--list] [--finish]`: reverse (or complete) the newest op of the log.

Undo picks the newest op that is not undone yet, so repeated undo walks further back. Before it
changes anything it captures every checkout the op touched and records those states in the op
(`undo_from`, status `undoing`): whatever a person did after the op is kept in the log, never
lost. Then each step goes back to its `before` state (restore_state.restore), last step first, or
the op's own module reverses it (`undo_op`), and the op is marked `undone`. An undo killed half-way
leaves the op `undoing`; the next `undo` carries on from there. `--finish` completes an
interrupted op instead (each step to its `after`, or the module's `finish_op`).
"""

from __future__ import annotations

import os

from pylon.workspace import oplog
from pylon.workspace.repo import Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, TypedDict

    from pylon.workspace.commits import State

    class ListedOp(TypedDict):
        seq: int
        kind: str
        title: str
        status: str
        time: Any  # as the record holds it (written as an int)
        ref: str
        command: Any
        abandoned: Any  # why an op closed before writing anything (lastlook.py), else None

    class Listing(TypedDict):
        ops: list[ListedOp]
        total: int
        truncated: bool


def _module(op: oplog.Op) -> ModuleType | None:
    name = op.record.get("module")
    if not isinstance(name, str) or not name.startswith("pylon."):
        return None
    import importlib

    return importlib.import_module(name)


def _nothing(finish: bool) -> Exception:
    from pylon.errors import NotFoundError

    if finish:
        return NotFoundError("nothing-to-finish", "No operation is interrupted, so there is nothing to finish.",
                             "See the log with `pylon ws undo --list`.")
    return NotFoundError("nothing-to-undo", "The op log has no operation left to undo.",
                         "See the log with `pylon ws undo --list`.")


def _branch_check(op: oplog.Op) -> None:
    """A branch a step would put back must still be where the op left it (or where it found it)."""
    from pylon.errors import PylonError
    from pylon.workspace import git
    from pylon.workspace.repo import locate
    from pylon.workspace.restore_state import state

    for step in op.steps:
        if step.head != "state" or not os.path.isdir(step.root):
            continue
        co = locate(step.root)
        before, after = state(co, step.before), state(co, step.after)
        if not before.branch:
            continue
        allowed = {before.head} | ({after.head} if after.branch == before.branch else set())
        now = git.run(["rev-parse", "-q", "--verify", before.branch], cwd=co.root, ok=(0, 1)).decode().strip() or None
        if now not in allowed:
            short = before.branch.removeprefix("refs/heads/")
            raise PylonError(
                "branch-moved",
                f"Branch {short} moved to {str(now)[:12]} after `{op.title}`; undoing would move it back to "
                f"{str(before.head)[:12]} and drop what was added. Nothing was changed.",
                f"Keep the new tip on another branch first (`git branch keep-{short} {short}`), then "
                f"`git branch -f {short} {before.head}` and run `pylon ws undo` again.",
                details={"branch": short, "now": now, "expected": before.head},
            )


def _capture_steps(op: oplog.Op) -> dict[str, State]:
    """Each existing checkout of the op, captured (anchored) just before the undo changes it."""
    from pylon.workspace.repo import locate
    from pylon.workspace.state import capture

    kept: dict[str, State] = {}
    for step in op.steps:
        if os.path.isdir(step.root) and step.root not in kept:
            kept[step.root] = capture(locate(step.root), label=f"before undo of op {op.seq}")
            if op.kind == "restore" and str(op.data.get("name", "")).startswith("guard-"):
                kept[step.root] = _holding_ignored(step, kept[step.root])
    return kept


def _holding_ignored(step: oplog.Step, current: State) -> State:
    """The undo of a restore writes back the ignored files that restore overwrote (a guard
    snapshot holds them): the ones there now are kept in the state replaced first."""
    from pylon.workspace.repo import locate
    from pylon.workspace.restore_state import holding, plan

    co = locate(step.root)
    todo = plan(co, step.before, step.paths, current=current)
    return holding(co, current, todo.blocked) if todo.blocked else current


def undo(checkout: Checkout, *, finish: bool = False) -> dict[str, object]:
    with oplog.op_lock(checkout):
        ops = oplog.entries(checkout)
        if finish:
            op = next((o for o in ops if o.status in oplog.OPEN), None)
        else:
            op = next((o for o in ops if o.status in ("intent", "done", "undoing")), None)
        if op is None:
            raise _nothing(finish)
        module = _module(op)
        from pylon.workspace.moves import refuse_in_progress
        from pylon.workspace.repo import locate

        for step in op.steps:
            if os.path.isdir(step.root):
                refuse_in_progress(locate(step.root), "undo or finish an operation")
        if finish and op.status == "intent":
            if module is not None and hasattr(module, "finish_op"):
                module.finish_op(checkout, op)
            else:
                oplog.run_steps(op.steps, forward=True)
            oplog.complete(checkout, op)
            return {"op": op.seq, "kind": op.kind, "title": op.title, "action": "finished", "status": op.status}
        was = op.status
        gone = [step.root for step in op.steps if not os.path.isdir(step.root)]
        if gone and (module is None or not hasattr(module, "undo_op")):
            from pylon.errors import PylonError

            raise PylonError(
                "checkout-gone",
                f"`{op.title}` (op {op.seq}) changed {gone[0]}, which no longer exists (removed outside pylon), so it "
                "cannot be reversed there. Nothing was changed.",
                "Recreate that worktree at the same path, or leave this op: later commands are not blocked by it.",
                details={"op": op.seq, "paths": gone},
            )
        currents = _capture_steps(op)
        if op.status != "undoing":
            if module is not None and hasattr(module, "check_undo"):
                module.check_undo(checkout, op)
            else:
                _branch_check(op)
                oplog.preflight(op.steps, forward=False, currents=currents)
            kept = {root: st.commit for root, st in currents.items() if st.commit}
            oplog.set_status(checkout, op, "undoing", undo_from=kept, interrupted=was == "intent")
        if module is not None and hasattr(module, "undo_op"):
            module.undo_op(checkout, op)
        else:
            with oplog.closed_if_refused(checkout, op, status=was):  # refused untouched: as it was before
                oplog.run_steps(op.steps, forward=False, currents=currents)
        oplog.set_status(checkout, op, "undone")
    return {"op": op.seq, "kind": op.kind, "title": op.title, "action": "undone", "status": "undone",
            "was": was, "kept": op.record.get("undo_from") or {}, "ref": op.ref}


def listing(checkout: Checkout, limit: int = 50) -> Listing:
    ops = oplog.entries(checkout)
    shown = ops[:limit]
    held = oplog.lock_held(checkout)
    items: list[ListedOp] = []
    for op in shown:
        status = op.status
        if status in oplog.OPEN and not held:
            status = f"interrupted ({status})"
        items.append({"seq": op.seq, "kind": op.kind, "title": op.title, "status": status, "time": op.record.get("time"),
                      "ref": op.ref, "command": op.record.get("command"), "abandoned": op.record.get("abandoned")})
    return {"ops": items, "total": len(ops), "truncated": len(ops) > limit}
