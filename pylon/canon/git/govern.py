"""Which article governs a path git names: canon's own address rules (pylon.canon.address) applied to
repository-relative paths, against article sets listed once, so thousands of paths cost set lookups.

`address_of` agrees with `to_address` for every file path (tests/canon/git/test_govern.py checks
it differentially); it only skips the stat calls `to_address` makes for arbitrary arguments.
"""

from __future__ import annotations

import os

from pylon.canon.address import Address, drop_extension, mapped_names
from pylon.canon.store import CANON_DIR, Project, Store, walk_articles

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

    def __init__(self, project: Project, top: str) -> None:
        self.project = project
        self.top = top
        self.stores: list[tuple[str, Store]] = []  # (repository prefix, store), deepest first
        for store in [*project.mounts.values(), project.store]:
            prefix = _prefix(store.root_dir, top)
            if prefix is not None:
                self.stores.append((prefix, store))
        # Mounts inside the project route first (as to_address does): deepest prefix first.
        self.stores.sort(key=lambda item: -len(item[0]))
        self.articles: dict[str | None, set[str]] = {
            store.mount: {a.address for a in walk_articles(store) if a.is_article} for _, store in self.stores
        }
        self._governing: dict[Address, Address | None] = {}
        self._by_path: dict[str, Address | None] = {}  # history names the same paths again and again

    def store_of(self, path: str) -> tuple[Store, str] | None:
        """(store, path relative to the store's root) for a repository-relative path in a store's tree."""
        for prefix, store in self.stores:
            if path.startswith(prefix):
                return store, path[len(prefix):]
        return None

    def article_of(self, path: str) -> Address | None:
        """The article a repository path is the file of (`.canon/articles/a/b.md` -> a/b), else None."""
        found = self.store_of(path)
        if found is None:
            return None
        store, rel = found
        if rel.startswith(ARTICLES_PREFIX) and rel.endswith(".md") and len(rel) > len(ARTICLES_PREFIX) + 3:
            return Address(store.mount, rel[len(ARTICLES_PREFIX):-3])
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
            full = os.path.join(self.top, path)
            if os.path.isdir(full):
                dropped = last  # a folder (a submodule) keeps its dots
            elif rel in self.articles[store.mount] and not os.path.lexists(full):
                dropped = last  # an existing article's own address that names nothing on disk
        return Address(store.mount, head + slash + dropped)

    def has(self, address: Address) -> bool:
        known = self.articles.get(address.mount)
        return known is not None and address.path in known

    def governing(self, address: Address) -> Address | None:
        """The nearest existing article at or above `address` (canon's resolution, on the sets)."""
        if address in self._governing:
            return self._governing[address]
        known = self.articles.get(address.mount, set())
        found = None
        for candidate in address.ancestors():
            if candidate.path in known:
                found = candidate
                break
        self._governing[address] = found
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
        """Something on disk still maps to `address` (a file less one extension, or a folder)."""
        for prefix, store in self.stores:
            if store.mount == address.mount:
                head, _, last = address.path.rpartition("/")
                names = mapped_names(os.path.join(self.top, prefix, head) if head or prefix else self.top)
                return names is not None and last in names
        return False
