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
import time

from pylon.workspace.commits import read_state, read_states
from pylon.workspace.ops import oplog, oprun, runsteps
from pylon.workspace.ops.undo_capture import capture_steps
from pylon.workspace.repo import Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, TypedDict

    from pylon.workspace.commits import State
    from pylon.workspace.ops.reverse import Outcome

    Pair = tuple[str, str, State, State]  # root, head mode, frm, to

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


# An op record names the module that undoes or finishes it. Records written before the modules
# moved into rooms (issue 19) name the old paths; they live in users' repositories, so they resolve.
MOVED = {
    "pylon.workspace.rm_undo": "pylon.workspace.worktrees.rm_undo",
    "pylon.workspace.finish": "pylon.workspace.worktrees.finish",
    "pylon.workspace.guard_op": "pylon.workspace.ops.guard_op",
}


def _module(op: oplog.Op) -> ModuleType | None:
    name = op.record.get("module")
    if not isinstance(name, str) or not name.startswith("pylon."):
        return None
    import importlib

    return importlib.import_module(MOVED.get(name, name))


def _nothing(finish: bool) -> Exception:
    from pylon.errors import NotFoundError

    if finish:
        return NotFoundError(
            "nothing-to-finish",
            "No operation is interrupted, so there is nothing to finish.",
            "See the log with `pylon ws undo --list`.",
        )
    return NotFoundError(
        "nothing-to-undo", "The op log has no operation left to undo.", "See the log with `pylon ws undo --list`."
    )


def _branch_check(op: oplog.Op) -> None:
    """A branch a step would put back must still be where the op left it (or where it found it)."""
    from pylon.errors import PylonError
    from pylon.workspace import git
    from pylon.workspace.ops.restore_state import state
    from pylon.workspace.repo import locate

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


def mine(checkout: Checkout, op: oplog.Op) -> bool:
    """An op this checkout's undo and redo walk: one run here or that changed it (issue 28: never
    another checkout's). Records from before `from` was kept: every op in the main checkout, as
    then, and the ops that changed it in a linked worktree."""
    from pylon.workspace.ops.opstates import same_root

    if op.home:
        return True  # a shell op of the store: its ledger lists this checkout's alone
    here = any(same_root(step.root, checkout.root) for step in op.steps)
    started = op.record.get("from")
    if isinstance(started, str):
        return here or same_root(started, checkout.root)
    return here or checkout.worktree_name is None


def undo(checkout: Checkout, *, finish: bool = False, markers: bool = False, settled: bool = True) -> dict[str, object]:
    """Reverse the newest op of this checkout. `settled`: first finish the shell commands still
    running (False right after its `.git` was brought back: that is the undo's own first step).
    What changed since the last kept state that no op recorded is later work: kept, and named
    (`unrecorded`)."""
    from pylon.workspace.keep.chain import settle

    with oplog.op_lock(checkout):
        unrecorded = settle(checkout, outside=False) if settled else None
        result = _undo_newest(checkout, finish=finish, markers=markers)
        if unrecorded:
            result["unrecorded"] = unrecorded
        return result


def _undo_newest(checkout: Checkout, *, finish: bool, markers: bool) -> dict[str, object]:
    ops = [o for o in oplog.entries(checkout) if mine(checkout, o)]
    if finish:
        op = next((o for o in ops if o.status in oplog.OPEN), None)
    else:
        op = next((o for o in ops if o.status in ("intent", "done", "undoing", "redoing")), None)
    if op is None:
        raise _nothing(finish)
    if op.home:
        from pylon.workspace.ops.shellop import undo_shell

        return undo_shell(checkout, op, markers=markers)
    module = _module(op)
    _refuse_busy(op)
    if op.status == "redoing":  # a redo was killed: reverse it (undo) or complete it (--finish)
        return _settle_redo(checkout, op, forward=finish)
    if finish and op.status == "undoing":  # an undo was killed: back to the op in effect
        return _reverse_undo(checkout, op, module)
    if finish and op.status == "intent":
        if module is not None and hasattr(module, "finish_op"):
            module.finish_op(checkout, op)
        else:
            runsteps.run_steps(op.steps, forward=True)
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
    if module is not None and hasattr(module, "undo_op"):
        currents = capture_steps(op)
        if op.status != "undoing":
            if hasattr(module, "check_undo"):
                module.check_undo(checkout, op)
            kept = {root: st.commit for root, st in currents.items() if st.commit}
            oplog.set_status(checkout, op, "undoing", undo_from=kept, interrupted=was == "intent")
        said = module.undo_op(checkout, op)
        oplog.set_status(checkout, op, "undone", undone_at=time.time_ns())
        result = _result(op, was, "undone", {})
        if isinstance(said, dict):  # a kind that reports what it kept (guard_op)
            result["later"] = said
        return result
    currents = capture_steps(op)
    if op.status == "undoing" and op.record.get("undo_to"):  # a killed undo: on to the target it chose
        outcomes = _whole(op, "undo_to", currents)
        oplog.set_status(checkout, op, "undoing", **_history(op, currents))
    elif op.status in ("undoing", "intent"):
        # interrupted mid-write (or an undo begun by an older pylon): what differs from the op's
        # states is its own half-done work, not later work, so each step goes back to `before`
        # whole, as it always did; the state replaced is kept in `undo_from`
        if op.status == "intent":
            _branch_check(op)
            runsteps.preflight(op.steps, forward=False, currents=currents)
            oplog.set_status(checkout, op, "undoing", undo_from=_commits(currents), interrupted=True)
        with oprun.closed_if_refused(checkout, op, status=was):
            runsteps.run_steps(op.steps, forward=False, currents=currents)
        oplog.set_status(checkout, op, "undone", undone_at=time.time_ns())
        return _result(op, was, "undone", {})
    else:
        read_states(checkout, [oid for step in op.steps for oid in (step.before, step.after)])  # one batch
        _branch_check(op)
        outcomes = _carry_all(
            checkout, op, step_pairs(checkout, op, forward=False), currents, markers=markers, verb="undo"
        )
        oplog.set_status(
            checkout,
            op,
            "undoing",
            **_history(op),
            undo_from=_commits(currents),
            undo_to={root: o.target for root, o in outcomes.items()},
            undo_kept=_kept(outcomes),
            interrupted=False,
        )
    _write_all(checkout, op, outcomes, currents, was)
    oplog.set_status(checkout, op, "undone", undone_at=time.time_ns())
    return _result(op, was, "undone", outcomes)


