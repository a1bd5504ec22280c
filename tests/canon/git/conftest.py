"""A real git repository with a canon store, driven through git and the installed `canon`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import MakeRepo, Result, git, run_cmd

BODY = "Current understanding of this asset, long enough to be a real article. " * 8 + "\n"


def article_text(capsule: str = "Capsule.", body: str = BODY) -> str:
    return f"---\ncapsule: {capsule}\nupdated: 2026-01-01\n---\n{body}"


@dataclass
class GitStore:
    root: Path

    def write(self, rel: str, text: str = "content\n") -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def append(self, rel: str, text: str = "more\n") -> None:
        with open(self.root / rel, "a", encoding="utf-8") as handle:
            handle.write(text)

    def article(self, address: str, body: str = BODY, capsule: str = "Capsule.") -> Path:
        return self.write(f".canon/articles/{address}.md", article_text(capsule, body))

    def git(self, *args: str) -> str:
        return git(self.root, *args)

    def commit(self, message: str = "change") -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def canon(self, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Result:
        return run_cmd("canon", *args, cwd=cwd or self.root, env=env)


@pytest.fixture
def repo(make_repo: MakeRepo) -> GitStore:
    """A repository whose first commit has src/core/config.py, src/app.py, docs/intro.md and the
    articles src/core and src (a store made by `canon init`)."""
    root = make_repo()
    store = GitStore(root)
    assert store.canon("init").code == 0
    store.write("src/core/config.py", "X = 1\n")
    store.write("src/app.py", "print(1)\n")
    store.write("docs/intro.md", "# intro\n")
    store.article("src/core")
    store.article("src")
    store.commit("initial")
    return store
