"""Handlers of `pylon ws log` (every kept state, newest first) and `pylon ws gc` (prune them)."""

from __future__ import annotations

from pylon.cli.output import err as note
from pylon.cli.output import out
from pylon.cli.ws.render import emit

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Protocol

    from pylon.cli.ws.core import JsonArgs

    class LogArgs(JsonArgs, Protocol):
        limit: int

    class GcArgs(JsonArgs, Protocol):
        older_than: str | None
        prune_all: bool
        dry_run: bool


def age(seconds: int) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return f"{seconds}s ago"


def log(args: LogArgs) -> int:
    from pylon.workspace.ops.log import log as timeline
    from pylon.workspace.repo import locate

    result = timeline(locate(), args.limit, settled=True)
    if args.json:
        emit(result)
        return 0
    lines = []
    entries = result["entries"]
    assert isinstance(entries, list)  # the `ws log --json` document's list
    for e in entries:
        size = "" if e["paths"] is None else f"{e['paths']} path(s)"
        status = f" ({e['status']})" if e["kind"] == "op" else ""
        lines.append(f"{age(e['age']):>9}  {e['kind']:<8} {e['name']:<24} {size:<12} {e['made_by']}{status}")
        if e["kind"] == "op":
            lines += [f"{'':>11}{side:<12} {command}" for side, command in e["restores"].items() if command]
        elif e["restore"]:
            lines.append(f"{'':>11}{'restore':<12} {e['restore']}")
    out("".join(line + "\n" for line in lines))
    unrecorded = result.get("unrecorded")
    if isinstance(unrecorded, dict):
        from pylon.workspace.keep.changes import said

        note(
            f"pylon: changed since the last op and recorded by none ({'; '.join(said(unrecorded))}): "
            "later work, which `pylon ws undo` keeps"
        )
    if not lines:
        note("pylon: no kept states for this checkout")
    elif result["truncated"]:
        note(f"pylon: {result['total']} entries; showing the newest {args.limit} (--limit N for more)")
    return 0


def gc(args: GcArgs) -> int:
    from pylon.errors import UsageError
    from pylon.workspace.ops.log import gc as prune
    from pylon.workspace.repo import locate

    if not args.older_than:
        raise UsageError(
            "missing-older-than",
            "`ws gc` needs an age: entries older than it are pruned.",
            "pylon ws gc --older-than 30d",
        )
    result = prune(locate(), args.older_than, prune_all=args.prune_all, dry_run=args.dry_run)
    if args.json:
        emit(result)
        return 0
    verb = "would prune" if args.dry_run else "pruned"
    pruned = result["pruned"]
    assert isinstance(pruned, list)
    out("".join(f"{verb} {p['kind']:<8} {p['name']}\n" for p in pruned))
    note(
        f"pylon: {verb} {len(pruned)} entr{'y' if len(pruned) == 1 else 'ies'}, kept {result['kept']}"
        + ("" if args.prune_all else " (the newest of each kind always stays; --all prunes it too)")
    )
    return 0
