"""What the board may change, with `--allow-actions`: the CLI's own ops, through the library, each
recorded in the op log exactly as the command would record it (`ws log` names them)."""

from __future__ import annotations

from typing import Any

from pylon.errors import PylonError
from pylon.serve.data import Board

KINDS = ("apply", "sync", "undo", "restore", "rm")


def _word(body: dict[str, Any], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value:
        raise PylonError(
            "bad-action",
            f"This action needs `{key}` (a non-empty string).",
            "Use the board's buttons, or the matching `pylon ws` command.",
        )
    return value


def run(board: Board, body: dict[str, Any]) -> dict[str, object]:
    """Run one action; PylonError passes through (refusals such as `apply-conflicts` included)."""
    kind = body.get("action")
    if kind not in KINDS:
        raise PylonError(
            "bad-action",
            f"Unknown action {kind!r}: the board runs {', '.join(KINDS)}.",
            "Use the board's buttons, or the matching `pylon ws` command.",
        )
    with board.action_lock:
        checkout = board.checkout()
        if kind == "apply":
            from pylon.workspace.worktrees.apply import apply

            ident = _word(body, "id")
            return apply(checkout, ident, command=f"pylon ws apply {ident}")
        if kind == "sync":
            from pylon.workspace.worktrees.sync import sync

            ident = _word(body, "id")
            return sync(checkout, ident, "checkout", command=f"pylon ws sync {ident}")
        if kind == "undo":
            from pylon.workspace.ops.undo import undo

            return undo(checkout)
        if kind == "restore":
            from pylon.workspace.ops.restore import restore_named

            return dict(restore_named(checkout, _word(body, "name")))
        from pylon.workspace.worktrees.rm import rm

        return rm(checkout, _word(body, "id"), force=body.get("force") is True)
