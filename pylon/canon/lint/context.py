"""What every rule needs to know about the project, computed once per lint run.

The set of article addresses of each store is listed once (dead links, tiny-child and unknown
subjects are set lookups); folder listings for orphan/address-eventish are cached per folder.
`lint_article` uses a lazy variant that asks the disk per lookup instead of listing everything.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Container

from pylon.canon.address import mapped_names
from pylon.canon.links import is_canonical_target
from pylon.canon.schema import Schema, load_schema
from pylon.canon.store import CANON_DIR, Project, Store, walk_articles


class OnDisk:
    """A set-like view of a store's article addresses that checks the disk per lookup."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self.store.has_article(path)


def repo_base(root: Path) -> Path:
    """The git top-level above `root` (found without running git), else `root` itself."""
    for folder in (root, *root.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return root


@dataclass
class LintContext:
    project: Project
    base: Path  # findings' paths are relative to this (the repository root, else the project root)
    articles: dict[str | None, Container[str]] = field(default_factory=dict)  # mount -> set-like of addresses
    _schemas: dict[str | None, Schema] = field(default_factory=dict)
    # mount -> the addresses a link can name written as is (full lint only: a fast path for links)
    canonical: dict[str | None, frozenset[str]] = field(default_factory=dict)
    _listings: dict[str, frozenset[str] | None] = field(default_factory=dict)
    _base_prefix: str = ""
    _by_head: dict[tuple[str | None, str], frozenset[str] | None] = field(default_factory=dict)

    @classmethod
    def full(cls, project: Project) -> LintContext:
        """Every store's article set listed up front (whole-store lint)."""
        ctx = cls(project, repo_base(project.root))
        for mount, store in ctx.stores():
            listed = ctx.articles[mount] = frozenset(a.address for a in walk_articles(store) if a.is_article)
            ctx.canonical[mount] = frozenset(a for a in listed if is_canonical_target(a))
        return ctx

    @classmethod
    def lazy(cls, project: Project) -> LintContext:
        """Lookups go to the disk (one article: `canon write` advice)."""
        ctx = cls(project, repo_base(project.root))
        for mount, store in ctx.stores():
            ctx.articles[mount] = OnDisk(store)
        return ctx

    def stores(self) -> list[tuple[str | None, Store]]:
        return [(None, self.project.store), *sorted(self.project.mounts.items())]

    def has_article(self, mount: str | None, path: str) -> bool:
        known = self.articles.get(mount)
        return known is not None and path in known

    def schema(self, mount: str | None) -> Schema:
        if mount not in self._schemas:
            self._schemas[mount] = load_schema(self.project.store_for(mount))
        return self._schemas[mount]

    def rel(self, path: Path | str) -> str:
        """`path` relative to the report base, with `/` separators (`..` for files outside it)."""
        text = str(path)
        prefix = self._base_prefix or str(self.base).rstrip(os.sep) + os.sep
        self._base_prefix = prefix
        if text.startswith(prefix):
            rest = text[len(prefix) :]
            return rest if os.sep == "/" else rest.replace(os.sep, "/")
        return os.path.relpath(text, self.base).replace(os.sep, "/")

    def mapped_names(self, folder: str) -> frozenset[str] | None:
        """Names that entries of `folder` map to as address segments; None if it is not a folder."""
        if folder not in self._listings:
            self._listings[folder] = mapped_names(folder)
        return self._listings[folder]

    def asset_exists(self, store: Store, address: str) -> tuple[bool, bool]:
        """(parent folder exists on disk, something on disk maps to `address`) under the store's root."""
        head, _, last = address.rpartition("/")
        if address == CANON_DIR or address.startswith(CANON_DIR + "/"):
            return True, True  # the store's own files are not assets
        key = (store.mount, head)
        if key in self._by_head:
            names = self._by_head[key]
        else:
            folder = os.path.join(str(store.root), head) if head else str(store.root)
            names = self._by_head[key] = self.mapped_names(folder)
        if names is None:
            return False, False
        return True, last in names
