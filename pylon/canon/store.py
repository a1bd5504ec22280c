"""Locating the project and its `.canon/` store, mounts, and the article files on disk."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pylon.errors import PylonError, UsageError

CANON_DIR = ".canon"
# Folders at the top of articles/ that belong to tools (an Obsidian vault's settings and trash),
# not to addresses. Other dot-folders are addresses: `.github/workflows/ci` is a real asset.
SKIP_DIRS = frozenset({".obsidian", ".trash", ".git"})
# What an entry named like an article file is (ArticleFile.kind).
FILE, FOLDER, OTHER = "file", "folder", "other"


@dataclass(frozen=True)
class Store:
    """One `.canon/` folder. `root` is the folder whose assets it governs; `mount` is its mount
    name (None for the project's own store)."""

    root: Path
    mount: str | None = None

    @property
    def canon(self) -> Path:
        return self.root / CANON_DIR

    @property
    def articles(self) -> Path:
        return self.canon / "articles"

    @property
    def journal(self) -> Path:
        return self.canon / "journal"

    @property
    def cache(self) -> Path:
        return self.canon / ".cache"

    @property
    def schema_path(self) -> Path:
        return self.canon / "schema.json"

    def exists(self) -> bool:
        return self.canon.is_dir()

    def article_path(self, path: str) -> Path:
        """File of the article at in-store address `path` (no mount prefix)."""
        return self.articles / f"{path}.md"

    def has_article(self, path: str) -> bool:
        return bool(path) and os.path.isfile(self.article_path(path))

    def iter_articles(self, prefix: str = "") -> Iterator[tuple[str, Path]]:
        """(in-store address, file) of every article, sorted by address, optionally under `prefix`
        (the article `prefix` itself and those below it). Entries that are only named like
        articles (see walk_articles) are left out."""
        for entry in walk_articles(self, prefix):
            if entry.is_article:
                yield entry.address, Path(entry.path)


@dataclass
class Project:
    """The project store plus its mounts, as seen from `cwd`."""

    store: Store
    cwd: Path
    mounts: dict[str, Store] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.store.root

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


def find_root(cwd: Path) -> Path:
    """First ancestor holding `.canon/`; else the git top-level; else `cwd` itself."""
    for folder in (cwd, *cwd.parents):
        if (folder / CANON_DIR).is_dir():
            return folder
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def read_config(store: Store) -> dict[str, object]:
    path = store.canon / "config.toml"
    if not path.is_file():
        return {}
    import tomllib

    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(
            "bad-config",
            f"{path} is not valid TOML: {exc}.",
            f"Fix {path}, then run the command again.",
        ) from None


def open_project(
    cwd: Path | None = None, root: str | os.PathLike[str] | None = None, mounts: list[str] | None = None
) -> Project:
    """The project seen from `cwd` (default: the current directory), with configured and extra mounts."""
    here = Path(os.getcwd()) if cwd is None else cwd
    if root is not None:
        given = Path(os.path.abspath(here / root))
        base = given.parent if given.name == CANON_DIR else given
        if not base.is_dir():
            raise UsageError("bad-root", f"--root {root!s} is not a folder.", "Pass the folder that holds .canon/.")
    else:
        base = find_root(here)
    project = Project(store=Store(base), cwd=here)
    config = read_config(project.store)
    configured = config.get("mounts", [])
    if not isinstance(configured, list) or not all(isinstance(m, str) for m in configured):
        raise UsageError(
            "bad-config",
            f"mounts in {project.store.canon / 'config.toml'} must be a list of folder paths.",
            'Write it as: mounts = ["../data/lake"]',
        )
    entries = [(base / m, "config") for m in configured] + [(here / m, "--mount") for m in mounts or []]
    for folder, origin in entries:
        folder = Path(os.path.normpath(os.path.abspath(folder)))
        if not folder.is_dir():
            raise UsageError(
                "bad-mount",
                f"Mount {str(folder)!r} (from {origin}) is not a folder.",
                "Fix the path in .canon/config.toml or --mount.",
            )
        name = folder.name
        existing = project.mounts.get(name)
        if existing is not None and existing.root != folder:
            raise UsageError(
                "mount-conflict",
                f"Two mounts share the name {name!r}: {existing.root} and {folder}.",
                "Mount only one of them; mount names are folder basenames and must be unique.",
            )
        project.mounts[name] = Store(folder, mount=name)
    return project


# ---- the article walker ---------------------------------------------------------------------


@dataclass(slots=True)  # not frozen: a frozen init costs a tenth of a 20,000-article walk
class ArticleFile:
    """One entry of articles/ named like an article file: `<name>.md` with a non-empty name."""

    address: str  # in-store address
    path: str  # a plain string: 20,000 Path objects cost more than the rest of a lint
    # FILE: an article (a regular file, or a link to one). FOLDER (a folder, or a link to one)
    # and OTHER (a broken link, a FIFO, a socket, a device) are only named like articles: lint
    # reports them as unreadable, and nothing opens them (reading a FIFO would hang).
    kind: str = FILE

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
    base = str(store.articles)
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
                found.append(ArticleFile(address if os.sep == "/" else address.replace(os.sep, "/"),
                                         entry.path, _entry_kind(entry)))
    found.sort(key=lambda a: a.address)
    return found
