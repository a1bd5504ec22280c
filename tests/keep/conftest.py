"""The checkout the chain's tests start from: tracked files, an untracked one, an ignored secret."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import MakeRepo, write_files

FILES = {"src/app.py": "x = 1\n", "src/lib.py": "y = 2\n", "README.md": "readme\n", ".gitignore": ".env\n"}


@pytest.fixture
def repo(make_repo: MakeRepo) -> Path:
    root: Path = make_repo(FILES)
    write_files(root, {"notes.txt": "untracked\n", ".env": "SECRET=1\n"})
    return root
