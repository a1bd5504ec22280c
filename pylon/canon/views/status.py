"""`canon status`: where the store is, what it holds, mounts, and this session's surfacing spend."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from pylon.canon.store import Project, Store, walk_articles


@dataclass
class StoreCounts:
    name: str | None  # mount name; None for the project store
    root: Path
    canon: Path
    exists: bool
    articles: int


@dataclass
class Status:
    root: Path
    store: StoreCounts
    mounts: list[StoreCounts] = field(default_factory=list)
    journal: int = 0
    session: str = "default"
    surfacing: dict[str, int] | None = None  # filled in by the surfacing part once it exists


def count_articles(store: Store) -> int:
    """The articles `canon map` lists and `canon lint` checks: the same walk, so they agree."""
    return sum(1 for entry in walk_articles(store) if entry.is_article)


def _counts(store: Store) -> StoreCounts:
    return StoreCounts(store.mount, store.root, store.canon, store.exists(), count_articles(store))


def status(project: Project) -> Status:
    from pylon.state import session_name

    try:
        journal = sum(1 for n in os.listdir(project.store.journal) if n.endswith(".md") and not n.startswith("."))
    except OSError:
        journal = 0
    return Status(
        root=project.root,
        store=_counts(project.store),
        mounts=[_counts(project.mounts[name]) for name in sorted(project.mounts)],
        journal=journal,
        session=session_name(),
        surfacing=surfacing_spent(project),
    )


def surfacing_spent(project: Project) -> dict[str, int] | None:
    """What surfacing has spent in this session (None until it has recorded anything)."""
    from pylon.canon.agent.surface import spending

    return spending(project)
