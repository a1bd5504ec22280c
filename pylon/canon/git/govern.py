"""Which article governs a path git names: canon's own address rules (pylon.canon.address) applied to
repository-relative paths, against article sets listed once, so thousands of paths cost set lookups.

`address_of` agrees with `to_address` for every file path (tests/canon/git/test_govern.py checks
it differentially); it only skips the stat calls `to_address` makes for arbitrary arguments.
"""

from __future__ import annotations

import os

from pylon.canon.address import Address, drop_extension, mapped_names
from pylon.canon.store import CANON_DIR, ArticleProbe, Project, Store, walk_articles

ARTICLES_PREFIX = CANON_DIR + "/articles/"


def _prefix(folder: str, top: str) -> str | None:
    """`folder` relative to the repository top-level as a `/`-ended prefix ('' for the top itself),
    None when it lies outside the repository."""
    rel = os.path.relpath(os.path.realpath(folder), top)
    if rel == ".":
        return ""
    if rel == ".." or rel.startswith(".." + os.sep):
        return None
    return rel.replace(os.sep, "/") + "/"


class Governance:
    """The stores of a project that lie inside one repository, their article sets, and the path ->
    address -> governing article mapping."""

    def __init__(self, project: Project, top: str, probe: bool = False) -> None:
        """probe: list only the article folders that the paths asked about lead through (a change
        set); without it every store's article tree is walked once (history, coverage)."""
        self.project = project
        self.top = top
        self.stores: list[tuple[str, Store]] = []  # (repository prefix, store), deepest first
        for store in [*project.mounts.values(), project.store]:
            prefix = _prefix(store.root_dir, top)
            if prefix is not None:
                self.stores.append((prefix, store))
        # Mounts inside the project route first (as to_address does): deepest prefix first.
        self.stores.sort(key=lambda item: -len(item[0]))
        self.articles: dict[str | None, set[str] | ArticleProbe] = {
            store.mount: ArticleProbe(store) if probe else {a.address for a in walk_articles(store) if a.is_article}
            for _, store in self.stores
        }
        self._governing: dict[Address, Address | None] = {}
        self._by_path: dict[str, Address | None] = {}
        self._dirs: dict[str, frozenset[str]] = {}  # history names the same paths again and again

    def store_of(self, path: str) -> tuple[Store, str] | None:
        """(store, path relative to the store's root) for a repository-relative path in a store's tree."""
        for prefix, store in self.stores:
            if path.startswith(prefix):
                return store, path[len(prefix) :]
        return None

    def article_of(self, path: str) -> Address | None:
        """The article a repository path is the file of (`.canon/articles/a/b.md` -> a/b), else None."""
        found = self.store_of(path)
        if found is None:
            return None
        store, rel = found
        if rel.startswith(ARTICLES_PREFIX) and rel.endswith(".md") and len(rel) > len(ARTICLES_PREFIX) + 3:
            return Address(store.mount, rel[len(ARTICLES_PREFIX) : -3])
        return None

    def address_of(self, path: str) -> Address | None:
        """The asset address of a repository path; None for paths outside every store's tree and for
        the stores' own files (`.canon/...`), which are not assets."""
        found = self.store_of(path)
        if found is None:
            return None
        store, rel = found
        if not rel or rel == CANON_DIR or rel.startswith(CANON_DIR + "/"):
            return None
        head, slash, last = rel.rpartition("/")
        dropped = drop_extension(last)
        if dropped != last:
            if last in self._subfolders(os.path.join(self.top, path[: len(path) - len(last)])):
                dropped = last  # a folder (a submodule) keeps its dots
            elif rel in self.articles[store.mount] and not os.path.lexists(os.path.join(self.top, path)):
                dropped = last  # an existing article's own address that names nothing on disk
        return Address(store.mount, head + slash + dropped)

    def _subfolders(self, folder: str) -> frozenset[str]:
        """Names of the folders in `folder` (one listing per folder: no stat per file)."""
        found = self._dirs.get(folder)
        if found is None:
            names: set[str] = set()
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        try:
                            if entry.is_dir():
                                names.add(entry.name)
                        except OSError:
                            pass
            except OSError:
                pass
            found = self._dirs[folder] = frozenset(names)
        return found

    def has(self, address: Address) -> bool:
        known = self.articles.get(address.mount)
        return known is not None and address.path in known

    def governing(self, address: Address) -> Address | None:
        """The nearest existing article at or above `address` (canon's resolution, on the sets):
        the exact address, else the folder's answer, computed once per folder."""
        known = self.articles.get(address.mount, set())
        if address.path in known:
            return address
        return self._folder(address.mount, address.path.rpartition("/")[0], known)

    def _folder(self, mount: str | None, folder: str, known: set[str] | ArticleProbe) -> Address | None:
        key = Address(mount, folder)
        if key in self._governing:
            return self._governing[key]
        if not folder:
            found = None
        elif folder in known:
            found = key
        else:
            found = self._folder(mount, folder.rpartition("/")[0], known)
        self._governing[key] = found
        return found

    def governing_path(self, path: str) -> Address | None:
        if path in self._by_path:
            return self._by_path[path]
        address = self.address_of(path)
        found = self._by_path[path] = None if address is None else self.governing(address)
        return found

    def article_file(self, address: Address) -> str:
        """The article's file, repository-relative (for messages and annotations)."""
        for prefix, store in self.stores:
            if store.mount == address.mount:
                return f"{prefix}{ARTICLES_PREFIX}{address.path}.md"
        return f"{ARTICLES_PREFIX}{address.path}.md"

    def asset_present(self, address: Address) -> bool:
        """Something on disk still maps to `address`: a file less one extension, or a folder that
        holds a file somewhere below (git keeps no empty folders, and `git mv` leaves them behind)."""
        for prefix, store in self.stores:
            if store.mount == address.mount:
                head, _, last = address.path.rpartition("/")
                folder = os.path.join(self.top, prefix, head) if head or prefix else self.top
                names = mapped_names(folder)
                if names is None or last not in names:
                    return False
                path = os.path.join(folder, last)
                return (
                    not os.path.isdir(path)
                    or _holds_file(path)
                    or any(
                        n != last and drop_extension(n) == last and not os.path.isdir(os.path.join(folder, n))
                        for n in os.listdir(folder)
                    )
                )
        return False


def _holds_file(folder: str) -> bool:
    """A file (anything but a folder) somewhere below `folder`; the walk stops at the first."""
    for _, dirs, files in os.walk(folder):
        if files:
            return True
        dirs[:] = [d for d in dirs if d != ".git"]
    return False
