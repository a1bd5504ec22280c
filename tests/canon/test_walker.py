"""One article walk: `canon map`, `lint`, `status` and `search` agree on what the articles are."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article
from tests.conftest import Result, run_cmd

# Long enough not to be a tiny child; every article says "zebra" so one search finds them all.
BODY = "The zebra article. " + "Enough words to make this body more than a tiny child. " * 10 + "\n"
A = ".canon/articles/"


def addresses_seen(root: Path) -> dict[str, set[str] | int]:
    """What each of the four commands takes the articles to be, from their JSON documents."""
    timeout = 20  # a walker that opens a FIFO hangs; fail instead of waiting for the suite timeout
    mapped = run_cmd("canon", "map", "--json", cwd=root, timeout=timeout).json()
    status = run_cmd("canon", "status", "--json", cwd=root, timeout=timeout).json()
    lint = run_cmd("canon", "lint", "--json", cwd=root, timeout=timeout)
    assert lint.code in (0, 1), lint
    found = run_cmd("canon", "search", "zebra", "--limit", "100", "--json", cwd=root, timeout=timeout).json()
    return {
        "map": {a["address"] for a in mapped["articles"]},
        "map count": mapped["count"],
        "status": status["articles"],
        "lint": lint.json()["articles"],
        "lint paths": {f["path"] for f in lint.json()["findings"]},
        "search": {h["address"] for h in found["results"]},
    }


def lint_findings(root: Path) -> Result:
    return run_cmd("canon", "lint", "--json", cwd=root, timeout=20)


def test_trash_is_counted_by_none_of_the_four(make_store: MakeStore) -> None:
    root = make_store(
        articles={
            "a": article("Kept.", BODY),
            ".trash/gone": article("Deleted in Obsidian.", "[[nowhere]] zebra\n"),
            ".obsidian/plugin": "zebra\n",
            ".git/x": "zebra\n",
        }
    )
    seen = addresses_seen(root)
    assert seen["map"] == seen["search"] == {"a"}
    assert seen["map count"] == seen["status"] == seen["lint"] == 1
    assert seen["lint paths"] == set()  # the trashed article's dead link is not reported
    r = run_cmd("canon", "map", ".trash", cwd=root)
    assert r.code == 0 and r.out == "", r


def test_dot_folders_below_the_top_and_dot_files_are_addresses(make_store: MakeStore) -> None:
    root = make_store(
        articles={
            ".github/workflows/ci": article("CI.", BODY),
            ".env": article("Environment.", BODY),
            "src/.trash/kept": article("A real asset folder named .trash.", BODY),
        }
    )
    seen = addresses_seen(root)
    expected = {".github/workflows/ci", ".env", "src/.trash/kept"}
    assert seen["map"] == seen["search"] == expected
    assert seen["map count"] == seen["status"] == seen["lint"] == 3


def test_only_non_empty_lower_case_md_names_are_articles(make_store: MakeStore) -> None:
    root = make_store(
        articles={"a": article("A.", BODY)},
        files={
            A + ".md": "zebra\n",  # names no address
            A + "sub/.md": "zebra\n",
            A + "notes.txt": "zebra\n",
            A + "README": "zebra\n",
            A + "UPPER.MD": "zebra\n",
            A + "a.md.bak": "zebra\n",
        },
    )
    seen = addresses_seen(root)
    assert seen["map"] == seen["search"] == {"a"}
    assert seen["map count"] == seen["status"] == seen["lint"] == 1
    assert seen["lint paths"] == set()


def test_links_to_files_are_articles_links_to_folders_are_not_followed(make_store: MakeStore) -> None:
    root = make_store(articles={"a": article("A.", BODY), "src/deep": article("Deep.", BODY)})
    arts = root / ".canon" / "articles"
    (arts / "alias.md").symlink_to(arts / "a.md")
    (arts / "mirror").symlink_to(arts / "src", target_is_directory=True)
    seen = addresses_seen(root)
    assert seen["map"] == seen["search"] == {"a", "alias", "src/deep"}
    assert seen["map count"] == seen["status"] == seen["lint"] == 3


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_entries_only_named_like_articles_are_lint_findings_and_nothing_else(make_store: MakeStore) -> None:
    root = make_store(articles={"a": article("A.", BODY)})
    arts = root / ".canon" / "articles"
    (arts / "dir.md").mkdir()
    (arts / "broken.md").symlink_to(root / "nowhere.md")
    os.mkfifo(arts / "fifo.md")  # map and search used to open it and hang
    seen = addresses_seen(root)
    assert seen["map"] == seen["search"] == {"a"}
    assert seen["map count"] == seen["status"] == seen["lint"] == 1
    findings = lint_findings(root).json()["findings"]
    assert {(f["rule"], f["path"]) for f in findings} == {
        ("unreadable", A + "dir.md"),
        ("unreadable", A + "broken.md"),
        ("unreadable", A + "fifo.md"),
    }
    r = run_cmd("canon", "status", cwd=root, timeout=20)
    assert "articles: 1" in r.out.splitlines(), r
