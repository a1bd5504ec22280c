"""Handlers of `pylon ws apply ID` and `pylon ws sync ID`: call pylon.workspace.worktrees.apply / sync and
render what they changed (conflict reports on stderr, as `ws conflicts` prints them)."""

from __future__ import annotations

from pylon.cli.output import err as note
from pylon.cli.output import out
from pylon.cli.ws.render import conflicts_shown, emit, show_path

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Any, Protocol

    from pylon.cli.ws.core import JsonArgs

    class ApplyArgs(JsonArgs, Protocol):
        id: str
        markers: bool
        diff3: bool

    class SyncArgs(ApplyArgs, Protocol):
        from_id: str

    class FinishArgs(JsonArgs, Protocol):
        id: str
        commit: str | None
        keep_branch: bool
        no_verify: bool


def apply(args: ApplyArgs) -> int:
    from pylon.workspace.repo import locate
    from pylon.workspace.worktrees.apply import apply as run_apply

    flags = _marker_flags(args, "apply")
    with conflicts_shown(args.json, _report):
        result = run_apply(
            locate(), args.id, command=f"pylon ws apply {args.id}{flags}", markers=args.markers, diff3=args.diff3
        )
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
        if isinstance(base, dict) and base.get("kind") in _SINCE:
            note(
                f"pylon: merged what {args.id} changed since its {_SINCE[base['kind']]} (op {base['op']}), "
                "not since its baseline"
            )
        note(
            f"pylon: the staged index is as it was; the merged changes are unstaged (op {result['op']}; "
            "`pylon ws undo` reverses it)"
        )
    return 0


def _report(code: str, details: dict[str, object]) -> str | None:
    """A refused apply or sync: the conflict report, as `ws conflicts` prints it."""
    if code not in ("apply-conflicts", "sync-conflicts"):
        return None
    return conflict_block(details, str(details.get("from") or "checkout"))


_SINCE = {"last-apply": "last apply", "last-sync": "last sync from this checkout"}


def _marker_flags(args: ApplyArgs, verb: str) -> str:
    from pylon.errors import UsageError

    if args.diff3 and not args.markers:
        raise UsageError(
            "usage",
            "--diff3 only shapes the markers that --markers writes.",
            f"pylon ws {verb} {args.id} --markers --diff3",
        )
    return " --markers" * args.markers + " --diff3" * args.diff3


def sync(args: SyncArgs) -> int:
    from pylon.workspace.repo import locate
    from pylon.workspace.worktrees.sync import sync as run_sync

    flags = (f" --from {args.from_id}" if args.from_id != "checkout" else "") + _marker_flags(args, "sync")
    with conflicts_shown(args.json, _report):
        result = run_sync(
            locate(),
            args.id,
            args.from_id,
            markers=args.markers,
            diff3=args.diff3,
            command=f"pylon ws sync {args.id}{flags}",
        )
    if args.json:
        emit(result)
        return 0
    source = "the checkout" if result["from"] == "checkout" else f"session {result['from']}"
    if not result["synced"]:
        out(f"nothing to sync into {args.id}: it already has what {source} holds\n")
        return 0
    out(summary(result, f"synced {args.id} from {source}: {result['total']} path(s) changed in its worktree"))
    marked = result["markers"]
    assert isinstance(marked, list)
    if marked:
        note(conflict_block({"id": args.id, "conflicts": result["conflicts"]}, str(result["from"])))
        note(markers_note(sorted(marked), f'cd "$(pylon ws path {args.id})" && '))
    note(
        f"pylon: the session's index and HEAD are as they were; what came in is unstaged there (op {result['op']}; "
        "`pylon ws undo` reverses it)"
    )
    return 0


