"""`pylon ws new` and `pylon ws path`: create an owned worktree; any failure removes what it made.

`new` runs under `<git-common-dir>/pylon/owned.lock`, so concurrent calls on one repository take
turns (git's own `config.lock`/`index.lock`/ref locks then never meet) and all succeed. Order:

1. refuse before making anything: a bad id, an id, path or branch already taken, a bad `--from`;
2. the baseline: by default the checkout's current state (capture.py: HEAD, index, working tree
   incl. untracked) as one commit on top of HEAD, author pylon; `--clean`/`--from REV` use REV;
3. the registry record, state "creating" (so a killed `new` leaves a leftover `prune` knows);
4. `git worktree add --lock --reason <pylon's reason> -b pylon-session-<id> <path> <baseline>`;
5. `refs/pylon/sessions/<id>/baseline`, the ignored files to copy, then the record turns "ready".

Every step adds what it made to a list; on any exception (Ctrl-C included) that list is removed
in reverse: copied files go with the folder, then the git admin folder, the branch (only if this
call created it), the refs, the folders it created, the record.
"""

from __future__ import annotations

import os
import shutil

from pylon.workspace import git, immutable
from pylon.workspace.commits import iso, update_refs, write_commit
from pylon.workspace.refs import session_baseline_ref
from pylon.workspace.repo import EMPTY_TREE, Checkout
from pylon.workspace.worktrees import owned

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

LOCK_TIMEOUT = 600.0  # a checkout of a large tree can take minutes; waiting is the point
CLIENTS = "pylon.workspace.worktrees.clients"  # the module that undoes a `new` op (a client's worktree)


def resolve_commit(checkout: Checkout, rev: str) -> str | None:
    out = git.run(
        ["rev-parse", "-q", "--verify", "--end-of-options", rev + "^{commit}"], cwd=checkout.root, ok=(0, 1, 128)
    )
    return out.decode().strip() or None


def ref_exists(checkout: Checkout, ref: str) -> bool:
    code, _, _ = git.run_full(["rev-parse", "-q", "--verify", ref], cwd=checkout.root)
    return code == 0


def baseline_commit(checkout: Checkout, copy: list[str] | None = None) -> tuple[str, str | None, dict[str, object]]:
    """(baseline, HEAD, info): the current checkout state as one commit on top of HEAD, without
    the person's ignored files it may hold (withheld.py; `copy`: the session's `--copy` globs).

    The commit is deterministic (fixed message, dates of HEAD), so two sessions started from the
    same state share one baseline and their three-way merges (`ws conflicts`) use it as base.
    A clean checkout starts at HEAD itself.
    """
    from pylon.workspace.current import current_state
    from pylon.workspace.worktrees.withheld import keep_theirs, withheld

    state, source = current_state(checkout)
    held = withheld(checkout, state, copy=copy)
    if held:
        state.worktree = keep_theirs(checkout, state.worktree, held, EMPTY_TREE)
    head = state.head
    head_tree = state.head_tree if head else None  # as the capture read it with HEAD
    date = "0 +0000"
    if head and (head_tree is None or state.worktree != head_tree):  # HEAD's date: for a commit made here
        raw = immutable.commit(checkout, head).decode("utf-8", "replace")
        for line in raw.split("\n\n", 1)[0].splitlines():
            if line.startswith("tree "):
                head_tree = line[5:].strip()
            elif line.startswith("committer "):
                date = " ".join(line.rsplit(" ", 2)[-2:])
    info = {
        "source": source,
        "dirty": state.worktree != (head_tree or EMPTY_TREE),
        "notes": state.notes,
        "withheld": held,
    }
    if head and not info["dirty"]:
        return head, head, info
    if not head and not info["dirty"]:
        from pylon.errors import PylonError

        raise PylonError(
            "nothing-to-start-from",
            "This repository has no commit and no files yet, so there is nothing to start a worktree from.",
            "Commit something first (`git commit`), then run `pylon ws new` again.",
        )
    message = "pylon baseline\n\npylon-head: " + (head or "unborn") + "\n"
    return write_commit(checkout, state.worktree, [head] if head else [], message.encode(), date), head, info


