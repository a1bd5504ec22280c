"""`pylon ws move ID` and `pylon ws move ID --back`: an owned worktree's state in the main checkout.

`move ID` parks the main checkout's state C (it is the op's `before`, anchored by the op log) and
restores the worktree's state S into the main checkout: the same files, the same staged index,
HEAD detached at the worktree's commit (its branch stays checked out in the worktree, and git
allows a branch in one worktree only). The worktree itself is not changed.

`move ID --back` sends the main checkout's state M (with whatever the person changed or committed
there) to the worktree, on its branch `pylon-session-<ID>` (moved to M's commit when the person
committed), and restores C in the main checkout exactly: files, index, HEAD and branch. It refuses
when the worktree changed since the move (its work would be replaced), or when a branch it would
move to has moved (C's branch, or the session branch): each refusal names the way out.

Both are op-log ops (oplog.py): `ws undo` reverses them, a SIGKILL at any moment leaves an op
`ws status` names.
"""

from __future__ import annotations

from pylon.workspace import git
from pylon.workspace.commits import read_states
from pylon.workspace.ops import oplog, oprun, runsteps
from pylon.workspace.ops.restore_state import make_state, same_state
from pylon.workspace.repo import Checkout, locate, refuse_in_progress
from pylon.workspace.worktrees import owned
from pylon.workspace.worktrees.withheld import keep_theirs, withheld

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.commits import State


def _captures(main: Checkout, wt: Checkout, label: str) -> tuple[State, State]:
    from pylon.workspace.sides import parallel
    from pylon.workspace.state import capture

    a, b = parallel([main, wt], lambda co: capture(co, label=label))
    return a, b


def _commit(st: State) -> str:
    """The state commit of a capture made by _captures."""
    from typing import cast  # here only: typing costs start-up time

    return cast(str, st.commit)  # capture() anchors by default: it always writes the commit


def refuse_while_moved(checkout: Checkout, worktree_id: str) -> None:
    """`ws rm` of a worktree whose state is in the main checkout would strand that state."""
    op = oplog.move_ops(checkout).get(worktree_id)
    if op is not None and op.kind == "move":
        from pylon.errors import PylonError

        raise PylonError(
            "move-active",
            f"Worktree {worktree_id}'s state is in the main checkout (op {op.seq}); removing it now would leave "
            "nowhere to send it back.",
            f"Send it back first: pylon ws move {worktree_id} --back",
            details={"id": worktree_id, "op": op.seq},
        )


def _setup(checkout: Checkout, worktree_id: str, what: str) -> tuple[owned.Owned, Checkout, Checkout]:
    owned.check_id(worktree_id)
    info = owned.survey(checkout)
    found = info.get(worktree_id)
    main, wt = locate(info.main_root), locate(found.path)
    refuse_in_progress(main, what)
    refuse_in_progress(wt, what)
    return found, main, wt


def move(checkout: Checkout, worktree_id: str) -> dict[str, object]:
    from pylon.errors import PylonError

    with oplog.op_lock(checkout):
        oplog.check_clear(checkout)
        found, main, wt = _setup(checkout, worktree_id, "move a worktree's state")
        active = oplog.active_move(checkout)
        if active is not None:
            other = active.data.get("id")
            raise PylonError(
                "move-active",
                f"The main checkout holds worktree {other}'s state already (op {active.seq}); one move at a time.",
                f"Send it back first: pylon ws move {other} --back",
                details={"id": other, "op": active.seq},
            )
        parked, source = _captures(main, wt, f"move {worktree_id}")
        for st in (parked, source):
            if st.index_tree is None:
                raise PylonError(
                    "index-unmerged",
                    "An index has unresolved conflicts, so pylon cannot move it.",
                    "Resolve them (`git status` lists them) or abort the merge, then run the same command again.",
                )
        # the worktree's untracked files this checkout's rules would ignore once the state is here
        # stay out: written here they would be no part of its state, and `--back` would leave them
        out = left_out(main, parked, source)
        tree = keep_theirs(main, source.worktree, out, parked.worktree)
        target = make_state(
            main,
            worktree=tree,
            index_tree=source.index_tree,
            head=source.head,
            branch=None,
            label=f"moved {worktree_id}",
            meta_raw=source.meta_raw,
            head_tree=source.head_tree,
        )
        data: dict[str, object] = {
            "id": worktree_id,
            "worktree": found.path,
            "main": main.root,
            "worktree_state": source.commit,
            "main_branch": parked.branch,
            "main_head": parked.head,
            "left_out": out,
        }
        step = oplog.Step(main.root, _commit(parked), target, "state")
        runsteps.preflight([step], forward=True, currents={main.root: parked})
        op = oplog.begin(
            checkout,
            "move",
            [step],
            title=f"move {worktree_id}",
            data=data,
            anchors=[_commit(source)],
            command=f"pylon ws move {worktree_id}",
        )
        results = oprun.carry_out(checkout, op, currents={main.root: parked})
    return {
        "id": worktree_id,
        "op": op.seq,
        "main": main.root,
        "worktree": found.path,
        "parked": parked.commit,
        "state": source.commit,
        "head": source.head,
        "written": results[0]["written"],
        "deleted": results[0]["deleted"],
        "branch": parked.branch,
        "left_out": out,
        "bring": bring_command(found.path, main.root, out),
    }


