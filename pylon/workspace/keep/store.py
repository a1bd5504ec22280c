"""pylon's store of kept states: outside every repository, so no command on a checkout can destroy it
together with the checkout (docs/explanation/guard.md, "What is kept").

    <state dir>/keep/
      paths/<key of a checkout's path>   {"root": ..., "stores": [repository ids, newest last]}
      <repository id>/
        objects/                         what pylon keeps (states, ignored files, records)
        git/                             the repository's .git as before the latest command (mirror.py)
        seq, seq.lock                    op numbers, shared with the repository's op log
        checkouts/<key>/                 one checkout: chain.json, lock, its private index, ops/

A repository is named by a random id written once into `<git common dir>/pylon/keep-id` (the
mirror holds it too, so a `.git` brought back keeps its store). A checkout is found by its path
(`paths/`), which is what is left when its `.git` is gone.
"""

from __future__ import annotations

import os

from pylon.workspace.repo import Checkout

KEEP_ID = "keep-id"


def home() -> str:
    from pylon.state import state_home

    return os.path.join(state_home(), "keep")


def path_key(root: str) -> str:
    from pylon.digest import sha256_hex

    return sha256_hex(os.path.realpath(root).encode("utf-8", "surrogateescape"))[:24]


TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.git import objects_in as git_objects_in


class Store:
    """One repository's store (its folder need not exist yet): `folder` where the repository recorded
    it, else in this user's state folder."""

    __slots__ = ("dir", "repo_id")

    def __init__(self, repo_id: str, folder: str | None = None) -> None:
        self.repo_id = repo_id
        self.dir = folder or os.path.join(home(), repo_id)

    @property
    def objects(self) -> str:
        return os.path.join(self.dir, "objects")

    @property
    def mirror(self) -> str:
        return os.path.join(self.dir, "git")

    def checkout_dir(self, root: str, create: bool = True) -> str:
        path = os.path.join(self.dir, "checkouts", path_key(root))
        if create:
            os.makedirs(path, exist_ok=True)
        return path

    def env(self, common_dir: str | None) -> dict[str, str]:
        """git's object folders for work on kept states: pylon's own first (new objects go there),
        then the repository's (when it still has one), then the mirror's copies of them."""
        alternates = [os.path.join(common_dir, "objects")] if common_dir else []
        alternates.append(os.path.join(self.mirror, "objects"))
        return {"GIT_OBJECT_DIRECTORY": self.objects, "GIT_ALTERNATE_OBJECT_DIRECTORIES": os.pathsep.join(alternates)}

    def objects_in(self, common_dir: str | None) -> git_objects_in:
        from pylon.workspace.git import objects_in

        return objects_in(self.env(common_dir))


def _read(common_dir: str) -> tuple[str, str | None] | None:
    """(id, the store's folder) from `<common dir>/pylon/keep-id`: its id on the first line and the
    folder on the second, so every process finds the store whatever its environment."""
    try:
        with open(os.path.join(common_dir, "pylon", KEEP_ID), encoding="utf-8", errors="surrogateescape") as fh:
            lines = fh.read(8192).split("\n")
    except OSError:
        return None
    repo_id = lines[0].strip()
    if not (repo_id.isalnum() and 8 <= len(repo_id) <= 64):
        return None
    folder = lines[1].strip() if len(lines) > 1 and os.path.isabs(lines[1].strip()) else None
    return repo_id, folder


def read_id(common_dir: str) -> str | None:
    found = _read(common_dir)
    return found[0] if found else None


def of_repo(common_dir: str) -> Store | None:
    """The store a repository recorded (None: it never kept a state)."""
    found = _read(common_dir)
    return Store(*found) if found else None


def _new_id(common_dir: str) -> Store:
    from pylon.atomic import create_exclusive

    found = of_repo(common_dir)
    if found:
        return found
    os.makedirs(os.path.join(common_dir, "pylon"), exist_ok=True)
    fresh = Store(os.urandom(10).hex())
    try:
        create_exclusive(
            os.path.join(common_dir, "pylon", KEEP_ID),
            f"{fresh.repo_id}\n{fresh.dir}\n".encode("utf-8", "surrogateescape"),
        )
    except FileExistsError:
        pass
    return of_repo(common_dir) or fresh


