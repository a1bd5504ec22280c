"""Running an op's steps: each checkout restored to a step's `after` (forward) or `before` (back),
and the check that none would be blocked before the intent is written. Used by the op log
(oprun.perform, carry_out) and by the kinds that run their steps themselves (undo, move, finish)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Protocol

    from pylon.workspace.commits import State

    class Step(Protocol):  # oplog.Step, named by what is read here (this module never imports the op log)
        root: str
        before: str
        after: str
        paths: list[str] | None
        head: str
        made: str | None


def preflight(steps: Sequence[Step], *, forward: bool, currents: dict[str, State]) -> None:
    """Refuse (`restore-blocked`) before the intent is written when a step's restore would be
    blocked; `currents` maps each root to its State just captured (reused by run_steps)."""
    from pylon.workspace.ops.restore_plan import blocked_error, plan
    from pylon.workspace.repo import locate

    for step in steps:
        if step.root in currents:
            todo = plan(
                locate(step.root),
                step.after if forward else step.before,
                step.paths,
                current=currents[step.root],
                rules=[step.before, step.after],
                made=step.made if forward else step.after,
            )
            if todo.blocked:
                raise blocked_error(todo.blocked)


def run_steps(
    steps: Sequence[Step], *, forward: bool, currents: dict[str, State] | None = None
) -> list[dict[str, object]]:
    """Restore each step's checkout to `after` (forward) or `before` (last step first); restore()'s results."""
    from pylon.workspace.ops.restore_state import restore
    from pylon.workspace.repo import locate

    results = []
    for step in steps if forward else list(reversed(steps)):
        co = locate(step.root)
        current = (currents or {}).get(step.root)
        try:
            results.append(
                restore(
                    co,
                    step.after if forward else step.before,
                    step.paths,
                    head=step.head,
                    current=current,
                    rules=[step.before, step.after],
                    made=step.made if forward else step.after,
                )
            )
        except Exception as exc:
            from pylon.errors import PylonError  # lastlook raises changed-meanwhile as one

            if results and isinstance(exc, PylonError) and exc.code == "changed-meanwhile":
                exc.details["written"] = True  # an earlier step was
            raise
    return results
