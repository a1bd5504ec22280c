"""Handler of `pylon ws apply ID`: calls pylon.workspace.apply and renders what it changed."""

from __future__ import annotations

from pylon.cli.output import err as note
from pylon.cli.output import out
from pylon.cli.ws_render import emit, show_path

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Any, Protocol

    from pylon.cli.ws import JsonArgs

    class ApplyArgs(JsonArgs, Protocol):
        id: str


def apply(args: ApplyArgs) -> int:
    from pylon.errors import PylonError
    from pylon.workspace.apply import apply as run_apply
    from pylon.workspace.repo import locate

    try:
        result = run_apply(locate(), args.id, command=f"pylon ws apply {args.id}")
    except PylonError as exc:
        if exc.code == "apply-conflicts" and not args.json:
            note(conflict_block(exc.details))
        raise
    if args.json:
        emit(result)
        return 0
    out(summary(result))
    if result["applied"]:
        base = result["base"]
        if isinstance(base, dict) and base.get("kind") == "last-apply":
            note(f"pylon: merged what {args.id} changed since its last apply (op {base['op']}), not since its baseline")
        note(f"pylon: the staged index is as it was; the merged changes are unstaged (op {result['op']}; "
             "`pylon ws undo` reverses it)")
    return 0


def summary(result: dict[str, Any]) -> str:
    if not result["applied"]:
        return f"nothing to apply from {result['id']}: this checkout already has its changes\n"
    lines = [f"applied {result['id']}: {result['total']} path(s) changed in the working tree"]
    lines += [f"  {f['status']:<9} {show_path(f['path'])}" for f in result["files"]]
    return "\n".join(lines) + "\n"


def conflict_block(details: dict[str, Any]) -> str:
    from pylon.cli.ws_worktrees_render import conflict_report

    pair = {"a": details["id"], "b": None, "with": "checkout", "conflicts": details["conflicts"], "touching": []}
    return conflict_report({"pairs": [pair], "worktrees": [details["id"]]}).rstrip("\n")