def left_out(main: Checkout, parked: State, source: State) -> list[str]:
    """The worktree's untracked files that the main checkout's rules will ignore once its state is
    there (its `.gitignore` files, and ignored ones of the checkout such as `build/.gitignore`)."""
    from pylon.workspace.ops.keep_ignored import ignored_after
    from pylon.workspace.worktrees.withheld import untracked_files

    paths = untracked_files(main, source)
    return sorted(ignored_after(main, paths, source.worktree, parked.worktree)) if paths else []


def bring_command(worktree: str, main: str, paths: list[str]) -> str | None:
    """The command that copies `paths` from the worktree into the main checkout (bits kept)."""
    if not paths:
        return None
    import shlex

    shown = " ".join(shlex.quote(p) for p in paths[:50]) + (" ..." if len(paths) > 50 else "")
    return f"(cd {shlex.quote(worktree)} && cp -a --parents -- {shown} {shlex.quote(main)}/)"


def _ref(co: Checkout, ref: str) -> str | None:
    return git.run(["rev-parse", "-q", "--verify", ref], cwd=co.root, ok=(0, 1)).decode().strip() or None


def _moved(branch: str, now: str | None, was: str | None, fix: str) -> Exception:
    from pylon.errors import PylonError

    short = branch.removeprefix("refs/heads/")
    return PylonError(
        "branch-moved",
        f"Branch {short} moved from {str(was)[:12]} to {str(now)[:12]} while the worktree's state was in the main "
        "checkout; pylon will not move it back over that. Nothing was changed.",
        fix,
        details={"branch": short, "now": now, "expected": was},
    )


def move_back(checkout: Checkout, worktree_id: str) -> dict[str, object]:
    from pylon.errors import NotFoundError, PylonError

    with oplog.op_lock(checkout):
        oplog.check_clear(checkout)
        found, main, wt = _setup(checkout, worktree_id, "move a worktree's state back")
        op_move = oplog.move_ops(checkout).get(worktree_id)
        if op_move is None or op_move.kind != "move":
            raise NotFoundError(
                "no-active-move",
                f"Worktree {worktree_id}'s state is not in the main checkout.",
                f"Bring it there first: pylon ws move {worktree_id}",
            )
        parked = op_move.steps[0].before
        parked_state, sent = read_states(main, [parked, str(op_move.data["worktree_state"])])  # one cat-file
        now_main, now_wt = _captures(main, wt, f"move {worktree_id} --back")
        if not same_state(now_wt, sent):
            raise PylonError(
                "worktree-changed",
                f"Worktree {worktree_id} changed since its state was moved (op {op_move.seq}); sending the main "
                "checkout's state back would replace that work. Nothing was changed.",
                f"Keep the worktree as it is and put the main checkout back with `pylon ws undo` (what you did in the "
                f"main checkout stays in the op log), or undo the changes in {found.path} and run this again.",
                details={"id": worktree_id, "op": op_move.seq},
            )
        if parked_state.branch and _ref(main, parked_state.branch) != parked_state.head:
            short = parked_state.branch.removeprefix("refs/heads/")
            raise _moved(
                parked_state.branch,
                _ref(main, parked_state.branch),
                parked_state.head,
                f"Keep the new tip on another branch (`git branch keep-{short} {short}`), put {short} back "
                f"(`git branch -f {short} {parked_state.head}`), then run `pylon ws move {worktree_id} --back`.",
            )
        session = "refs/heads/" + found.branch
        if _ref(main, session) != sent.head:
            raise _moved(
                session,
                _ref(main, session),
                sent.head,
                f"Put it back with `git branch -f {found.branch} {sent.head}` (keep the other tip on a branch "
                f"first if you need it), then run `pylon ws move {worktree_id} --back`.",
            )
        m = now_main
        # the worktree keeps what the move left out, and never receives the person's ignored files
        # that the moved-in rules let into the main checkout's state (withheld.py)
        copy = found.record.get("copy")
        held = withheld(main, m, trees=[parked], copy=[str(c) for c in copy] if isinstance(copy, list) else [])
        recorded = op_move.data.get("left_out")
        out = [str(p) for p in recorded] if isinstance(recorded, list) else []
        tree = keep_theirs(main, m.worktree, sorted(set(held) | set(out)), now_wt.worktree)
        wt_target = make_state(
            wt,
            worktree=tree,
            index_tree=m.index_tree,
            head=m.head,
            branch=session,
            label=f"back {worktree_id}",
            meta_raw=m.meta_raw,
            head_tree=m.head_tree,
        )
        # the main checkout goes back to its parked state; what the move brought goes with it (the
        # worktree has it), even where the parked state's rules ignore it
        steps = [
            oplog.Step(wt.root, _commit(now_wt), wt_target, "state"),
            oplog.Step(main.root, _commit(m), parked, "state", made=op_move.steps[0].after),
        ]
        data = {"id": worktree_id, "worktree": found.path, "main": main.root, "move_op": op_move.seq}
        runsteps.preflight(steps, forward=True, currents={wt.root: now_wt, main.root: m})
        op = oplog.begin(
            checkout,
            "move-back",
            steps,
            title=f"move {worktree_id} --back",
            data=data,
            command=f"pylon ws move {worktree_id} --back",
        )
        results = oprun.carry_out(checkout, op, currents={wt.root: now_wt, main.root: m})
    return {
        "id": worktree_id,
        "op": op.seq,
        "main": main.root,
        "worktree": found.path,
        "restored": parked,
        "sent": m.commit,
        "head": parked_state.head,
        "branch": parked_state.branch,
        "committed": m.head != sent.head,
        "written": results[1]["written"],
        "deleted": results[1]["deleted"],
        "withheld": held,
    }