class Made:
    """What one `new` created, removed in reverse order when it fails."""

    def __init__(self, checkout: Checkout) -> None:
        self.checkout = checkout
        self.record: str | None = None
        self.dirs: list[str] = []
        self.worktree: str | None = None
        self.branch: str | None = None
        self.refs: list[str] = []

    def undo(self) -> None:
        co = self.checkout
        if self.worktree is not None:
            for admin in owned.admin_dirs_for(co, self.worktree):
                shutil.rmtree(admin, ignore_errors=True)
            shutil.rmtree(self.worktree, ignore_errors=True)
        if self.branch is not None:
            git.run_full(["update-ref", "-d", "refs/heads/" + self.branch], cwd=co.root)
        for ref in self.refs:
            git.run_full(["update-ref", "-d", ref], cwd=co.root)
        for folder in reversed(self.dirs):
            try:
                os.rmdir(folder)
            except OSError:
                pass
        if self.record is not None:
            owned.delete_record(co, self.record)


def make_dirs(path: str, made: Made) -> None:
    """mkdir -p that remembers which folders it created (only those are removed on failure)."""
    missing = []
    while not os.path.isdir(path):
        missing.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    for folder in reversed(missing):
        os.mkdir(folder)
        made.dirs.append(folder)


def new(
    checkout: Checkout,
    worktree_id: str | None = None,
    *,
    from_rev: str | None = None,
    clean: bool = False,
    copy: list[str] | None = None,
    progress: Callable[[int, int, int], None] | None = None,
    watch: bool = False,
    made_by: dict[str, object] | None = None,
) -> dict[str, object]:
    """Create an owned worktree. `made_by` (an agent client that asked for it: clients.py) is kept in
    the registry record, and the creation is then an op of the log (kind `new`) as well."""
    if worktree_id is not None:
        owned.check_id(worktree_id)
    from pylon.workspace.ops import oplog
    from pylon.workspace.worktrees.copying import include_patterns

    patterns = include_patterns(checkout.root, copy or [])  # a bad pattern or include file: refused before anything

    # under the op lock: the checkout is not half-way through a move, undo or restore while its
    # state becomes the baseline, and an interrupted op refuses (`op-interrupted`) until settled
    with oplog.op_lock(checkout), owned.owned_lock(checkout, LOCK_TIMEOUT):
        oplog.check_clear(checkout)
        info = owned.survey(checkout)
        wid = worktree_id or _free_id(checkout, info)
        result = _create(checkout, info, wid, from_rev, clean, (copy or [], patterns), progress, made_by)
        if made_by is not None:
            result["op"] = log_new(checkout, result, made_by)
    if watch:  # after the lock: the worktree is complete and registered whatever happens here
        from pylon.workspace.worktrees import watchers

        admin = owned.admin_dir_of(str(result["path"]))
        pid = watchers.start(str(result["path"]), admin) if admin else None
        result["watcher"] = {"pid": pid} if pid else None
        if pid is None:
            notes = list(result["notes"]) if isinstance(result["notes"], list) else []
            log = os.path.join(admin or "", "pylon", "watch.log")
            result["notes"] = [
                *notes,
                {"kind": "watch-not-started", "message": f"the watcher did not start; see {log}"},
            ]
    return result


def _free_id(checkout: Checkout, info: owned.Survey) -> str:
    while True:
        wid = owned.new_id()
        path = os.path.join(info.root, wid)
        if (
            wid not in info.records
            and not os.path.lexists(path)
            and not ref_exists(checkout, "refs/heads/" + owned.branch_of(wid))
        ):
            return wid


