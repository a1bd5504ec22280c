"""The bits a restore replaced, remembered for the restores after it (exact.py's second source).

Just before a restore deletes or overwrites files, the permission bits other than 644/755 of each
are noted, keyed by the file's blob and path; so are the bits other than 755 of each folder it
removes (a folder left empty by its deletions), keyed by its path. `<git common dir>/pylon/modes`
holds them (written atomically and fsynced; the newest 20,000 entries). A restore that writes that
content at that path again, or makes that folder again, gives it those bits where its target
records none (a state written before the record existed, or one that does not speak for that path).
"""

from __future__ import annotations

import os

MEMORY_MAX = 20_000  # entries (oldest dropped first)
_DIR = "dir"  # the key's first field for a folder (a blob id never reads so)


def _path(common_dir: str) -> str:
    return os.path.join(common_dir, "pylon", "modes")


def _load(common_dir: str) -> dict[str, int]:
    try:
        with open(_path(common_dir), encoding="utf-8", errors="surrogateescape") as fh:
            lines = fh.read().split("\n")
    except OSError:
        return {}
    found: dict[str, int] = {}
    for line in lines:
        bits, _, key = line.partition(" ")
        if key:
            try:
                found[key] = int(bits, 8)
            except ValueError:
                continue
    return found


def _store(common_dir: str, odd: dict[str, int]) -> None:
    if not odd:
        return
    from pylon.atomic import atomic_write

    kept = _load(common_dir)
    for key in odd:
        kept.pop(key, None)  # re-added at the end: the newest last
    kept.update(odd)
    items = list(kept.items())[-MEMORY_MAX:]
    os.makedirs(os.path.dirname(_path(common_dir)), exist_ok=True)
    text = "".join(f"{bits:o} {key}\n" for key, bits in items)
    atomic_write(_path(common_dir), text.encode("utf-8", "surrogateescape"))


def remember(common_dir: str, root: str, replaced: list[tuple[str, str, str]]) -> None:
    """Before a restore replaces or deletes files: the odd bits of each, by blob and path."""
    from pylon.workspace.exact import file_bits

    blobs = {rel: oid for mode, oid, rel in replaced if mode in ("100644", "100755") and "\n" not in rel}
    _store(common_dir, {f"{blobs[rel]}\t{rel}": bits for rel, bits in file_bits(root, list(blobs), odd=True).items()})


def remember_dirs(common_dir: str, bits: dict[str, int]) -> None:
    """The bits other than 755 of the folders a restore removed."""
    _store(common_dir, {f"{_DIR}\t{rel}": b for rel, b in bits.items() if b != 0o755 and "\n" not in rel})


def recall(common_dir: str, writes: list[tuple[str, str, str]]) -> dict[str, int]:
    """The remembered bits of the (mode, blob, path) entries a restore writes."""
    if not writes or not os.path.exists(_path(common_dir)):
        return {}
    kept = _load(common_dir)
    return {rel: kept[f"{oid}\t{rel}"] for _mode, oid, rel in writes if f"{oid}\t{rel}" in kept}


def recall_dirs(common_dir: str, folders: set[str]) -> dict[str, int]:
    """The remembered bits of the folders a restore makes."""
    if not folders or not os.path.exists(_path(common_dir)):
        return {}
    kept = _load(common_dir)
    return {rel: kept[f"{_DIR}\t{rel}"] for rel in folders if f"{_DIR}\t{rel}" in kept}
