"""Handlers of the `pylon ws` commands with small outputs: baseline, changes, fingerprint, status."""

from __future__ import annotations

from pylon.cli.output import err as note
from pylon.cli.output import write as out
from pylon.cli.ws.render import emit, print_notes, render_files, since_name, since_note

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Protocol

    from pylon.workspace.repo import Checkout

    class JsonArgs(Protocol):
        json: bool

    class BaselineArgs(JsonArgs, Protocol):
        name: str
        delete: bool

    class ChangesArgs(JsonArgs, Protocol):
        since: str | None
        limit: int


def checkout() -> Checkout:
    from pylon.workspace.repo import locate

    return locate()


def baseline(args: BaselineArgs) -> int:
    from pylon.workspace.tracking import baseline as bl

    co, name = checkout(), args.name
    if args.delete:
        deleted = bl.delete(co, name)
        if args.json:
            emit(deleted)
        else:
            out(f"deleted baseline {name} (was {str(deleted['deleted'])[:12]})\n")
        return 0
    result = bl.baseline(co, name)
    if args.json:
        emit(result)
        return 0
    head = str(result["head"])[:12] if result["head"] else "unborn"
    where = f"on {result['branch']}" if result["branch"] else "detached"
    line = f"baseline {name}: {str(result['commit'])[:12]} (HEAD {head} {where})"
    if result["replaced"]:
        line += f", replaced {str(result['replaced'])[:12]}"
    out(line + "\n")
    print_notes(result["notes"])
    return 0


def changes(args: ChangesArgs) -> int:
    from pylon.workspace.tracking.changes import changes as list_changes

    co = checkout()
    result = list_changes(co, args.since, args.limit)
    if args.json:
        emit(result)
        return 0
    out(render_files(result["files"]))
    since_note(co, result, args.since)
    name = since_name(result)
    if result["truncated"]:
        import shlex

        again = f" --since {shlex.quote(args.since)}" if args.since else ""
        note(
            f"pylon: showed {args.limit} of {result['total']} changed paths since {name}; {result['left_out']} "
            f"left out (`pylon ws changes{again} --limit {result['total']}` lists all)"
        )
    elif not result["total"]:
        note(f"pylon: no changes since {name}")
    print_notes(result["notes"])
    return 0


def fingerprint(args: JsonArgs) -> int:
    from pylon.workspace.tracking.fingerprint import fingerprint as state_fingerprint

    result = state_fingerprint(checkout())
    if args.json:
        emit(result)
    else:
        out(f"{result['fingerprint']}\n")
        print_notes(result["notes"])
    return 0


def status(args: JsonArgs) -> int:
    from pylon.workspace.tracking.status import status as ws_status

    result = ws_status(checkout())
    if args.json:
        emit(result)
        return 0
    lines = [f"checkout: {result['root']}" + (" (linked worktree)" if result["linked"] else "")]
    head = result["head"]
    lines.append(
        f"HEAD: {str(head)[:12] if head else 'unborn'} "
        + (f"on {result['branch']}" if result["branch"] else "(detached)")
    )
    if isinstance(result["in_progress"], list) and result["in_progress"]:
        lines.append("in progress: " + ", ".join(result["in_progress"]))
    lines.append(f"default --since: {result['default_since']}")
    baselines = result["baselines"]
    if isinstance(baselines, list) and baselines:
        lines.append("baselines:")
        for b in baselines:
            lines.append(f"  {b['name']:<20} {str(b['commit'])[:12]}  {b['captured_at'] or ''}")
    else:
        lines.append("baselines: none (`pylon ws baseline` captures one)")
    lines.append("watch: " + ("running" if result["watching"] else "not running"))
    worktrees = result["worktrees"]
    lines.append(f"owned worktrees: {len(worktrees) if isinstance(worktrees, list) else 0}")
    lines += _op_lines(result)
    leftovers = result.get("leftovers")
    kept = leftovers.get("kept") if isinstance(leftovers, dict) else None
    for item in kept if isinstance(kept, list) else []:
        lines.append(f"leftover: {item['path']}: {item['why']} (`{item['fix']}`)")
    out("\n".join(lines) + "\n")
    print_notes(result["notes"])
    return 0


def _op_lines(result: dict[str, object]) -> list[str]:
    lines = []
    if result.get("moved_in"):
        lines.append(
            f"moved in: worktree {result['moved_in']}'s state (`pylon ws move {result['moved_in']} --back` "
            "sends it back)"
        )
    stuck = result.get("interrupted")
    if isinstance(stuck, dict):
        lines.append(
            f"interrupted: {stuck['what']} (op {stuck['seq']}, {stuck['status']}): reverse it with "
            f"`{stuck['reverse']}`, or complete it with `{stuck['finish']}`"
        )
    ops = result.get("ops")
    if isinstance(ops, list) and ops:
        lines.append(
            "op log: "
            + "; ".join(f"{o['seq']} {o['title']} ({o['status']})" for o in ops[:3])
            + " (`pylon ws undo --list`)"
        )
    return lines
