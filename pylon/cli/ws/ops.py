"""Handlers of the op-log commands: `ws move [--back]`, `ws undo [--list] [--finish]`, `ws restore`.

Each calls one library function (pylon.workspace.worktrees.move, undo, restoring) and renders its result;
nothing here decides anything.
"""

from __future__ import annotations

from pylon.cli.output import err as note
from pylon.cli.output import out
from pylon.cli.ws.render import conflicts_shown, emit, show_path

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Protocol

    from pylon.cli.ws.core import JsonArgs
    from pylon.workspace.repo import Checkout

    class MoveArgs(JsonArgs, Protocol):
        id: str
        back: bool

    class UndoArgs(JsonArgs, Protocol):
        show_list: bool
        finish: bool
        markers: bool

    class RedoArgs(JsonArgs, Protocol):
        markers: bool

    class RestoreArgs(JsonArgs, Protocol):
        name: str
        paths: list[str]
        dry_run: bool


def checkout() -> Checkout:
    from pylon.workspace.repo import locate

    return locate()


def move(args: MoveArgs) -> int:
    from pylon.workspace.worktrees import move as moves

    if args.back:
        result = moves.move_back(checkout(), args.id)
        if args.json:
            emit(result)
            return 0
        where = f"on {str(result['branch']).removeprefix('refs/heads/')}" if result["branch"] else "detached"
        out(
            f"moved worktree {result['id']}'s state back to {show_path(str(result['worktree']))}; the main checkout "
            f"is as it was (HEAD {str(result['head'])[:12]} {where}) [op {result['op']}]\n"
        )
        if result["committed"]:
            note(f"pylon: the commits made in the main checkout are now on pylon-session-{result['id']}")
        note("pylon: `pylon ws undo` reverses this")
        return 0
    result = moves.move(checkout(), args.id)
    if args.json:
        emit(result)
        return 0
    out(
        f"moved worktree {result['id']}'s state into {show_path(str(result['main']))} (HEAD {str(result['head'])[:12]} "
        f"detached; {result['written']} written, {result['deleted']} deleted) [op {result['op']}]\n"
    )
    note(
        f"pylon: the main checkout's own state is parked as {str(result['parked'])[:12]}; "
        f"`pylon ws move {result['id']} --back` brings it back exactly (or `pylon ws undo`)"
    )
    out_paths = result.get("left_out")
    if isinstance(out_paths, list) and out_paths:
        shown = ", ".join(show_path(str(p)) for p in out_paths[:10]) + (
            f" (and {len(out_paths) - 10} more)" if len(out_paths) > 10 else ""
        )
        note(
            f"pylon: left out {len(out_paths)} untracked file(s) of the worktree that this checkout's rules ignore "
            f"(they would be no part of its state here): {shown}; they stay in the worktree. To have them here "
            f"anyway: {result['bring']}"
        )
    return 0


def undo(args: UndoArgs) -> int:
    from pylon.workspace.ops import undo as ops

    if args.show_list:
        listed = ops.listing(checkout())
        if args.json:
            emit(listed)
            return 0
        import time

        lines = []
        for item in listed["ops"]:
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(int(item["time"] or 0)))
            closed = f" (closed unwritten: {item['abandoned']})" if item.get("abandoned") else ""
            lines.append(f"{item['seq']:>5}  {when}  {item['status']:<22} {item['title']}{closed}")
        out("\n".join(lines) + "\n" if lines else "")
        if not lines:
            note("pylon: the op log is empty")
        return 0
    from pylon.workspace.keep.recover import locate_or_bring_back

    here, recovered = locate_or_bring_back()  # a folder that lost its .git gets it back first
    if recovered is not None:
        note(
            f"pylon: brought back {show_path(str(recovered['root']))}/.git from pylon's store "
            f"({recovered['files']} file(s))"
        )
    with conflicts_shown(args.json, _report):
        result = ops.undo(here, finish=args.finish, markers=args.markers, settled=recovered is None)
    if recovered is not None:
        result["git_brought_back"] = recovered
    if args.json:
        emit(result)
        return 0
    if result["action"] == "finished":
        out(f"finished `{result['title']}` (op {result['op']})\n")
        return 0
    verb = "redid" if result["action"] == "redone" else "undid"
    out(f"{verb} `{result['title']}` (op {result['op']})\n")
    _later(result)
    _unrecorded(result.get("unrecorded"))
    if result.get("kept"):
        note(
            f"pylon: the state it replaced is kept in the op log: `pylon ws redo` reverses this undo "
            f"(`pylon ws restore op-{result['op']}:before-undo` brings that state back whole); "
            "`pylon ws undo` again walks further back"
        )
    return 0


