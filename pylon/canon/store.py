"""Locating the project and its `.canon/` store, mounts, and the article files on disk.

On the path of `canon read`, so it imports nothing beyond os: folders are plain strings
(`root_dir`, `articles_dir`, ...). The pathlib.Path properties (`root`, `canon`, `articles`, ...)
serve the write, lint and status paths and import pathlib only when first used (pathlib pulls in
re, fnmatch and urllib.parse: ~10 ms of a start-up budget of ~30).
"""

from __future__ import annotations

import os

from pylon.canon.record import Record
from pylon.errors import PylonError, UsageError
from pylon.findroot import CANON_DIR as CANON_DIR
from pylon.findroot import store_root  # the one store search of every entry point

TYPE_CHECKING = False  # typing costs start-up time on every `canon read`; annotations are strings
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

# Folders at the top of articles/ that belong to tools (an Obsidian vault's settings and trash),
# not to addresses. Other dot-folders are addresses: `.github/workflows/ci` is a real asset.
SKIP_DIRS = frozenset({".obsidian", ".trash", ".git"})
# What an entry named like an article file is (ArticleFile.kind).
FILE, FOLDER, OTHER = "file", "folder", "other"


def as_path(path: str) -> Path:
    """`path` as a pathlib.Path, importing pathlib only when a caller needs one."""
    from pathlib import Path

    return Path(path)


class Store:
    """One `.canon/` folder. `root` is the folder whose assets it governs; `mount` is its mount
    name (None for the project's own store). Compares and hashes by (root, mount)."""

    __slots__ = ("root_dir", "mount", "canon_dir", "articles_dir")

    def __init__(self, root: str | os.PathLike[str], mount: str | None = None) -> None:
        self.root_dir: str = os.fspath(root)
        self.mount = mount
        self.canon_dir = os.path.join(self.root_dir, CANON_DIR)
        self.articles_dir = os.path.join(self.canon_dir, "articles")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Store):
            return NotImplemented
        return (self.root_dir, self.mount) == (other.root_dir, other.mount)

    def __hash__(self) -> int:
        return hash((self.root_dir, self.mount))

    def __repr__(self) -> str:
        return f"Store(root={self.root!r}, mount={self.mount!r})"

    @property
    def journal_dir(self) -> str:
        return os.path.join(self.canon_dir, "journal")

    @property
    def cache_dir(self) -> str:
        from pylon.canon.safeio import cache_folder  # confined: the folder pinned by descriptor

        return cache_folder(self.canon_dir)

    @property
    def schema_file(self) -> str:
        return os.path.join(self.canon_dir, "schema.json")

    def article_file(self, path: str) -> str:
        """File of the article at in-store address `path` (no mount prefix)."""
        return os.path.join(self.articles_dir, f"{path}.md")

    # pathlib views of the same folders, for the write, lint and status paths.
    @property
    def root(self) -> Path:
        return as_path(self.root_dir)

    @property
    def canon(self) -> Path:
        return as_path(self.canon_dir)

    @property
    def articles(self) -> Path:
        return as_path(self.articles_dir)

    @property
    def journal(self) -> Path:
        return as_path(self.journal_dir)

    @property
    def cache(self) -> Path:
        return as_path(self.cache_dir)

    @property
    def schema_path(self) -> Path:
        return as_path(self.schema_file)

    def article_path(self, path: str) -> Path:
        return as_path(self.article_file(path))

    def exists(self) -> bool:
        return os.path.isdir(self.canon_dir)

    def has_article(self, path: str) -> bool:
        return bool(path) and os.path.isfile(self.article_file(path))

    def iter_articles(self, prefix: str = "") -> Iterator[tuple[str, Path]]:
        """(in-store address, file) of every article, sorted by address, optionally under `prefix`
        (the article `prefix` itself and those below it). Entries that are only named like
        articles (see walk_articles) are left out."""
        for entry in walk_articles(self, prefix):
            if entry.is_article:
                yield entry.address, as_path(entry.path)


