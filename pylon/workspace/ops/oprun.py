"""Running an op made only of restores through the op log (oplog.py): the protocol with the
restores in between, and the close of an op that a refusal cut short before any write.

Apart from the log because it is the part that drives restores (runsteps.py, restore_state.py):
the log itself is the record (storage, statuses, the op lock) and restores nothing.

API (stable; used by restore, moves, apply, sync, finish and undo):

    perform(checkout, kind, steps, *, title, data=None, anchors=(), module=None, command=None,
            currents=None) -> Op
        The whole protocol for an op made only of restores: under the op lock, check that no
        op is left interrupted (`op-interrupted`) and that no restore would be blocked
        (`restore-blocked`), write the intent, restore each step's checkout to `after` in
        order, mark it done. undo reverses it (each step back to `before`, in reverse order).
        `currents` maps a step's root to the State captured as its `before` (saves a capture);
        `command` is the command line shown by `ws undo --list`. Example (what `ws apply` does):

            before = capture(co)                       # anchored: before.commit
            after = make_state(co, worktree=merged_tree, index_tree=before.index_tree,
                               head=before.head, branch=before.branch, label="apply agent-1")
            perform(co, "apply", [Step(co.root, before.commit, after, "keep")],
                    title="apply agent-1", command="pylon ws apply agent-1", currents={co.root: before})
    carry_out(checkout, op, currents=...)
        The middle and the end for an op of restores begun by hand (oplog.begin: move, restore).
    with closed_if_refused(checkout, op, status="undone", abandoned=True): ...
        Around an op's writes (also undo's, apply's, sync's and finish's own).
"""

from __future__ import annotations

from pylon.workspace.ops import runsteps
from pylon.workspace.ops.oplog import begin, check_clear, complete, op_lock, set_status

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    from pylon.workspace.commits import State
    from pylon.workspace.ops.oplog import Op, Step
    from pylon.workspace.repo import Checkout


class closed_if_refused:  # used as a context manager, named for what it does
    """Around an op's writes: a `changed-meanwhile` refusal raised before anything was written (a file
    edited in the gap between the capture and the first write) closes the op with `status` and
    `abandoned` set, instead of leaving it interrupted: there is nothing to reverse or finish."""

    def __init__(self, checkout: Checkout, op: Op, status: str = "undone", *, abandoned: bool = True) -> None:
        self.checkout, self.op, self.status, self.abandoned = checkout, op, status, abandoned

    def __enter__(self) -> closed_if_refused:
        return self

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> Literal[False]:
        details = getattr(exc, "details", None)
        if (
            getattr(exc, "code", None) == "changed-meanwhile"
            and isinstance(details, dict)
            and details.get("written") is False
        ):
            extra = {"abandoned": "changed-meanwhile"} if self.status == "undone" and self.abandoned else {}
            set_status(self.checkout, self.op, self.status, **extra)
        return False


def summary(results: list[dict[str, object]]) -> list[dict[str, object]]:
    """restore() results without their path lists (the log keeps counts only)."""
    return [{k: r[k] for k in ("written", "deleted", "index", "head_moved")} for r in results]


def perform(
    checkout: Checkout,
    kind: str,
    steps: list[Step],
    *,
    title: str,
    data: dict[str, object] | None = None,
    anchors: list[str] | tuple[str, ...] = (),
    module: str | None = None,
    command: str | None = None,
    currents: dict[str, State] | None = None,
) -> Op:
    """begin, restore each step to `after`, complete: an op made of restores, under the op lock.
    `currents` may map a step's root to the State captured as its `before` (saves a capture)."""
    with op_lock(checkout):
        check_clear(checkout)
        runsteps.preflight(steps, forward=True, currents=currents or {})
        op = begin(checkout, kind, steps, title=title, data=data, anchors=anchors, module=module, command=command)
        carry_out(checkout, op, currents=currents)
        return op


def carry_out(checkout: Checkout, op: Op, *, currents: dict[str, State] | None = None) -> list[dict[str, object]]:
    """After begin(): restore each step to `after`, then complete the op; restore()'s results.
    A refusal before anything was written closes the op instead (closed_if_refused)."""
    with closed_if_refused(checkout, op):
        results = runsteps.run_steps(op.steps, forward=True, currents=currents)
    complete(checkout, op, results=summary(results))
    return results
