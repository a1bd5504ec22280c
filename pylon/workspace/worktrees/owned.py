"""Owned worktrees: where they live, pylon's registry of them, and the ownership check.

A worktree is *owned* only when every one of these holds (checked on every command, never cached):

- a registry record `<git-common-dir>/pylon/owned/<id>.json` names it (written by `ws new`);
- the record's path is `<worktree root>/<id>`, inside pylon's worktree root and outside the
  project checkout, and its branch is `pylon-session-<id>`;
- `git worktree list` has a worktree at that path, on that branch, locked with exactly the reason
  `ws new` gave it, which names pylon and carries the record's random token.

Everything else is foreign: a plain `git worktree add`, one locked by someone else, a folder
inside the root that pylon did not create, a record whose branch or path was edited by hand.
Foreign worktrees are counted, never listed as owned, changed or removed.
"""

from __future__ import annotations

import os

from pylon.workspace.repo import Checkout
from pylon.workspace.worktrees.proof import GitWorktree as GitWorktree
from pylon.workspace.worktrees.proof import admin_dir_of as admin_dir_of
from pylon.workspace.worktrees.proof import admin_dirs_for as admin_dirs_for
from pylon.workspace.worktrees.proof import git_worktrees as git_worktrees
from pylon.workspace.worktrees.proof import lock_reason as lock_reason
from pylon.workspace.worktrees.proof import named_by as named_by
from pylon.workspace.worktrees.proof import ours_admin as ours_admin
from pylon.workspace.worktrees.proof import quoted as quoted
from pylon.workspace.worktrees.proof import removable as removable
from pylon.workspace.worktrees.proof import same_path as same_path
from pylon.workspace.worktrees.proof import why_not_ours as why_not_ours

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.locks import file_lock

REGISTRY_VERSION = 1
BRANCH_PREFIX = "pylon-session-"
_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def check_id(worktree_id: str) -> str:
    """Ids are 1-64 of [A-Za-z0-9._-] (the spec), and must also make a valid branch name."""
    ok = (
        0 < len(worktree_id) <= 64
        and all(ch in _ID_CHARS for ch in worktree_id)
        and not worktree_id.startswith((".", "-"))
        and ".." not in worktree_id
        and not worktree_id.endswith((".lock", "."))
    )
    if not ok:
        from pylon.errors import UsageError

        raise UsageError(
            "bad-worktree-id",
            f"{worktree_id!r} is not a valid worktree id: use 1-64 of A-Z a-z 0-9 . _ - "
            "(not starting with . or -, no '..', not ending in .lock).",
            "pylon ws new agent-1",
        )
    return worktree_id


def new_id() -> str:
    import secrets

    return "s-" + secrets.token_hex(4)


def branch_of(worktree_id: str) -> str:
    return BRANCH_PREFIX + worktree_id


def registry_dir(checkout: Checkout) -> str:
    return os.path.join(checkout.common_dir, "pylon", "owned")


def lock_path(checkout: Checkout) -> str:
    """Serialises `new`, `rm` and `prune` of one repository (config.lock/index.lock races)."""
    return os.path.join(checkout.common_dir, "pylon", "owned.lock")


def owned_lock(checkout: Checkout, timeout: float = 60.0) -> file_lock:
    """The lock of lock_path(), announced (a waiter says who holds it); PYLON_WS_LOCK_TIMEOUT bounds it."""
    from pylon.locks import file_lock
    from pylon.workspace.ops.oplog import lock_timeout

    return file_lock(lock_path(checkout), timeout=lock_timeout(timeout), what="owned worktrees", announce=True)


def worktree_root(checkout: Checkout, main_root: str) -> str:
    """`<base>/<repo-name>-<hash>`: base `$PYLON_WORKTREE_ROOT`, else `$XDG_DATA_HOME/pylon/worktrees`.

    The per-repository part (the hash is of the git common dir) keeps two repositories that share
    a base from colliding on ids."""
    import hashlib

    explicit = os.environ.get("PYLON_WORKTREE_ROOT")
    if explicit:
        base = os.path.abspath(os.path.expanduser(explicit))
    else:
        data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
        base = os.path.join(os.path.abspath(data), "pylon", "worktrees")
    common = os.path.realpath(checkout.common_dir)
    digest = hashlib.sha256(common.encode("utf-8", "surrogateescape")).hexdigest()[:10]
    name = os.path.basename(main_root.rstrip("/")) or "repo"
    root = os.path.join(base, f"{name}-{digest}")
    real = os.path.realpath(root)
    _check_root(root, real, bool(explicit))
    for checkout_root in {main_root, checkout.root}:
        inside = os.path.realpath(checkout_root)
        if real == inside or real.startswith(inside.rstrip("/") + "/"):
            from pylon.errors import UsageError

            raise UsageError(
                "worktree-root-inside-checkout",
                f"The worktree root {root} is inside the checkout {checkout_root}; owned worktrees must live "
                "outside it.",
                "Set PYLON_WORKTREE_ROOT to a folder outside the checkout (or unset it).",
            )
    return root


