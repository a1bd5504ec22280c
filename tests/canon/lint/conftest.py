"""Fixtures for `canon lint` tests: a project with a `.canon/` store and a runner for the real CLI."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Result, run_cmd


def article(capsule: str | None = "A dense capsule.", body: str = "Body text.\n", extra: str = "") -> str:
    """An article's text; `capsule=None` leaves it out."""
    lines = [f"capsule: {capsule}"] if capsule is not None else []
    lines.append("updated: 2026-01-01")
    fm = "\n".join(lines) + "\n" + extra
    return f"---\n{fm}---\n{body}"


LONG_BODY = "This body is long enough not to be a tiny child. " * 12 + "\n"


@dataclass
class Store:
    root: Path

    @property
    def canon(self) -> Path:
        return self.root / ".canon"

    def write(self, rel: str, content: str | bytes) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8"))
        return path

    def article(self, address: str, text: str | bytes | None = None, **kw: Any) -> Path:
        return self.write(f".canon/articles/{address}.md", text if text is not None else article(**kw))

    def journal(self, name: str, text: str | bytes) -> Path:
        return self.write(f".canon/journal/{name}", text)

    def asset(self, rel: str, text: str = "x\n") -> Path:
        return self.write(rel, text)

    def lint(self, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Result:
        return run_cmd("canon", "lint", *args, cwd=cwd or self.root, env=env)

    def rules(self, *args: str) -> list[tuple[str, str, int]]:
        """(rule, path, line) of every finding, from the JSON format."""
        result = self.lint("--json", *args)
        assert result.code in (0, 1), result
        return [(f["rule"], f["path"], f["line"]) for f in result.json()["findings"]]

    def snapshot(self) -> dict[str, str]:
        """Hash of every file and link under the root, to prove nothing changed."""
        out: dict[str, str] = {}
        for folder, dirs, files in os.walk(self.root):
            for name in files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, self.root)
                if os.path.islink(path):
                    out[rel] = "link:" + os.readlink(path)
                elif not os.path.isfile(path):
                    out[rel] = f"special:{os.stat(path).st_mode:o}"  # a FIFO: reading it would block
                else:
                    out[rel] = hashlib.sha256(Path(path).read_bytes()).hexdigest() + f":{os.stat(path).st_mode:o}"
        return out


@pytest.fixture
def store(project: Path) -> Store:
    """An empty store (.canon/articles, .canon/journal) in a plain project folder."""
    (project / ".canon" / "articles").mkdir(parents=True)
    (project / ".canon" / "journal").mkdir()
    return Store(project)
