"""`canon init`: create the store explicitly. Idempotent: existing files are never touched."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from pylon.canon.store import Project, Store
from pylon.errors import PylonError

# `.cache/` holds derived data (the journal index); it must never be committed.
# Temp files a killed writer left (`.x.md.pylon-tmp-*`) and pi-canon's own derived index are
# derived too.
GITIGNORE_LINES = (".cache/", ".*.pylon-tmp-*", ".journal-index.jsonl")
GITIGNORE = "".join(line + "\n" for line in GITIGNORE_LINES)


@dataclass
class InitResult:
    store: Path
    created: list[str] = field(default_factory=list)  # paths relative to the project root, in order
    ignored: list[str] = field(default_factory=list)  # lines added to an existing .canon/.gitignore


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
    except OSError as exc:
        from pylon.canon.safeio import os_error

        raise os_error(exc, os.fspath(path)) from None
    raise PylonError(
        "not-a-directory",
        f"{path} (or a folder above it) exists but is not a folder.",
        "Move it out of the way, then run the command again.",
    )


def check_folders(*folders: Path) -> None:
    """Refuse before creating anything when a file sits where one of `folders` (or a parent) belongs."""
    for folder in folders:
        for candidate in (folder, *folder.parents):
            # One look per path: with two (is it a folder? does anything exist?) another writer
            # creating the folder between them made a folder read as a file in the way.
            try:
                if stat.S_ISDIR(os.stat(candidate).st_mode):
                    break
            except OSError:
                if not os.path.islink(candidate):
                    continue  # absent, below a file the next candidate names, or not ours to look at
            raise PylonError(
                "not-a-directory",
                f"{candidate} exists but is not a folder, so {folder} cannot be created.",
                f"Move {candidate} out of the way, then run the command again.",
            )


def refuse_links(store: Store) -> None:
    """Refuse, before anything is created, a store whose `.canon/`, `articles/`, `journal/` or
    `.cache/` is a symbolic link (writes go through descriptors opened with O_NOFOLLOW anyway;
    this only makes the refusal come first, with nothing created)."""
    from pylon.canon.safeio import symlink_refused

    for folder in (store.canon_dir, store.articles_dir, store.journal_dir, store.cache_dir):
        if os.path.islink(folder):
            raise symlink_refused(folder)


def remove_created(made: list[Path]) -> None:
    """Undo `ensure_store`: remove what it created, newest first (folders only when empty)."""
    for path in reversed(made):
        try:
            if path.is_dir() and not path.is_symlink():
                path.rmdir()
            else:
                path.unlink()
        except OSError:
            pass


def ensure_store(store: Store, *extra: Path) -> list[Path]:
    """The folders every write needs (.canon/, articles/, journal/, and `extra`) plus .gitignore.

    A store this call creates gets everything `canon init` makes, the default schema.json too, so
    a first `canon write` or `canon journal` leaves the same store as `canon init`. An existing
    store without schema.json is left without one (the file is optional; its owner chose). Returns
    the store's own paths this call created, in `canon init`'s order; `extra` folders are made but
    not listed (they hold articles, not the store). Nothing is created when any of them is
    blocked by a file."""
    check_folders(store.canon, store.articles, store.journal, *extra)
    refuse_links(store)
    made: list[Path] = []
    pinned: list[int] = []
    try:
        canon = _folders_beneath(store, made, pinned) if not extra else None
        for folder in (store.canon, store.articles, store.journal) if canon is None else ():
            if ensure_folder(folder):
                made.append(folder)
        for folder in extra:
            ensure_folder(folder)
        _create_file(store.canon / ".gitignore", GITIGNORE, made, canon)
        if store.canon / ".gitignore" not in made:
            update_gitignore(store)
        if store.canon in made:
            _create_default_schema(store, made, canon)
    except OSError as exc:  # disk full, read-only folder: a coded error, and nothing left behind
        from pylon.canon.safeio import os_error

        remove_created(made)
        raise os_error(exc, os.fspath(store.canon)) from None
    except BaseException:
        remove_created(made)
        raise
    finally:
        for fd in pinned:
            os.close(fd)
    return made


def _folders_beneath(store: Store, made: list[Path], pinned: list[int]) -> str | None:
    """For a confined entry point (pylon/boundary.py): make `.canon/`, `articles/` and `journal/`
    through descriptors, the store's folder walked beneath what it may reach and no link followed,
    and return a name of `.canon/` that reaches the folder opened (`/proc/self/fd/N`), so that a
    folder swapped for a link meanwhile cannot move any of the store out. None: a person (or no
    /proc), for whom the paths are used as they are."""
    from pylon import boundary
    from pylon.canon.safeio import open_dir

    if boundary.current() is None or not os.path.isdir("/proc/self/fd"):
        return None
    pinned.append(boundary.open_folder(store.root_dir))
    shown: list[str] = []
    pinned.append(open_dir(pinned[-1], ".canon", store.canon_dir, True, shown))
    for name in ("articles", "journal"):
        pinned.append(open_dir(pinned[1], name, os.path.join(store.canon_dir, name), True, shown))
    made.extend(Path(path) for path in shown)
    return f"/proc/self/fd/{pinned[1]}"


def _create_file(path: Path, text: str, made: list[Path], canon: str | None = None) -> None:
    """Create `path` with `text` unless something is there (never overwritten); note it in `made`.
    `canon`: the pinned name of `.canon/` (_folders_beneath), through which a file in it is made."""
    from pylon.atomic import create_exclusive

    where = os.path.join(canon, path.name) if canon is not None else path
    if not os.path.lexists(where) and create_exclusive(where, text.encode("utf-8")):
        made.append(path)


def _ignore_key(line: str) -> str:
    """A .gitignore line as compared here: `/.cache/`, `.cache` and `.cache/` name the same folder."""
    return line.strip().lstrip("!").strip("/")


def missing_ignores(text: str) -> list[str]:
    """The lines of GITIGNORE that `text` lacks. A negation (`!.cache/`) counts as present: its
    owner chose to commit that path."""
    present = {_ignore_key(line) for line in text.split("\n") if line.strip() and not line.startswith("#")}
    return [line for line in GITIGNORE_LINES if _ignore_key(line) not in present]


def update_gitignore(store: Store) -> list[str]:
    """Add the lines this version needs (pylon's cache, temp files, pi-canon's index) to an existing
    `.canon/.gitignore`, after every line its owner wrote, in the file's own line endings; returns
    the lines added. Best effort: a link, a read-only or non-UTF-8 file is left as it is (a write
    of an article never fails over it)."""
    from pylon.canon.safeio import StoreDir

    try:
        with StoreDir(store.canon_dir, [], create=False) as folder:
            raw = folder.read(".gitignore", limit=1024 * 1024)
            if raw is None:
                return []
            text = raw.decode("utf-8")
            missing = missing_ignores(text)
            if not missing:
                return []
            newline = "\r\n" if "\r\n" in text else "\n"
            head = text if not text or text.endswith("\n") else text + newline
            folder.replace(".gitignore", (head + newline.join(missing) + newline).encode("utf-8"))
            return missing
    except (PylonError, OSError, UnicodeDecodeError):
        return []


def _create_default_schema(store: Store, made: list[Path], canon: str | None = None) -> None:
    from pylon.canon.schema import dump_default

    _create_file(store.schema_path, dump_default(), made, canon)


def init(project: Project) -> InitResult:
    """Create .canon/ with articles/, journal/, schema.json and .gitignore; keep whatever exists."""
    store = project.store
    # An existing .gitignore gains what it lacks (named in the result); ensure_store then finds it complete.
    ignored = update_gitignore(store) if store.canon.is_dir() else []
    made = ensure_store(store)
    if store.schema_path not in made:
        _create_default_schema(store, made)  # completing a partial store: init always offers one
    return InitResult(store=store.canon, created=relative_paths(made, project.root), ignored=ignored)


def relative_paths(paths: list[Path], root: Path) -> list[str]:
    """`paths` as `canon init` prints them: relative to `root`, `/` separators, folders ending in `/`."""
    out = []
    for path in paths:
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        out.append(rel + "/" if path.is_dir() else rel)
    return out
