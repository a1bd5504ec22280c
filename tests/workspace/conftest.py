"""Fixtures for the workspace tests: real repositories, the installed `pylon`, real git."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import MakeRepo


@pytest.fixture
def repo(make_repo: MakeRepo) -> Path:
    """A small committed repository with a subfolder."""
    return make_repo(
        files={
            "README.md": "# demo\n",
            "src/app.py": "print('hello')\n",
            "src/util.py": "def f():\n    return 1\n",
            "docs/guide.txt": "one\ntwo\nthree\n",
            ".gitignore": "*.log\nbuild/\n",
        }
    )