def for_checkout(checkout: Checkout, *, create: bool = True) -> Store | None:
    """The store of the checkout's repository (made, with the path recorded, when `create`)."""
    store = _new_id(checkout.common_dir) if create else of_repo(checkout.common_dir)
    if store is None:
        return None
    if create and not os.path.isdir(store.dir):
        for sub in ("objects", "git", "checkouts"):
            os.makedirs(os.path.join(store.dir, sub), exist_ok=True)
    if create:
        remember_path(store, checkout.root)
    return store


def _paths_file(root: str) -> str:
    return os.path.join(home(), "paths", path_key(root))


def remember_path(store: Store, root: str) -> None:
    """Record that the checkout at `root` keeps its states in `store` (newest store last)."""
    from pylon.agents import jsonio as json

    path = _paths_file(root)
    known = stores_of(root)
    if known and known[-1] == store.repo_id:
        return
    stores = [s for s in known if s != store.repo_id] + [store.repo_id]
    from pylon.atomic import replace_unsynced

    os.makedirs(os.path.dirname(path), exist_ok=True)
    replace_unsynced(path, json.dumps({"root": os.path.realpath(root), "stores": stores}, ascii=True).encode("ascii"))


def stores_of(root: str) -> list[str]:
    from pylon.agents import jsonio as json

    try:
        with open(_paths_file(root), "rb") as fh:
            data = json.loads(fh.read())
    except (OSError, ValueError):
        return []
    stores = data.get("stores") if isinstance(data, dict) else None
    return [str(s) for s in stores] if isinstance(stores, list) else []


def by_path(folder: str) -> tuple[Store, str] | None:
    """(store, checkout root) of the nearest folder at or above `folder` that kept states, found by
    its path alone (its `.git` may be gone)."""
    here = os.path.realpath(folder)
    while True:
        stores = stores_of(here)
        if stores:
            return Store(stores[-1]), here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def usable(root: str) -> bool:
    """Is the checkout's `.git` there for git to use (a folder with its HEAD, or a file)?"""
    path = os.path.join(root, ".git")
    if os.path.isdir(path) and not os.path.islink(path):
        return os.path.isfile(os.path.join(path, "HEAD"))
    return os.path.lexists(path)


class KeepCheckout(Checkout):
    """A checkout seen by the keep: its private index and records live in the store (the capture
    machinery of state.py works on them unchanged), and its objects are never pruned."""

    __slots__ = ("keep_dir", "store")
    objects_kept = True  # the store's objects are never pruned: a kept private index stays valid

    def __init__(self, checkout: Checkout, store: Store) -> None:
        super().__init__(checkout.root, checkout.git_dir, checkout.common_dir, checkout.prefix, checkout.cwd)
        self.store = store
        self.keep_dir = store.checkout_dir(checkout.root)

    def pylon_dir(self, create: bool = True) -> str:
        return self.keep_dir


def next_seq(store: Store, at_least: int = 0) -> int:
    """A new op number: above every number the store gave and `at_least` (the repository's log)."""
    from pylon.locks import file_lock

    path = os.path.join(store.dir, "seq")
    with file_lock(path + ".lock", timeout=30.0, what="pylon's op numbers"):
        try:
            with open(path, encoding="ascii") as fh:
                last = int(fh.read().strip() or 0)
        except (OSError, ValueError):
            last = 0
        seq = max(last, at_least) + 1
        from pylon.atomic import replace_unsynced

        replace_unsynced(path, f"{seq}\n".encode())
    return seq


def last_seq(common_dir: str) -> int:
    """The highest op number a store of this repository gave (0 without a store)."""
    store = of_repo(common_dir)
    if store is None:
        return 0
    try:
        with open(os.path.join(store.dir, "seq"), encoding="ascii") as fh:
            return int(fh.read().strip() or 0)
    except (OSError, ValueError):
        return 0
