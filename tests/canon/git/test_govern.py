"""The fast path mapping of pylon.canon.git.govern agrees with canon's own resolution
(`to_address` + `resolve`), on paths git lists."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pylon.canon.address import resolve, to_address
from pylon.canon.git.govern import Governance
from pylon.canon.store import open_project
from tests.canon.git.conftest import GitStore
from tests.conftest import MakeRepo

PATHS = [
    "src/core/config.py",
    "src/core/config.test.ts",
    "src/a.tar.gz",
    ".env",
    "src/.hidden",
    "docs/intro.md",
    "src/core",
    "lib/deep/er/x.py",
    "top.txt",
    "src/core.py",
    "weird name.py",
    "src/cfg.d/x.conf",
]


def test_address_and_governing_agree_with_canon(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = GitStore(make_repo())
    repo.canon("init")
    for path in PATHS:
        if path != "src/core":
            repo.write(path)
    for address in ("src/core", "src", "src/core/config.test", "lib/deep", "src/cfg.d"):
        repo.article(address)
    repo.commit("files")
    (repo.root / "src/core/config.py").unlink()  # a deleted path maps the same way
    listed = subprocess.run(["git", "ls-files"], cwd=repo.root, capture_output=True, text=True).stdout.splitlines()
    monkeypatch.chdir(repo.root)
    project = open_project()
    gov = Governance(project, str(Path(repo.root).resolve()))
    checked = 0
    for path in listed:
        if path.startswith(".canon/"):
            assert gov.address_of(path) is None
            continue
        expected = to_address(path, project)
        assert gov.address_of(path) == expected, path
        assert gov.governing(expected) == resolve(expected, project).governing, path
        checked += 1
    assert checked == len(PATHS) - 1
    assert gov.article_of(".canon/articles/src/core.md") == to_address("src/core", project)