def _whole(op: oplog.Op, key: str, currents: dict[str, State]) -> dict[str, Outcome]:
    """An undo or redo killed half-way goes on to the targets it recorded (`key`) as they are: they
    were worked out, later work included, before its first write."""
    from pylon.workspace.ops.reverse import Outcome

    targets = op.record.get(key) or {}
    return {root: Outcome(str(targets[root]), [], [], [], []) for root in currents if root in targets}


def _refuse_busy(op: oplog.Op) -> None:
    from pylon.workspace.repo import locate, refuse_in_progress

    for step in op.steps:
        if os.path.isdir(step.root):
            refuse_in_progress(locate(step.root), "undo or redo an operation")


def _history(op: oplog.Op, currents: dict[str, State] | None = None) -> dict[str, object]:
    """The states an earlier undo or redo of this op recorded (and `currents`: captured when a killed
    one resumes), kept as parents (never pruned)."""
    older = [oid for key in oplog.STATE_MAPS for oid in (op.record.get(key) or {}).values()]
    older += list(_commits(currents or {}).values())
    if not older:
        return {}
    return {"history": list(dict.fromkeys([*(op.record.get("history") or []), *older]))}


def _commits(currents: dict[str, State]) -> dict[str, str]:
    return {root: st.commit for root, st in currents.items() if st.commit}


def _kept(outcomes: dict[str, Outcome]) -> dict[str, object]:
    return {root: o.to_dict() for root, o in outcomes.items()}


def _pairs(op: oplog.Op, frm_key: str, to_key: str) -> list[Pair]:
    """(root, head mode, frm, to) for each root of a recorded undo or redo (frm_key -> to_key)."""
    from pylon.workspace.repo import locate

    heads = {step.root: step.head for step in op.steps}
    frm = op.record.get(frm_key) or {}
    roots = [
        (root, target) for root, target in (op.record.get(to_key) or {}).items() if root in frm and os.path.isdir(root)
    ]
    if roots:  # the states of every root in one batch
        read_states(locate(roots[0][0]), [oid for root, target in roots for oid in (frm[root], target)])
    found: list[Pair] = []
    for root, target in roots:
        co = locate(root)
        found.append((root, heads.get(root, "state"), read_state(co, frm[root]), read_state(co, target)))
    return found


def step_pairs(checkout: Checkout, op: oplog.Op, *, forward: bool) -> list[Pair]:
    """Each step's own change: before -> after (forward), or after -> before, last step first (undo)."""
    from pylon.workspace.ops.reverse import step_states

    read_states(checkout, [oid for step in op.steps for oid in (step.before, step.after)])  # one batch
    found: list[Pair] = []
    for step in op.steps if forward else list(reversed(op.steps)):
        before, after = step_states(checkout, step)
        found.append((step.root, step.head, before, after) if forward else (step.root, step.head, after, before))
    return found


