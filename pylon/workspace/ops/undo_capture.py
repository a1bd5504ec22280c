"""What an undo (or a redo) captures first: each checkout of the op as it is now, anchored, with
the ignored files a restore overwrote kept in that state, so the undo of a restore can write them
back and nothing of the person's is lost on the way."""

from __future__ import annotations

import os

from pylon.workspace.ops import oplog
from pylon.workspace.repo import Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.commits import State


def capture_steps(op: oplog.Op, *, to_after: bool = False) -> dict[str, State]:
    """Each existing checkout of the op, captured (anchored) just before an undo (or a redo:
    `to_after`) changes it."""
    from pylon.workspace.repo import locate
    from pylon.workspace.state import capture

    kept: dict[str, State] = {}
    for step in op.steps:
        if os.path.isdir(step.root) and step.root not in kept:
            kept[step.root] = capture(locate(step.root), label=f"before undo of op {op.seq}")
            if op.kind == "restore":  # it may have written over ignored files (restore.py kept them aside)
                guard = str(op.data.get("name", "")).startswith("guard-")
                kept[step.root] = holding_ignored(
                    step,
                    kept[step.root],
                    step.after if to_after else step.before,
                    only_written=None if guard else step.after,
                )
    return kept


def holding_ignored(step: oplog.Step, current: State, toward: str, only_written: str | None = None) -> State:
    """The undo of a restore writes back the ignored files that restore overwrote (it kept them
    aside; a guard snapshot holds its own): the ones there now are kept in the state replaced first.
    `only_written`: only those that still hold what the restore wrote (the state it went to)."""
    from pylon.workspace.ops.restore_plan import plan
    from pylon.workspace.ops.restore_state import holding
    from pylon.workspace.repo import locate

    co = locate(step.root)
    todo = plan(co, toward, step.paths, current=current)
    held = todo.blocked
    if held and only_written is not None:
        held = as_written(co, only_written, held)
    return holding(co, current, held) if held else current


def as_written(co: Checkout, state: str, paths: list[str]) -> list[str]:
    """Those of `paths` whose file on disk is the blob `state` holds there."""
    from pylon.workspace import git

    full = {p: os.path.join(co.root, p) for p in paths if git.line_safe(p)}
    names = [p for p, f in full.items() if os.path.isfile(f) and not os.path.islink(f)]
    if not names:
        return []
    disk = (
        git.run(
            ["hash-object", "--stdin-paths"],
            cwd=co.root,
            input="".join(p + "\n" for p in names).encode("utf-8", "surrogateescape"),
        )
        .decode()
        .split()
    )
    query = "".join(f"{state}:{p}\n" for p in names).encode("utf-8", "surrogateescape")
    answer = git.run(["cat-file", "--batch-check=%(objectname)"], cwd=co.root, input=query)
    kept = answer.decode(errors="replace").split("\n")  # a missing name comes back as its bytes
    return [p for p, a, b in zip(names, disk, kept) if a == b]
