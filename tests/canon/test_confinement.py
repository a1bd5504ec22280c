"""Writes never leave the store through a symbolic link, and nothing hangs on a FIFO.

A cloned repository can plant links in `.canon/`; an agent's `canon write` must not follow them
to a file elsewhere. A FIFO named `*.md` must not hang any command (opened with O_NONBLOCK and
refused unless it is a regular file).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article, snapshot
from tests.conftest import Run

WRITE = ("write", "a", "--capsule", "C.", "--body", "Planted.")
WRITE_NESTED = ("write", "src/x", "--capsule", "C.", "--body", "Planted.")
JOURNAL = ("journal", "Something happened.")


def _plant(root: Path, outside: Path, kind: str) -> tuple[str, ...]:
    """Plant the link `kind` in the store, pointing into `outside`; returns the command aimed at it."""
    canon = root / ".canon"
    if kind == "article":
        (outside / "victim.md").write_text("precious\n")
        (canon / "articles" / "a.md").symlink_to(outside / "victim.md")
        return WRITE
    if kind == "articles-folder":
        (canon / "articles").rename(outside / "articles")
        (canon / "articles").symlink_to(outside / "articles")
        return WRITE
    if kind == "address-folder":
        (canon / "articles" / "src").symlink_to(outside)
        return WRITE_NESTED
    if kind == "journal-folder":
        os.rmdir(canon / "journal")
        (canon / "journal").symlink_to(outside)
        return JOURNAL
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["article", "articles-folder", "address-folder", "journal-folder"])
def test_writes_through_a_planted_link_are_refused_and_lint_reports_it(
    run: Run, make_store: MakeStore, tmp_path: Path, kind: str
) -> None:
    root = make_store(articles={"keep": article("Kept.", "Kept body.\n")})
    outside = tmp_path / "outside"
    outside.mkdir()
    command = _plant(root, outside, kind)
    before_outside, before_store = snapshot(outside), snapshot(root / ".canon")
    r = run("canon", *command, "--json", cwd=root, timeout=20)
    assert r.code == 1, r
    assert r.json()["error"]["code"] == "symlink"
    assert "Traceback" not in r.err
    assert snapshot(outside) == before_outside
    assert snapshot(root / ".canon") == before_store
    lint = run("canon", "lint", "--json", cwd=root, timeout=20)
    assert "symlink" in [f["rule"] for f in lint.json()["findings"]], lint


def test_a_link_to_a_real_file_still_reads(run: Run, make_store: MakeStore, tmp_path: Path) -> None:
    root = make_store()
    (tmp_path / "shared.md").write_text(article("Shared.", "Shared body.\n"))
    (root / ".canon/articles/a.md").symlink_to(tmp_path / "shared.md")
    r = run("canon", "read", "a", cwd=root)
    assert r.code == 0 and "Shared." in r.out, r


FIFO_COMMANDS = [
    ("write", "a", "--body", "x"),
    ("read", "a"),
    ("map",),
    ("search", "anything"),
    ("search", "anything", "--journal"),
    ("journal", "text", "--subject", "a"),
    ("status",),
    ("lint",),
    ("resolve", "a"),
]


@pytest.mark.parametrize("args", FIFO_COMMANDS, ids=lambda a: "-".join(a[:2]))
def test_a_fifo_named_like_an_article_or_entry_hangs_nothing(
    run: Run, make_store: MakeStore, args: tuple[str, ...]
) -> None:
    root = make_store(articles={"b": article("B.", "Anything here.\n")})
    os.mkfifo(root / ".canon/articles/a.md")
    os.mkfifo(root / ".canon/journal/2026-01-01-fifo.md")
    os.mkfifo(root / ".canon/schema.json")
    r = run("canon", *args, "--json", cwd=root, timeout=20)
    assert "Traceback" not in r.err, r
    json.loads(r.out)  # exactly one JSON document
    if args[0] == "write":
        assert r.json()["error"]["code"] == "not-regular", r