def _carry_all(
    checkout: Checkout, op: oplog.Op, pairs: list[Pair], currents: dict[str, State], *, markers: bool, verb: str
) -> dict[str, Outcome]:
    """Each root's target (reverse.carry), all computed before anything is written; refused on a
    conflict (unless `markers`) or when a write would replace a file outside the current state."""
    from pylon.workspace.ops.restore_plan import blocked_error, plan
    from pylon.workspace.ops.reverse import carry, conflict_error
    from pylon.workspace.repo import locate

    outcomes: dict[str, Outcome] = {}
    conflicts = []
    side = f"before op {op.seq}" if verb == "undo" else f"op {op.seq}"
    for root, head, frm, to in pairs:
        if root not in currents:
            continue
        co = locate(root)
        outcome = carry(co, frm, to, currents[root], head=head, markers=markers, side=side)
        conflicts += outcome.conflicts
        outcomes[root] = outcome
    if conflicts and not markers:
        raise conflict_error(op.title, op.seq, verb, conflicts)
    for root, outcome in outcomes.items():
        todo = plan(locate(root), outcome.target, current=currents[root], made=outcome.made)
        if todo.blocked:
            raise blocked_error(todo.blocked)
    return outcomes


def _write_all(
    checkout: Checkout, op: oplog.Op, outcomes: dict[str, Outcome], currents: dict[str, State], was: str
) -> None:
    """Restore each root to its target; a refusal before the first write leaves the op as it was."""
    from pylon.workspace.ops.restore_state import restore
    from pylon.workspace.repo import locate

    heads = {step.root: step.head for step in op.steps}
    with oprun.closed_if_refused(checkout, op, status=was, abandoned=was != "undone"):
        done = 0
        try:
            for root, outcome in outcomes.items():
                # an untracked file the undone change made (an ignored one included) goes with it
                restore(
                    locate(root),
                    outcome.target,
                    head=heads.get(root, "state"),
                    current=currents[root],
                    made=outcome.made,
                )
                done += 1
        except Exception as exc:
            from pylon.errors import PylonError

            if done and isinstance(exc, PylonError) and exc.code == "changed-meanwhile":
                exc.details["written"] = True
            raise


def _settle_redo(checkout: Checkout, op: oplog.Op, *, forward: bool) -> dict[str, object]:
    """A redo killed half-way: on to the state it was writing (`--finish`), or back to the state it
    replaced (undo); what is there now is kept in the op's history."""
    currents = capture_steps(op)
    outcomes = _whole(op, "redo_to" if forward else "redo_from", currents)
    oplog.set_status(checkout, op, "redoing", **_history(op, currents))
    _write_all(checkout, op, outcomes, currents, "redoing")
    status = "done" if forward else "undone"
    oplog.set_status(checkout, op, status, **({"undone_at": time.time_ns()} if not forward else {}))
    return _result(op, "redoing", "redone" if forward else "undone", outcomes)


def _reverse_undo(checkout: Checkout, op: oplog.Op, module: ModuleType | None) -> dict[str, object]:
    """An undo killed half-way, reversed (`ws undo --finish`): each checkout back to the state the
    undo replaced (`undo_from`, whole: it was captured just before the undo wrote anything), then a
    kind that does more than restores settles its part (`reverse_undo_op`: rm removes the worktree
    the undo had begun to make again). The op is in effect again (`intent` if it never finished)."""
    currents = capture_steps(op)
    oplog.set_status(checkout, op, "undoing", **_history(op, currents))
    outcomes = _whole(op, "undo_from", currents)
    _write_all(checkout, op, outcomes, currents, "undoing")
    if module is not None and hasattr(module, "reverse_undo_op"):
        module.reverse_undo_op(checkout, op)
    status = "intent" if op.record.get("interrupted") else "done"
    oplog.set_status(checkout, op, status)
    return _result(op, "undoing", "finished", outcomes)


def _result(op: oplog.Op, was: str, action: str, outcomes: dict[str, Outcome]) -> dict[str, object]:
    return {
        "op": op.seq,
        "kind": op.kind,
        "title": op.title,
        "action": action,
        "status": op.status,
        "was": was,
        "kept": op.record.get("undo_from") or {},
        "ref": op.ref,
        "later": _kept(outcomes),
        "markers": sorted(p for o in outcomes.values() for p in o.markers),
    }


def listing(checkout: Checkout, limit: int = 50) -> Listing:
    ops = [op for op in oplog.entries(checkout) if mine(checkout, op)]
    shown = ops[:limit]
    held = oplog.lock_held(checkout)
    items: list[ListedOp] = []
    for op in shown:
        status = op.status
        if status in oplog.OPEN and not held:
            status = f"interrupted ({status})"
        items.append(
            {
                "seq": op.seq,
                "kind": op.kind,
                "title": op.title,
                "status": status,
                "time": op.record.get("time"),
                "ref": op.ref,
                "command": op.record.get("command"),
                "abandoned": op.record.get("abandoned"),
            }
        )
    return {"ops": items, "total": len(ops), "truncated": len(ops) > limit}
