"""Addresses: from command-line paths to canonical article addresses, and resolution.

`src/core/config.ts` -> `src/core/config`; `lake:prices` addresses the article `prices` in the
mount `lake`. Resolution tries the exact address, then each ancestor; the first article governs.
"""

from __future__ import annotations

import os

from pylon.canon.store import CANON_DIR, Project, Store
from pylon.errors import PylonError, UsageError

TYPE_CHECKING = False  # typing costs start-up time on every `canon read`; annotations are strings
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

# A mount prefix `name:` is made of these (the regex `[A-Za-z0-9._-]+`, checked without re).
_MOUNT_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


class Address:
    """A canonical address: an optional mount name and a `/`-separated path ('' is the root).
    Immutable by convention; compares, orders and hashes as the tuple (mount, path)."""

    __slots__ = ("mount", "path")

    def __init__(self, mount: str | None, path: str) -> None:
        self.mount = mount
        self.path = path

    def __str__(self) -> str:
        return f"{self.mount}:{self.path}" if self.mount else self.path

    def __repr__(self) -> str:
        return f"Address(mount={self.mount!r}, path={self.path!r})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Address:
            return NotImplemented
        return self.mount == other.mount and self.path == other.path

    def __hash__(self) -> int:
        return hash((self.mount, self.path))

    def _key(self, other: object) -> tuple[tuple[str | None, str], tuple[str | None, str]] | None:
        if other.__class__ is not Address:
            return None
        return (self.mount, self.path), (other.mount, other.path)

    def __lt__(self, other: object) -> bool:
        keys = self._key(other)
        return NotImplemented if keys is None else keys[0] < keys[1]

    def __le__(self, other: object) -> bool:
        keys = self._key(other)
        return NotImplemented if keys is None else keys[0] <= keys[1]

    def __gt__(self, other: object) -> bool:
        keys = self._key(other)
        return NotImplemented if keys is None else keys[0] > keys[1]

    def __ge__(self, other: object) -> bool:
        keys = self._key(other)
        return NotImplemented if keys is None else keys[0] >= keys[1]

    @property
    def parent(self) -> Address | None:
        if not self.path:
            return None
        head, _, _ = self.path.rpartition("/")
        return Address(self.mount, head)

    def ancestors(self) -> list[Address]:
        """This address, then each ancestor up to (not including) the empty address."""
        out: list[Address] = []
        current: Address | None = self
        while current is not None and current.path:
            out.append(current)
            current = current.parent
        return out


class Resolution:
    """The outcome of `resolve`: the address asked for, the article governing it (None when no
    article does) and every address tried on the way."""

    __slots__ = ("requested", "governing", "tried")

    def __init__(self, requested: Address, governing: Address | None, tried: list[Address] | None = None) -> None:
        self.requested = requested
        self.governing = governing
        self.tried: list[Address] = [] if tried is None else tried


def split_mount(text: str) -> tuple[str, str] | None:
    """(mount, rest) when `text` starts with a mount prefix `name:` (the regex
    `^([A-Za-z0-9._-]+):(.*)$`: no line break in the rest), else None."""
    name, colon, rest = text.partition(":")
    if not colon or not name or "\n" in rest or not _MOUNT_CHARS.issuperset(name):
        return None
    return name, rest


def on_disk(cwd: str, text: str) -> str:
    """`text` against `cwd` as `Path(cwd) / text` names it: `.` segments, doubled and trailing
    slashes dropped (`lexists("file/")` is False, `(Path(cwd) / "file/").exists()` is not)."""
    parts = [seg for seg in text.split("/") if seg not in ("", ".")]
    return os.path.join("/" if text.startswith("/") else cwd, *parts)


def drop_extension(segment: str) -> str:
    """`config.ts` -> `config`, `a.tar.gz` -> `a.tar`, `.env` stays `.env`."""
    dot = segment.rfind(".")
    return segment[:dot] if dot > 0 else segment


