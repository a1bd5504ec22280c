"""Handler of `pylon ws apply ID`: calls pylon.workspace.apply and renders what it changed."""

from __future__ import annotations

from pylon.cli.output import err as note
from pylon.cli.output import ok_json as emit
from pylon.cli.output import out
from pylon.cli.ws_render import show_path

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Any, Protocol

    from pylon.cli.ws import JsonArgs

    class ApplyArgs(JsonArgs, Protocol):
        id: str
        markers: bool
        diff3: bool


def apply(args: ApplyArgs) -> int:
    from pylon.errors import PylonError, UsageError
    from pylon.workspace.apply import apply as run_apply
    from pylon.workspace.repo import locate

    if args.diff3 and not args.markers:
        raise UsageError("usage", "--diff3 only shapes the markers that --markers writes.",
                         f"pylon ws apply {args.id} --markers --diff3")
    flags = " --markers" * args.markers + " --diff3" * args.diff3
    try:
        result = run_apply(locate(), args.id, command=f"pylon ws apply {args.id}{flags}", markers=args.markers,
                           diff3=args.diff3)
    except PylonError as exc:
        if exc.code == "apply-conflicts" and not args.json:
            note(conflict_block(exc.details))
        raise
    if args.json:
        emit(result)
        return 0
    out(summary(result))
    marked = result["markers"]
    if isinstance(marked, list) and marked:
        note(conflict_block({"id": args.id, "conflicts": result["conflicts"]}))
        note(markers_note(marked))
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
    marked = set(result.get("markers") or ())
    lines += [f"  {f['status']:<9} {show_path(f['path'])}{'  (conflict markers)' if f['path'] in marked else ''}"
              for f in result["files"]]
    return "\n".join(lines) + "\n"


def markers_note(paths: list[str]) -> str:
    return (f"pylon: conflict markers written in {len(paths)} path(s); resolve each (find them with "
            f"`pylon read {show_path(paths[0])} --grep '^[<=>|]{{7}}'`), or reverse it all with `pylon ws undo`")


def conflict_block(details: dict[str, Any]) -> str:
    from pylon.cli.ws_worktrees_render import conflict_report

    pair = {"a": details["id"], "b": None, "with": "checkout", "conflicts": details["conflicts"], "touching": []}
    return conflict_report({"pairs": [pair], "worktrees": [details["id"]]}).rstrip("\n")
