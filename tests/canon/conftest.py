"""Fixtures for the canon tests."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

import pytest

from tests.conftest import write_files


class MakeStore(Protocol):
    """The type of the `make_store` fixture."""

    def __call__(
        self,
        articles: Mapping[str, str] | None = None,
        journal: Mapping[str, str] | None = None,
        files: Mapping[str, str | bytes] | None = None,
        root: Path | None = None,
    ) -> Path: ...


@pytest.fixture
def make_store(project: Path) -> MakeStore:
    """`make_store(articles={"src/app": text}, journal={"2026-01-01-x.md": text}, files={...})`."""

    def factory(
        articles: Mapping[str, str] | None = None,
        journal: Mapping[str, str] | None = None,
        files: Mapping[str, str | bytes] | None = None,
        root: Path | None = None,
    ) -> Path:
        base = root or project
        (base / ".canon" / "articles").mkdir(parents=True, exist_ok=True)
        (base / ".canon" / "journal").mkdir(parents=True, exist_ok=True)
        write_files(base / ".canon" / "articles", {f"{a}.md": t for a, t in (articles or {}).items()})
        write_files(base / ".canon" / "journal", dict(journal or {}))
        write_files(base, dict(files or {}))
        return base

    return factory
