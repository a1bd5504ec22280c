"""`canon map`: every article (project store, then mounts) with its capsule."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pylon.canon.address import Address, to_address
from pylon.canon.frontmatter import parse
from pylon.canon.store import Project, Store
from pylon.errors import PylonError


@dataclass
class Entry:
    address: Address
    path: Path
    capsule: str | None
    problem: str | None = None  # unreadable file, bad UTF-8, broken front matter


def stores(project: Project) -> list[Store]:
    """The project store, then every mount in name order."""
    return [project.store, *(project.mounts[name] for name in sorted(project.mounts))]


def iter_catalog(project: Project, prefix: str | None = None) -> Iterator[Entry]:
    """Articles under `prefix` (an address or path; whole store and mounts when None), sorted."""
    if prefix is None:
        targets = [(store, "") for store in stores(project)]
    else:
        address = to_address(prefix, project)
        targets = [(project.store_for(address.mount), address.path)]
    for store, path in targets:
        for in_store, file in store.iter_articles(path):
            yield read_entry(Address(store.mount, in_store), file)


def read_entry(address: Address, file: Path) -> Entry:
    from pylon.canon.safeio import read_regular

    try:
        raw = read_regular(str(file), what="article")
    except OSError as exc:
        return Entry(address, file, None, f"cannot be read ({exc.strerror})")
    except PylonError as exc:  # a FIFO or a huge file: listed with the problem, never waited on
        return Entry(address, file, None, exc.message)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return Entry(address, file, None, "not valid UTF-8")
    doc = parse(text)
    capsule = doc.owned.get("capsule") or None
    problem = f"front matter line {doc.problems[0].line}: {doc.problems[0].message}" if doc.problems else None
    return Entry(address, file, capsule, problem)