def redo(args: RedoArgs) -> int:
    from pylon.workspace.ops.redo import redo as run_redo

    with conflicts_shown(args.json, _report):
        result = run_redo(checkout(), markers=args.markers)
    if args.json:
        emit(result)
        return 0
    out(f"redid `{result['title']}` (op {result['op']})\n")
    _later(result)
    note(
        f"pylon: `pylon ws undo` reverses it again (`pylon ws restore op-{result['op']}:before-redo` brings back "
        "the state it replaced)"
    )
    return 0


def _report(code: str, details: dict[str, object]) -> str | None:
    """An undo or redo refused on conflicts: the conflict regions, as `ws conflicts` words them."""
    if code not in ("undo-conflicts", "redo-conflicts"):
        return None
    from pylon.cli.ws.worktrees_render import conflict_report

    conflicts = details.get("conflicts") or []
    if not isinstance(conflicts, list) or not all("types" in c for c in conflicts):
        return None
    pair = {"a": f"op {details.get('op')} reversed", "b": None, "conflicts": conflicts, "touching": []}
    return conflict_report({"pairs": [pair], "worktrees": []}).rstrip("\n")


def _later(result: dict[str, object]) -> None:
    """Say what of the later work was kept, merged, or written with conflict markers."""
    later = result.get("later")
    kept = [p for item in (later.values() if isinstance(later, dict) else []) for p in item["kept"]]
    merged = [p for item in (later.values() if isinstance(later, dict) else []) for p in item["merged"]]
    markers = result.get("markers") or []

    def shown(paths: list[str]) -> str:
        return ", ".join(show_path(p) for p in paths[:10]) + (
            f" (and {len(paths) - 10} more)" if len(paths) > 10 else ""
        )

    back = [p for item in (later.values() if isinstance(later, dict) else []) for p in item.get("back", [])]
    existing = [p for item in (later.values() if isinstance(later, dict) else []) for p in item.get("existing", [])]
    if back:
        note(f"pylon: brought back {len(back)} file(s) the command destroyed: {shown(back)}")
    reverted = [p for item in (later.values() if isinstance(later, dict) else []) for p in item.get("reverted", [])]
    if reverted:  # a shell op: every path it changed, each as it was before it
        note(
            f"pylon: put back {len(reverted)} path(s) as they were before it: "
            + ", ".join(show_path(p) for p in reverted)
        )  # every one: nothing hidden behind a count
    if existing:
        note(
            f"pylon: kept {len(existing)} file(s) that exist now as they are (`pylon ws restore` of the snapshot "
            f"with their paths replaces them): {shown(existing)}"
        )
    if kept:
        note(f"pylon: kept {len(kept)} path(s) changed since: {shown(kept)}")
    if merged:
        note(f"pylon: of those, merged line by line with the reversed change: {shown(merged)}")
    if isinstance(markers, list) and markers:
        note(f"pylon: wrote conflict markers in {len(markers)} path(s): {shown(markers)}")
    for item in later.values() if isinstance(later, dict) else []:
        _refs_note(item.get("refs"), "restored")  # a guard op: the refs its command deleted
        _kept_refs_note(item.get("refs_changed"))  # a shell op: refs, HEAD and the stash reversed
        for path, size, why in item.get("not_kept") or []:
            note(f"pylon: could not bring back {show_path(str(path))} ({size} bytes): it was not kept ({why})")