def _create(
    checkout: Checkout,
    info: owned.Survey,
    wid: str,
    from_rev: str | None,
    clean: bool,
    copying: tuple[list[str], list[str]],
    progress: Callable[[int, int, int], None] | None,
    made_by: dict[str, object] | None = None,
) -> dict[str, object]:
    from pylon.errors import PylonError, UsageError

    copy, patterns = copying  # the --copy globs (kept in the record) and every line to match
    branch = owned.branch_of(wid)
    path = os.path.join(info.root, wid)
    if wid in info.records or owned.read_record(checkout, wid) is not None:
        raise PylonError(
            "worktree-exists",
            f"An owned worktree named {wid!r} is already registered.",
            f"Pick another id, or remove it first: pylon ws rm {wid}",
        )
    if os.path.lexists(owned.record_file(checkout, wid)):
        raise PylonError(
            "registry-record-unreadable",
            f"The registry record {owned.record_file(checkout, wid)} of {wid!r} cannot be read (half-written "
            "or edited); pylon never writes over it.",
            f"Pick another id, or look at it and move it away: mv {owned.quoted(owned.record_file(checkout, wid))} "
            "<elsewhere>",
        )
    if os.path.lexists(path):
        raise PylonError(
            "path-taken",
            f"{path} already exists; pylon never creates a worktree over it.",
            "Pick another id, or move that folder away.",
        )
    if ref_exists(checkout, "refs/heads/" + branch):
        raise PylonError(
            "branch-taken",
            f"The branch {branch} already exists; pylon never reuses a branch.",
            f"Pick another id, or delete the branch if it is yours: git branch -D {branch}",
        )
    start_from = from_rev if from_rev is not None else ("HEAD" if clean else None)
    head: str | None
    if start_from is not None:
        start = resolve_commit(checkout, start_from)
        if start is None:
            raise UsageError(
                "bad-revision",
                f"--from {start_from!r} names no commit.",
                "Pass a branch, tag or commit: pylon ws new --from main",
            )
        baseline, head, base_info = start, start, {"source": "rev", "dirty": False, "notes": []}
    else:
        baseline, head, base_info = baseline_commit(checkout, copy)
    import secrets
    import time

    made = Made(checkout)
    record: dict[str, object] = {
        "version": owned.REGISTRY_VERSION,
        "id": wid,
        "path": path,
        "branch": branch,
        "baseline": baseline,
        "start": head,
        "from": start_from,
        "dirty": base_info["dirty"],
        "token": secrets.token_hex(8),
        "created": iso(int(time.time())),
        "state": "creating",
        "source": checkout.root,
    }
    if made_by is not None:
        record["made_by"] = made_by
    try:
        owned.write_record(checkout, record)
        made.record = wid
        make_dirs(info.root, made)
        reason = owned.lock_reason(wid, str(record["token"]))
        made.worktree, made.branch = path, branch  # git may make both before it fails
        code, _, err = git.run_full(
            ["worktree", "add", "--quiet", "--lock", "--reason", reason, "-b", branch, path, baseline],
            cwd=checkout.root,
        )
        if code != 0:
            raise git.failure(["worktree", "add"], code, err, "git worktree add")
        made.refs.append(session_baseline_ref(wid))
        update_refs(checkout, [(session_baseline_ref(wid), baseline)])
        from pylon.workspace.worktrees.copying import copy_ignored

        copied = copy_ignored(checkout.root, path, patterns, progress)
        admin = owned.admin_dir_of(path)
        record.update(
            state="ready", admin=os.path.basename(admin) if admin else None, copy=copy
        )  # rm --force keeps those
        owned.write_record(checkout, record)
    except BaseException:
        made.undo()
        raise
    return {
        "id": wid,
        "path": path,
        "branch": branch,
        "baseline": baseline,
        "head": head,
        "dirty": base_info["dirty"],
        "copied": {k: copied[k] for k in ("files", "bytes", "reflinked")},
        "copied_paths": copied["paths"],
        "notes": base_info["notes"],
    }


def log_new(checkout: Checkout, result: dict[str, object], made_by: dict[str, object]) -> int:
    """Record a creation a client asked for (call under the op lock, after `new` made it)."""
    wid = str(result["id"])
    record = owned.read_record(checkout, wid) or {}
    who = f"{made_by.get('client')} {made_by.get('purpose')}"
    data = {
        "id": wid,
        "path": result["path"],
        "branch": result["branch"],
        "baseline": result["baseline"],
        "token": record.get("token"),
        "made_by": made_by,
    }
    from pylon.workspace.ops import oplog

    op = oplog.begin(
        checkout,
        "new",
        [],
        title=f"new {wid} ({who})",
        data=data,
        module=CLIENTS,
        anchors=[str(result["baseline"])],
        command=f"{made_by.get('client')}: worktree {made_by.get('name')}",
    )
    oplog.complete(checkout, op)
    return op.seq


def path(checkout: Checkout, worktree_id: str) -> dict[str, object]:
    found = owned.survey(checkout).get(owned.check_id(worktree_id))
    return {"id": found.id, "path": found.path, "branch": found.branch}