class Project:
    """The project store plus its mounts, as seen from `cwd_dir`."""

    __slots__ = ("store", "cwd_dir", "mounts")

    def __init__(self, store: Store, cwd: str | os.PathLike[str], mounts: dict[str, Store] | None = None) -> None:
        self.store = store
        self.cwd_dir: str = os.fspath(cwd)
        self.mounts: dict[str, Store] = {} if mounts is None else mounts

    @property
    def cwd(self) -> Path:
        return as_path(self.cwd_dir)

    @property
    def root(self) -> Path:
        return self.store.root

    @property
    def root_dir(self) -> str:
        return self.store.root_dir

    def store_for(self, mount: str | None) -> Store:
        if mount is None:
            return self.store
        try:
            return self.mounts[mount]
        except KeyError:
            known = ", ".join(sorted(self.mounts)) or "none configured"
            raise PylonError(
                "unknown-mount",
                f"No mount is named {mount!r} (mounts: {known}).",
                "Add it to mounts in .canon/config.toml, or pass --mount DIR.",
            ) from None


def read_config(store: Store) -> dict[str, object]:
    path = os.path.join(store.canon_dir, "config.toml")
    if not os.path.isfile(path):
        return {}
    import tomllib

    from pylon.canon.safeio import SCHEMA_MAX, read_regular

    try:
        return tomllib.loads(read_regular(path, SCHEMA_MAX, "config.toml").decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(
            "bad-config",
            f"{path} is not valid TOML: {exc}.",
            f"Fix {path}, then run the command again.",
        ) from None


def open_project(
    cwd: str | os.PathLike[str] | None = None,
    root: str | os.PathLike[str] | None = None,
    mounts: list[str] | None = None,
) -> Project:
    """The project seen from `cwd` (default: the current directory), with configured and extra mounts."""
    from pylon import boundary

    here = os.getcwd() if cwd is None else os.fspath(cwd)
    if root is not None:
        given = os.path.abspath(os.path.join(here, root))
        base = os.path.dirname(given) if os.path.basename(given) == CANON_DIR else given
        if boundary.current() is not None:
            base = boundary.check_folder(base)  # a confined entry point: only a folder inside what it may reach
        if not os.path.isdir(base):
            raise UsageError("bad-root", f"--root {root!s} is not a folder.", "Pass the folder that holds .canon/.")
    else:
        base = store_root(here)
        if boundary.current() is not None:
            base = boundary.check_folder(base)  # never a store found above the project
    project = Project(Store(base), here)
    config = read_config(project.store)
    configured = config.get("mounts", [])
    if not isinstance(configured, list) or not all(isinstance(m, str) for m in configured):
        raise UsageError(
            "bad-config",
            f"mounts in {os.path.join(project.store.canon_dir, 'config.toml')} must be a list of folder paths.",
            'Write it as: mounts = ["../data/lake"]',
        )
    entries = [(os.path.join(base, m), "config") for m in configured]
    entries += [(os.path.join(here, m), "--mount") for m in mounts or []]
    reach = boundary.current()
    for folder, origin in entries:
        folder = os.path.normpath(os.path.abspath(folder))
        if reach is not None and origin != "config":  # an argument: only a folder inside what may be reached
            folder = boundary.check_folder(folder)
        if not os.path.isdir(folder):
            raise UsageError(
                "bad-mount",
                f"Mount {folder!r} (from {origin}) is not a folder.",
                "Fix the path in .canon/config.toml or --mount.",
            )
        if reach is not None and origin == "config":  # the user's configuration may mount any folder
            reach.allow(folder)
        name = os.path.basename(folder)
        existing = project.mounts.get(name)
        if existing is not None and existing.root_dir != folder:
            raise UsageError(
                "mount-conflict",
                f"Two mounts share the name {name!r}: {existing.root_dir} and {folder}.",
                "Mount only one of them; mount names are folder basenames and must be unique.",
            )
        project.mounts[name] = Store(folder, mount=name)
    for store in (project.store, *project.mounts.values()) if reach is not None else ():
        for folder in (store.canon_dir, store.articles_dir, store.journal_dir):  # canon lists these by name:
            if os.path.lexists(folder):  # confined, none may be a link leading out of the reach
                boundary.check_folder(folder)
    return project


# ---- the article walker ---------------------------------------------------------------------


class ArticleFile(Record):
    """One entry of articles/ named like an article file: `<name>.md` with a non-empty name.

    Slotted with a plain __init__: a 20,000-article walk builds 20,000 of them."""

    __slots__ = ("address", "path", "kind")

    def __init__(self, address: str, path: str, kind: str = FILE) -> None:
        self.address = address  # in-store address
        self.path = path  # a plain string: 20,000 Path objects cost more than the rest of a lint
        # FILE: an article (a regular file, or a link to one). FOLDER (a folder, or a link to one)
        # and OTHER (a broken link, a FIFO, a socket, a device) are only named like articles: lint
        # reports them as unreadable, and nothing opens them (reading a FIFO would hang).
        self.kind = kind

    @property
    def is_article(self) -> bool:
        return self.kind == FILE


def path_kind(path: str) -> str:
    """FILE, FOLDER or OTHER for the entry at `path`, following links."""
    if os.path.isfile(path):
        return FILE
    return FOLDER if os.path.isdir(path) else OTHER


def _entry_kind(entry: os.DirEntry[str]) -> str:
    # The directory entry's type is known from the listing, so a regular file costs no stat;
    # only links are followed (one stat each) to see what they point at.
    try:
        if entry.is_file():
            return FILE
        if entry.is_dir():
            return FOLDER
    except OSError:
        pass
    return OTHER


def _descend(entry: os.DirEntry[str]) -> bool:
    # Links to folders are not followed (like git, ripgrep and fd): a link can loop, or lead out
    # of the store and list another tree's articles under this one's addresses.
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def walk_articles(store: Store, prefix: str = "") -> list[ArticleFile]:
    """Every entry under articles/ named `<name>.md` (a non-empty name), sorted by address: the
    one walk that `canon map`, `lint`, `status` and `search` share, so they agree on what the
    articles are.

    With `prefix`, the entry `<prefix>.md` and everything below `<prefix>/`. The tool folders
    (SKIP_DIRS) at the top of articles/ are never entered; links to folders are not followed;
    unreadable folders are passed over. Callers that read articles keep `is_article` entries.
    """
    base = store.articles_dir
    head, slash, _ = prefix.partition("/")
    in_tool_folder = head in SKIP_DIRS
    found: list[ArticleFile] = []
    if prefix and not (in_tool_folder and slash):
        exact = os.path.join(base, prefix + ".md")
        if os.path.lexists(exact):
            found.append(ArticleFile(prefix, exact, path_kind(exact)))
    if in_tool_folder:
        return found
    cut = len(base) + 1
    pending = [os.path.join(base, prefix) if prefix else base]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            continue  # not a folder (a prefix with no children), gone, or no permission
        at_top = folder == base
        for entry in entries:
            name = entry.name
            if _descend(entry) and not (at_top and name in SKIP_DIRS):
                pending.append(entry.path)
            if len(name) > 3 and name.endswith(".md"):
                address = entry.path[cut:-3]
                found.append(
                    ArticleFile(
                        address if os.sep == "/" else address.replace(os.sep, "/"), entry.path, _entry_kind(entry)
                    )
                )
    found.sort(key=lambda a: a.address)
    return found


class ArticleProbe:
    """The article set `walk_articles(store)` lists (its `is_article` addresses), asked one
    address at a time: only the folders on the way to an address asked about are listed, each
    once, with the walk's own rules (SKIP_DIRS at the top, links to folders not entered, FILE
    entries only). `canon check` on a 50-file change asks about a few dozen addresses of
    thousands. Iterating or counting walks everything."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._listed: dict[str, tuple[frozenset[str], frozenset[str]] | None] = {}

    def _listing(self, folder: str) -> tuple[frozenset[str], frozenset[str]] | None:
        """(folders the walk enters, article names less `.md`) of articles/`folder`; None if unlistable."""
        if folder in self._listed:
            return self._listed[folder]
        try:
            with os.scandir(os.path.join(self.store.articles_dir, folder) if folder else self.store.articles_dir) as it:
                entries = list(it)
        except OSError:
            found = None
        else:
            found = (
                frozenset(e.name for e in entries if _descend(e) and not (not folder and e.name in SKIP_DIRS)),
                frozenset(
                    e.name[:-3]
                    for e in entries
                    if len(e.name) > 3 and e.name.endswith(".md") and _entry_kind(e) == FILE
                ),
            )
        self._listed[folder] = found
        return found

    def __contains__(self, address: object) -> bool:
        if not isinstance(address, str) or not address or address.startswith("/") or "//" in address:
            return False  # the walk names no empty segment
        head, _, last = address.rpartition("/")
        folder = ""
        for part in head.split("/") if head else ():
            listing = self._listing(folder)
            if listing is None or part not in listing[0]:
                return False
            folder = f"{folder}/{part}" if folder else part
        listing = self._listing(folder)
        return listing is not None and last in listing[1]

    def _all(self) -> set[str]:
        return {a.address for a in walk_articles(self.store) if a.is_article}

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())
