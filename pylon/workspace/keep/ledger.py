"""The shell ops of one checkout, kept in the store beside its chain (`checkouts/<key>/ops/<n>.json`).

Each file is one op record in the op log's format (oplog.py: kind `shell`, status, title, steps with
the kept states before and after, data), numbered from the sequence the repository's op log uses
too (store.next_seq), so `op-<n>` names one op whichever log holds it. oplog.entries() lists them
with the repository's ops; a status change rewrites the file (atomically).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.keep.store import Store
    from pylon.workspace.repo import Checkout

    Entry = tuple[int, str, dict[str, object]]  # (number, file, record): oplog.entries() makes ops of them

MODULE = "pylon.workspace.ops.shellop"


def ops_dir(store: Store, root: str) -> str:
    return os.path.join(store.checkout_dir(root), "ops")


def path_of(store: Store, root: str, seq: int) -> str:
    return os.path.join(ops_dir(store, root), f"{seq:08d}.json")


def save(path: str, record: dict[str, object]) -> None:
    from pylon.agents import jsonio as json
    from pylon.atomic import atomic_write

    os.makedirs(os.path.dirname(path), exist_ok=True)
    atomic_write(path, json.dumps(record, ascii=True, sort_keys=True).encode("ascii"))


def delete(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _read(path: str) -> dict[str, object] | None:
    from pylon.agents import jsonio as json

    try:
        with open(path, "rb") as fh:
            data = json.loads(fh.read())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def load(store: Store, root: str) -> list[Entry]:
    """This checkout's shell ops, newest first."""
    folder = ops_dir(store, root)
    try:
        names = sorted((n for n in os.listdir(folder) if n.endswith(".json") and n[:-5].isdigit()), reverse=True)
    except FileNotFoundError:
        return []
    found = []
    for name in names:
        path = os.path.join(folder, name)
        record = _read(path)
        if record is not None:
            found.append((int(name[:-5]), path, record))
    return found


def for_checkout(checkout: Checkout) -> list[Entry]:
    """The shell ops of `checkout` (none without a store: one failed open)."""
    from pylon.workspace.keep.store import of_repo

    store = of_repo(checkout.common_dir)
    if store is None:
        return []
    if not os.path.isdir(store.checkout_dir(checkout.root, create=False)):
        return []
    return load(store, checkout.root)
