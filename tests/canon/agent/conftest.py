"""Fixtures of the canon agent tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article


@pytest.fixture
def store(make_store: MakeStore) -> Path:
    """A store of two articles (src/app, src/core) over their files: `canon hook`'s scene."""
    return make_store(
        articles={
            "src/app": article("Entry point; parses flags.", updated="2026-01-02"),
            "src/core": article("Core: config and pool.", updated="2026-01-03"),
        },
        files={"src/app.py": "x\n", "src/core/config.py": "a = 1\n", "tests/test_x.py": ""},
    )