def mapped_names(folder: str) -> frozenset[str] | None:
    """The address segments that entries of `folder` map to: every name, and each file's name less
    one extension. None when `folder` cannot be listed (not a folder, unreadable)."""
    names: set[str] = set()
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                names.add(entry.name)
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                if not is_dir:
                    names.add(drop_extension(entry.name))
    except OSError:
        return None
    return frozenset(names)


def outside(arg: str) -> PylonError:
    # `error.reason` as the boundary's refusals give it (pylon/boundary.py): how the path got out
    reason = "absolute" if arg.startswith("/") else "dotdot" if ".." in arg.replace("\\", "/").split("/") else "outside"
    return UsageError(
        "path-outside",
        f"{arg!r} is outside the project and inside no mount.",
        "Pass a path inside the project, or mount its folder (mounts in .canon/config.toml or --mount DIR).",
        details={"reason": reason},
    )


def normalize_address(text: str) -> str:
    """Clean an address string: slashes, `.`/`..` (never above the root), no `.md` suffix games."""
    parts: list[str] = []
    for seg in text.replace("\\", "/").split("/"):
        if seg in ("", "."):
            continue
        if seg == "..":
            if not parts:
                raise outside(text)
            parts.pop()
            continue
        parts.append(seg)
    return "/".join(parts)


def _relative_address(rel_parts: list[str], is_dir: bool) -> str:
    if rel_parts and not is_dir:
        rel_parts = [*rel_parts[:-1], drop_extension(rel_parts[-1])]
    return "/".join(rel_parts)


def _within(path: str, root_s: str) -> list[str] | None:
    if path == root_s:
        return []
    if path.startswith(root_s.rstrip(os.sep) + os.sep):
        return path[len(root_s.rstrip(os.sep)) + 1 :].split(os.sep)
    return None


def to_address(arg: str, project: Project) -> Address:
    """Turn a command-line argument (a path relative to the cwd, or an address) into an Address."""
    text = arg.strip().replace("\\", "/")
    cwd = project.cwd_dir
    named = split_mount(text)
    if named and not os.path.lexists(on_disk(cwd, text)):
        name, rest = named
        store = project.store_for(name)  # raises unknown-mount
        path = normalize_address(rest)
        # The same extension rule as project addresses (`lake:f/p.csv` is `lake:f/p`), unless that
        # is already an article's exact address, or names a folder in the mount.
        if path and not store.has_article(path) and not os.path.isdir(os.path.join(store.root_dir, path)):
            head, slash, last = path.rpartition("/")
            path = head + slash + drop_extension(last)
        return Address(name, path)
    # An existing article's canonical address that names nothing on disk is used as is, so
    # `src/core/config.test` reads its own article, not its parent's.
    full = os.path.normpath(os.path.join(cwd, text)) if text else cwd
    if text and not os.path.lexists(on_disk(cwd, text)):
        # Relative to the current folder first, like every path (`cd src && canon write
        # core/config` is `src/core/config`, never the root's `core/config`).
        # From outside the project (`--root DIR` elsewhere) an address is taken from the root.
        inside = _within(full, project.root_dir)
        if inside is None and _within(cwd, project.root_dir) is None:
            try:
                inside = normalize_address(text).split("/")
            except PylonError:
                inside = None
        candidate = "/".join(inside) if inside else ""
        if candidate and project.store.has_article(candidate):
            return Address(None, candidate)
    is_dir = os.path.isdir(full)
    rel = _within(full, project.root_dir)
    if rel is not None:
        # A path inside a mount that lives within the project still routes to the mount.
        for name, mount in project.mounts.items():
            inner = _within(full, mount.root_dir)
            if inner is not None:
                return Address(name, _relative_address(inner, is_dir))
        if rel[:1] == [CANON_DIR] and len(rel) > 2 and rel[1] == "articles":
            # A path to an article file addresses that article.
            return Address(None, _relative_address(rel[2:], False))
        return Address(None, _relative_address(rel, is_dir))
    for name, mount in project.mounts.items():
        inner = _within(full, mount.root_dir)
        if inner is not None:
            return Address(name, _relative_address(inner, is_dir))
    raise outside(arg)