def _unrecorded(change: object) -> None:
    """Changes since the last kept state that no op recorded (no hook saw them): later work, kept."""
    if not isinstance(change, dict):
        return
    from pylon.workspace.keep.changes import said

    paths = [str(p) for p in change.get("paths") or []]
    named = f": {', '.join(show_path(p) for p in paths)}" if paths else ""
    note(f"pylon: kept the changes made since the last op that no op recorded ({'; '.join(said(change))}){named}")


def _kept_refs_note(done: dict[str, list[str]] | None) -> None:
    if not done:
        return
    for name in done.get("refs_back") or []:
        note(f"pylon: put back {name}")
    for name in done.get("refs_left") or []:
        note(f"pylon: left {name} as it is: it moved again since the command (not reversed)")
    back = done.get("stash_back") or []
    if back:
        note(f"pylon: put back {len(back)} stash entr{'y' if len(back) == 1 else 'ies'} (`git stash list`)")
    gone = done.get("stash_removed") or []
    if gone:
        note(f"pylon: removed {len(gone)} stash entr{'y' if len(gone) == 1 else 'ies'} the command made")


def restore(args: RestoreArgs) -> int:
    from pylon.workspace.ops.restore import restore_named

    result = restore_named(checkout(), args.name, list(args.paths) or None, dry_run=args.dry_run)
    if args.json:
        emit(result)
        return 0
    writes, deletes = result["write"], result["delete"]
    verb = "would restore" if args.dry_run else "restored"
    count = len(writes) + len(deletes)
    if args.dry_run:
        lines = [f"write   {show_path(p)}" for p in writes] + [f"delete  {show_path(p)}" for p in deletes]
        out("".join(line + "\n" for line in lines))
    out(
        f"{verb} {args.name}: {count} path(s), {result['index']} index entr{'y' if result['index'] == 1 else 'ies'}"
        + (f" [op {result['op']}]" if result.get("op") else "")
        + "\n"
    )
    if result["head_kept"]:
        note(
            f"pylon: HEAD stays at {str(result['head_now'])[:12]}; the snapshot was taken at "
            f"{str(result['head'])[:12]} (`git reset --soft {result['head']}` moves HEAD there)"
        )
    aside = result.get("aside") or []
    if aside:
        shown = ", ".join(show_path(p) for p in aside[:10]) + (
            f" (and {len(aside) - 10} more)" if len(aside) > 10 else ""
        )
        where = f"op-{result['op']}:before" if result.get("op") else "the state it replaces"
        note(
            f"pylon: {len(aside)} file(s) outside this checkout's state (ignored) were in the way: {shown}; "
            f"{'they are' if not args.dry_run else 'they would be'} kept aside in {where} "
            f"(`pylon ws undo`, or `pylon ws restore {where} PATH`, brings them back)"
        )
    if result.get("op"):
        note("pylon: `pylon ws undo` reverses this")
    _refs_note(result.get("refs"), verb)
    return 0


def _refs_note(refs: dict[str, list[str]] | None, verb: str) -> None:
    """What a guard snapshot named again: refs, stash entries; remote tips left to a push."""
    if not refs:
        return
    for name in refs["refs"]:
        note(f"pylon: {verb} ref {name}")
    if refs["stash"]:
        note(
            f"pylon: {verb} {len(refs['stash'])} stash entr{'y' if len(refs['stash']) == 1 else 'ies'} "
            "(`git stash list`)"
        )
    for row in refs["refs_kept"]:
        name, _, oid = row.partition(" ")
        note(
            f"pylon: kept {name} as it is now (it moved since the snapshot; `git update-ref {name} {oid}` "
            "puts back the snapshot's)"
        )
    for row in refs["remote"]:
        name, _, oid = row.partition(" ")
        remote, _, branch = name[len("refs/remotes/") :].partition("/")
        note(
            f"pylon: the remote's {branch} was at {oid[:12]} before the push; "
            f"`git push --force-with-lease={branch} {remote} {oid}:refs/heads/{branch}` puts it back"
        )
