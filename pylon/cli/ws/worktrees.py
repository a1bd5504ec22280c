"""Handlers of the owned-worktree commands: `ws new|list|path|rm|prune|conflicts`.

Each calls one library function (pylon.workspace.worktrees.new, removal, wtlist) and renders its
result with ws_worktrees_render; nothing here decides anything about worktrees.
"""

from __future__ import annotations

import sys

from pylon.cli.output import err as note
from pylon.cli.output import out
from pylon.cli.ws import worktrees_render as render
from pylon.cli.ws.render import emit, print_notes

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Protocol

    from pylon.cli.ws.core import JsonArgs
    from pylon.workspace.repo import Checkout

    class NewArgs(JsonArgs, Protocol):
        id: str | None
        from_rev: str | None
        clean: bool
        copy: list[str]
        watch: bool

    class IdArgs(JsonArgs, Protocol):
        id: str

    class RmArgs(IdArgs, Protocol):
        force: bool
        keep_branch: bool

    class PruneArgs(JsonArgs, Protocol):
        dry_run: bool

    class ConflictsArgs(JsonArgs, Protocol):
        ids: list[str]

    class CheckArgs(JsonArgs, Protocol):
        paths: list[str]


PROGRESS_FROM = 64 << 20  # a progress line only for copies of 64 MiB or more, on a terminal


def checkout() -> Checkout:
    from pylon.workspace.repo import locate

    return locate()


def new(args: NewArgs) -> int:
    from pylon.workspace.worktrees.new import new as create

    progress = None
    if not args.json and sys.stderr.isatty():

        def progress(done: int, total: int, size: int) -> None:
            if size >= PROGRESS_FROM:
                note_inline(
                    f"\rcopying ignored files: {done}/{total} ({size >> 20} MiB)" + ("\n" if done == total else "")
                )

    result = create(
        checkout(),
        args.id,
        from_rev=args.from_rev,
        clean=args.clean,
        copy=list(args.copy),
        progress=progress,
        watch=args.watch,
    )
    if args.json:
        keys = ("id", "path", "branch", "baseline", "head", "dirty", "copied", "notes") + (
            ("watcher",) if args.watch else ()
        )
        emit({k: result[k] for k in keys})
        return 0
    out(f"{result['path']}\n")
    note(render.new_summary(result))
    print_notes(result["notes"])
    return 0


def note_inline(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()


def list_command(args: JsonArgs) -> int:
    from pylon.workspace.worktrees.listing import list_worktrees

    result = list_worktrees(checkout())
    if args.json:
        emit(result)
        return 0
    out(render.worktree_table(result))
    foreign, others = result["foreign"], result.get("others")
    unlisted = (foreign if isinstance(foreign, int) else 0) - (len(others) if isinstance(others, list) else 0)
    if unlisted > 0:
        note(
            f"pylon: {unlisted} foreign worktree(s) or folder(s) not listed (not live worktrees pylon can read; "
            "`pylon ws prune --dry-run` names them)"
        )
    if result["leftovers"]:
        note(
            f"pylon: {result['leftovers']} owned leftover(s) from interrupted or removed worktrees "
            "(`pylon ws prune --dry-run` shows them)"
        )
    print_notes(result["notes"])
    return 0


def path(args: IdArgs) -> int:
    from pylon.workspace.worktrees.new import path as find

    result = find(checkout(), args.id)
    if args.json:
        emit(result)
    else:
        out(f"{result['path']}\n")
    return 0


def rm(args: RmArgs) -> int:
    from pylon.workspace.worktrees.rm import rm as remove

    result = remove(checkout(), args.id, force=args.force, keep_branch=args.keep_branch)
    if args.json:
        emit(result)
        return 0
    out(render.rm_summary(result))
    if result["restore"] and result["forced"]:
        note(render.restore_note(result))
    return 0


def prune(args: PruneArgs) -> int:
    from pylon.workspace.worktrees.rm import prune as reconcile

    result = reconcile(checkout(), dry_run=args.dry_run)
    if args.json:
        emit(result)
        return 0
    out(render.prune_lines(result))
    return 0


def conflicts(args: ConflictsArgs) -> int:
    from pylon.workspace.worktrees.listing import check_conflicts

    result = check_conflicts(checkout(), list(args.ids))
    if args.json:
        emit(result)
    else:
        out(render.conflict_report(result))
    return 1 if result["conflicting"] else 0


def check(args: CheckArgs) -> int:
    import os

    from pylon.errors import UsageError
    from pylon.workspace.worktrees.clash import check as clash

    co = checkout()
    rels = []
    for given in args.paths:
        full = os.path.abspath(given)
        rel = os.path.relpath(
            os.path.join(os.path.realpath(os.path.dirname(full)), os.path.basename(full)), os.path.realpath(co.root)
        )
        if rel == "." or rel.startswith(".." + os.sep) or rel == ".." or rel.split(os.sep)[0] == ".git":
            raise UsageError(
                "path-outside",
                f"{given} is not a file of this checkout ({co.root}).",
                "Name files inside the checkout: pylon ws check src/app.py",
            )
        rels.append(rel)
    found = [f.to_dict() for f in clash(co.root, rels)]
    result = {"root": co.root, "paths": rels, "findings": found, "conflicting": sum(1 for f in found if f["conflict"])}
    if args.json:
        emit(result)
    else:
        out(render.check_report(result))
    return 1 if result["conflicting"] else 0