def dotted_alias(root_dir: str, path: str) -> str | None:
    """Where pi-canon stored the article of a folder whose name has a dot: `src/my.pkg` ->
    `src/my` (its normalize() drops one extension from every path, folders too). None unless `path`
    names such a folder under `root_dir` and nothing else in its parent maps to the shorter name
    (a `src/my.py` or `src/my/` owns the article `src/my`)."""
    head, slash, last = path.rpartition("/")
    dropped = drop_extension(last)
    if dropped == last:
        return None
    parent = os.path.join(root_dir, head) if head else root_dir
    if not os.path.isdir(os.path.join(parent, last)):
        return None
    names = mapped_names(parent)
    if names is None or dropped in names:
        return None
    return head + slash + dropped


def dotted_governing(root_dir: str, path: str, has_article: Callable[[str], bool]) -> str | None:
    """For a file path no article governs (`src/my.pkg/mod.py`, extension already dropped or not):
    the article pi-canon stored for a dotted folder above it (`src/my`), else None."""
    head, slash, last = path.rpartition("/")
    for candidate in Address(None, head + slash + drop_extension(last)).ancestors():
        if "." in candidate.path.rpartition("/")[2]:
            alias = dotted_alias(root_dir, candidate.path)
            if alias is not None and has_article(alias):
                return alias
    return None


def dotted_folders(root_dir: str, path: str) -> list[str]:
    """The other way round: the dotted folders whose article pi-canon stored at `path` (`src/my`
    -> `["src/my.pkg"]`), for a `path` that nothing on disk maps to (the caller checks that)."""
    head, slash, last = path.rpartition("/")
    out: list[str] = []
    try:
        with os.scandir(os.path.join(root_dir, head) if head else root_dir) as entries:
            for entry in entries:
                if entry.name != last and drop_extension(entry.name) == last and entry.is_dir(follow_symlinks=False):
                    out.append(head + slash + entry.name)
    except OSError:
        return []
    return sorted(out)


def move_hint(address: str, folders: list[str]) -> str:
    """What `canon read` and `canon lint` say about an article pi-canon stored for a dotted folder."""
    shown = " and ".join(f"{f}/" for f in folders)
    return (
        f"pi-canon stored the article of {shown} at {address} (it drops a dot from folder names too); "
        f"canon reads it for that folder; give it the folder's own address: canon mv {address} {folders[0]}"
    )


def stored_address(address: Address, store: Store) -> Address:
    """The article a write of `address` updates: its own, else the one pi-canon stored for that
    dotted folder (updated as pi-canon would, not duplicated; lint offers the `canon mv`)."""
    if store.has_article(address.path) or "." not in address.path.rpartition("/")[2]:
        return address
    alias = dotted_alias(store.root_dir, address.path)
    return Address(address.mount, alias) if alias is not None and store.has_article(alias) else address


def resolve(address: Address, project: Project) -> Resolution:
    """The governing article: the exact address, then each ancestor; the empty address governs nothing.
    A dotted folder with no article of its own is governed by the article pi-canon stored for it
    (`dotted_alias`) before its parent is tried."""
    store: Store = project.store_for(address.mount)
    tried: list[Address] = []
    for candidate in address.ancestors():
        tried.append(candidate)
        if store.has_article(candidate.path):
            return Resolution(address, candidate, tried)
        if "." in candidate.path.rpartition("/")[2]:
            alias = dotted_alias(store.root_dir, candidate.path)
            if alias is not None and store.has_article(alias):
                tried.append(Address(address.mount, alias))
                return Resolution(address, tried[-1], tried)
    return Resolution(address, None, tried)


def article_file(address: Address, project: Project) -> Path:
    return project.store_for(address.mount).article_path(address.path)