def finish(args: FinishArgs) -> int:
    from pylon.errors import UsageError
    from pylon.workspace.repo import locate
    from pylon.workspace.worktrees.finish import finish as run_finish

    if args.commit is not None and not args.commit.strip():
        raise UsageError("usage", "--commit needs a message.", f"pylon ws finish {args.id} --commit 'What it does'")
    flags = (" --commit MSG" if args.commit is not None else "") + (" --keep-branch" if args.keep_branch else "")
    if args.no_verify and args.commit is None:
        raise UsageError(
            "usage",
            "--no-verify skips the hooks of a commit: it needs --commit MSG.",
            f"pylon ws finish {args.id} --commit 'What it does' --no-verify",
        )
    flags += " --no-verify" if args.no_verify else ""
    with conflicts_shown(args.json, _report):
        result = run_finish(
            locate(),
            args.id,
            message=args.commit,
            keep_branch=args.keep_branch,
            command=f"pylon ws finish {args.id}{flags}",
            verify=not args.no_verify,
        )
    removed = result.get("removed", True)
    if args.json:
        emit(result)
        return 0 if removed else 1
    if result["applied"]:
        out(summary(result))
    else:
        out(f"nothing to apply from {args.id}: this checkout already has its changes\n")
    if result["commit"]:
        hooks = result.get("hooks")
        if not isinstance(hooks, dict):
            hooks = {}
        if hooks.get("output"):
            note(str(hooks["output"]).rstrip("\n"))
        skipped = hooks.get("skipped") or []
        said = f" (--no-verify: the {' and '.join(skipped)} hooks did not run)" if skipped else ""
        committed = result.get("committed")
        count = len(committed) if isinstance(committed, list) else 0
        out(f"committed {count} path(s) as {str(result['commit'])[:12]}{said}\n")
    if not removed:
        left_out = result.get("left_out")
        names = ", ".join(show_path(p) for p in left_out) if isinstance(left_out, list) else ""
        out(
            f"kept worktree {args.id} ({show_path(str(result['path']))}): the commit left out "
            f"{names} (a hook took them out of the index)\n"
        )
        note(
            f"pylon: committed without finishing {args.id} (op {result['op']}; `pylon ws undo` moves the branch "
            f"back); commit the rest, then `pylon ws finish {args.id}`"
        )
        return 1
    kept = f"; branch {result['branch']} kept" if result["branch_kept"] else ""
    out(f"removed worktree {args.id} ({show_path(str(result['path']))}){kept}\n")
    undo = (
        "the worktree back and this checkout to where it was"
        if not result.get("apply_op")
        else (
            "the worktree back and the branch to where it was; a second undo takes back the apply "
            f"(op {result['apply_op']})"
        )
    )
    note(f"pylon: finished {args.id} (op {result['op']}; `pylon ws undo` brings {undo})")
    return 0


def summary(result: dict[str, Any], title: str | None = None) -> str:
    if title is None and not result["applied"]:
        return f"nothing to apply from {result['id']}: this checkout already has its changes\n"
    lines = [title or f"applied {result['id']}: {result['total']} path(s) changed in the working tree"]
    marked = set(result.get("markers") or ())
    lines += [
        f"  {f['status']:<9} {show_path(f['path'])}{'  (conflict markers)' if f['path'] in marked else ''}"
        + (f"  ({f['old_mode']} -> {f['new_mode']})" if f.get("new_mode") else "")
        for f in result["files"]
    ]
    return "\n".join(lines) + "\n"


def markers_note(paths: list[str], where: str = "") -> str:
    return (
        f"pylon: conflict markers written in {len(paths)} path(s); resolve each (find them with "
        f"`{where}pylon read {show_path(paths[0])} --grep '^[<=>|]{{7}}'`), or reverse it all with `pylon ws undo`"
    )


def conflict_block(details: dict[str, Any], other: str = "checkout") -> str:
    from pylon.cli.ws.worktrees_render import conflict_report

    b = None if other == "checkout" else other
    pair = {
        "a": details["id"],
        "b": b,
        "with": "checkout" if b is None else "worktree",
        "conflicts": details["conflicts"],
        "touching": [],
    }
    return conflict_report({"pairs": [pair], "worktrees": [details["id"]]}).rstrip("\n")
