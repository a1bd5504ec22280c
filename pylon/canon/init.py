"""`canon init`: create the store explicitly. Idempotent: existing files are never touched."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from pylon.canon.store import Project, Store
from pylon.errors import PylonError

# `.cache/` holds derived data (the journal index); it must never be committed.
GITIGNORE = ".cache/\n"


@dataclass
class InitResult:
    store: Path
    created: list[str] = field(default_factory=list)  # paths relative to the project root, in order


def ensure_folder(path: Path) -> bool:
    """Create `path` (and parents); True when this call created it. A file in the way is refused."""
    if path.is_dir():
        return False
    try:
        path.mkdir(parents=True)
        return True
    except FileExistsError:
        if path.is_dir():
            return False  # another process created it a moment ago
    except NotADirectoryError:
        pass
    raise PylonError(
        "not-a-directory",
        f"{path} (or a folder above it) exists but is not a folder.",
        "Move it out of the way, then run the command again.",
    )


def check_folders(*folders: Path) -> None:
    """Refuse before creating anything when a file sits where one of `folders` (or a parent) belongs."""
    for folder in folders:
        for candidate in (folder, *folder.parents):
            if candidate.is_dir():
                break
            if os.path.lexists(candidate):
                raise PylonError(
                    "not-a-directory",
                    f"{candidate} exists but is not a folder, so {folder} cannot be created.",
                    f"Move {candidate} out of the way, then run the command again.",
                )


def ensure_store(store: Store, *extra: Path) -> list[Path]:
    """The folders every write needs (.canon/, articles/, journal/, and `extra`) plus .gitignore;
    returns what was made. Nothing is created when any of them is blocked by a file."""
    check_folders(store.canon, store.articles, store.journal, *extra)
    made: list[Path] = []
    for folder in (store.canon, store.articles, store.journal):
        if ensure_folder(folder):
            made.append(folder)
    for folder in extra:
        if ensure_folder(folder):
            made.append(folder)
    gitignore = store.canon / ".gitignore"
    if not os.path.lexists(gitignore):
        from pylon.atomic import create_exclusive

        if create_exclusive(gitignore, GITIGNORE.encode()):
            made.append(gitignore)
    return made


def init(project: Project) -> InitResult:
    """Create .canon/ with articles/, journal/, schema.json and .gitignore; keep whatever exists."""
    from pylon.atomic import create_exclusive
    from pylon.canon.schema import dump_default

    store = project.store
    made = ensure_store(store)
    if not os.path.lexists(store.schema_path) and create_exclusive(store.schema_path, dump_default().encode()):
        made.append(store.schema_path)
    root = store.root
    return InitResult(store=store.canon, created=[_rel(p, root) for p in made])


def _rel(path: Path, root: Path) -> str:
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    return rel + "/" if path.is_dir() else rel