def _check_root(root: str, real: str, explicit: bool) -> None:
    """The root, or the nearest of its folders that exists, must be a folder (`worktree-root-not-folder`)."""
    probe = real
    while not os.path.lexists(probe):
        parent = os.path.dirname(probe)
        if parent == probe:
            return
        probe = parent
    if not os.path.isdir(probe):
        from pylon.errors import UsageError

        where = "PYLON_WORKTREE_ROOT" if explicit else "The default worktree root"
        raise UsageError(
            "worktree-root-not-folder",
            f"{where} {root} cannot hold worktrees: {probe} is not a folder.",
            "Point PYLON_WORKTREE_ROOT at a folder (or a path that does not exist yet), or move that file away.",
        )


# -- the registry ------------------------------------------------------------------------------


def read_record(checkout: Checkout, worktree_id: str) -> dict[str, object] | None:
    import json

    try:
        with open(os.path.join(registry_dir(checkout), worktree_id + ".json"), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_record(checkout: Checkout, record: dict[str, object]) -> None:
    import json

    from pylon.atomic import atomic_write

    folder = registry_dir(checkout)
    text = json.dumps(record, indent=1, sort_keys=True) + "\n"
    try:
        os.makedirs(folder, exist_ok=True)
        atomic_write(os.path.join(folder, f"{record['id']}.json"), text.encode("utf-8"))
    except OSError as exc:
        from pylon.errors import PylonError

        raise PylonError(
            "registry-unwritable",
            f"pylon cannot write its registry of owned worktrees in {folder}: {exc.strerror or exc}.",
            f"Make {folder} a folder pylon can write (move away whatever is there), then run the command again.",
        ) from None


def record_file(checkout: Checkout, worktree_id: str) -> str:
    return os.path.join(registry_dir(checkout), worktree_id + ".json")


def delete_record(checkout: Checkout, worktree_id: str) -> None:
    try:
        os.unlink(os.path.join(registry_dir(checkout), worktree_id + ".json"))
    except FileNotFoundError:
        pass


def record_ids(checkout: Checkout) -> list[str]:
    try:
        names = os.listdir(registry_dir(checkout))
    except OSError:
        return []
    return sorted(n[:-5] for n in names if n.endswith(".json") and not n.startswith("."))


# -- the survey --------------------------------------------------------------------------------


class Owned:
    """An owned worktree that passed every check (or, with `present=False`, whose record and git
    admin entry still agree although its folder is gone)."""

    __slots__ = ("id", "path", "branch", "baseline", "head", "created", "record", "present")

    def __init__(self, record: dict[str, object], entry: GitWorktree | None) -> None:
        self.id = str(record["id"])
        self.path = str(record["path"])
        self.branch = str(record["branch"])
        self.baseline = str(record.get("baseline") or "")
        self.created = str(record.get("created") or "")
        self.head = entry.head if entry else None
        self.record = record
        self.present = bool(entry and not entry.prunable and os.path.isdir(self.path))


class Survey:
    """Every worktree of the repository, sorted into owned ones and a count of foreign ones."""

    __slots__ = ("main_root", "root", "owned", "foreign", "records", "entries", "pending", "stale")

    def __init__(self, main_root: str, root: str) -> None:
        self.main_root = main_root
        self.root = root
        self.owned: dict[str, Owned] = {}
        self.foreign: list[dict[str, str]] = []
        self.records: dict[str, dict[str, object]] = {}  # every readable record, owned or not
        self.entries: list[GitWorktree] = []
        self.pending: dict[str, dict[str, object]] = {}  # records of a `new` not finished
        self.stale: dict[str, dict[str, object]] = {}  # sound records git has no worktree for

    def get(self, worktree_id: str) -> Owned:
        """The owned worktree `id`, or a refusal that says why it is not one."""
        found = self.owned.get(worktree_id)
        if found is not None and found.present:
            return found
        from pylon.errors import NotFoundError

        gone = found is not None or worktree_id in self.stale or worktree_id in self.pending

        for item in self.foreign:
            if item.get("id") == worktree_id:
                raise NotFoundError(
                    "foreign-worktree",
                    f"{worktree_id!r} is not a worktree pylon owns: {item['why']}; pylon leaves it alone.",
                    "Use git itself for it (`git worktree list`), or `pylon ws list` for the owned ones.",
                )
        raise NotFoundError(
            "unknown-worktree",
            f"No owned worktree is named {worktree_id!r}"
            + (" (it is gone or half-made; `pylon ws prune` cleans up)." if gone else "."),
            "pylon ws list",
        )


def check_record(record: dict[str, object], worktree_id: str) -> str | None:
    """Why a record is not trustworthy (None when its fields are what `ws new` writes)."""
    if record.get("version") != REGISTRY_VERSION or record.get("id") != worktree_id:
        return "its registry record is not one pylon wrote"
    if record.get("branch") != branch_of(worktree_id):
        return "its registry record names another branch than pylon-session-<id>"
    path = record.get("path")
    # The path need not lie under today's root: a worktree made before the root changed (another
    # $PYLON_WORKTREE_ROOT, or the layout before per-repository roots) stays owned, and `ws rm`
    # removes it. Ownership itself is proven on disk (branch, lock reason with the token, the
    # worktree's own .git file and admin folder) before anything is touched.
    if not isinstance(path, str) or not os.path.isabs(path) or os.path.basename(os.path.normpath(path)) != worktree_id:
        return "its registry record names a path that is not <root>/<id>"
    if not isinstance(record.get("token"), str) or not record.get("token"):
        return "its registry record has no token"
    return None


def survey(checkout: Checkout) -> Survey:
    entries = git_worktrees(checkout)
    main_root = entries[0].path if entries and not entries[0].bare else checkout.root
    result = Survey(main_root, worktree_root(checkout, main_root))
    result.entries = entries
    by_path = {os.path.realpath(e.path): e for e in entries[1:]}
    claimed: set[str] = set()
    for worktree_id in record_ids(checkout):
        record = read_record(checkout, worktree_id)
        if record is None:
            result.foreign.append(
                {
                    "id": worktree_id,
                    "path": "",
                    "why": "its registry record cannot be read",
                    "resolve": f"mv {quoted(record_file(checkout, worktree_id))} <elsewhere>",
                }
            )
            continue
        result.records[worktree_id] = record
        why = check_record(record, worktree_id)
        entry = by_path.get(os.path.realpath(str(record.get("path")))) if why is None else None
        if why is None and record.get("state") != "ready":
            # a `new` in progress, or one that was killed: only `prune` (under the lock) decides
            result.pending[worktree_id] = record
            claimed.add(os.path.realpath(str(record["path"])))
            continue
        if why is None and entry is None:
            moved = next(
                (e for e in entries[1:] if e.branch == "refs/heads/" + str(record["branch"]) and not e.prunable), None
            )
            if moved is not None:  # `git worktree move` (or a move and `git worktree repair`) took it
                claimed.add(os.path.realpath(moved.path))
                result.foreign.append(
                    {
                        "id": worktree_id,
                        "path": moved.path,
                        "why": f"git moved it away from {record['path']}",
                        "resolve": "git worktree move --force --force "
                        f"{quoted(moved.path)} {quoted(str(record['path']))}",
                    }
                )
                continue
            result.stale[worktree_id] = record  # git lost it (folder and admin entry gone): a leftover
            claimed.add(os.path.realpath(str(record["path"])))
            continue
        resolve = ""
        if why is None and entry is not None:
            path, reason = str(record["path"]), lock_reason(worktree_id, str(record["token"]))
            admin = admin_dir_of(path) if not entry.prunable else None
            if admin is not None and record.get("admin") and os.path.basename(admin) != record.get("admin"):
                why = f"another worktree ({os.path.basename(admin)}) now sits at its path"
                home = named_by(admin)  # where that worktree's own registration says it lives
                if home is not None and not same_path(os.path.dirname(home), path):
                    resolve = f"mv {quoted(path)} {quoted(os.path.dirname(home))} && pylon ws prune"
                else:
                    resolve = f"git worktree move {quoted(path)} <elsewhere> && pylon ws prune"
            elif entry.branch != "refs/heads/" + str(record["branch"]):
                why = "it is not on its branch pylon-session-<id> any more"
                resolve = f"git -C {quoted(path)} switch {record['branch']}"
            elif entry.locked != reason:
                why = "it is not locked with pylon's reason"
                resolve = (
                    f"git worktree unlock {quoted(path)} && " if entry.locked is not None else ""
                ) + f"git worktree lock --reason {quoted(reason)} {quoted(path)}"
            elif os.path.lexists(path) and not entry.prunable:
                found = why_not_ours(checkout, record)
                if found is not None:
                    why = f"what is at its path is not the worktree pylon made: {found}"
                    resolve = f"mv {quoted(path)} <elsewhere> && pylon ws prune"
        if why is None and entry is not None:
            result.owned[worktree_id] = Owned(record, entry)
            claimed.add(os.path.realpath(entry.path))
            continue
        if entry is not None:
            claimed.add(os.path.realpath(entry.path))
        item = {"id": worktree_id, "path": str(record.get("path") or ""), "why": why or "unknown"}
        result.foreign.append(dict(item, resolve=resolve) if resolve else item)
    for real, entry in by_path.items():
        if real not in claimed:
            result.foreign.append({"id": "", "path": entry.path, "why": "not created by pylon"})
            claimed.add(real)
    try:
        names = sorted(os.listdir(result.root))
    except OSError:
        names = []
    for name in names:
        full = os.path.join(result.root, name)
        if os.path.realpath(full) not in claimed and name not in result.records:
            result.foreign.append({"id": "", "path": full, "why": "a folder in pylon's root that pylon did not create"})
    return result
