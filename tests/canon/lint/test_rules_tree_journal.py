"""tiny-child, orphan, address-eventish, journal-name, unknown-subject, journal front matter."""

from __future__ import annotations

from pathlib import Path

from tests.canon.lint.conftest import LONG_BODY, Store, article

A = ".canon/articles/"
J = ".canon/journal/"
ENTRY = "---\nsubject: [{subjects}]\nlogged: 2026-01-01T10:00:00.000000Z\n---\nWhat happened.\n"


def only(store: Store, rule: str) -> list[tuple[str, int]]:
    return [(path, line) for r, path, line in store.rules() if r == rule]


def test_tiny_child(store: Store) -> None:
    store.article("src", body=LONG_BODY)
    store.article("src/small", body="x" * 399 + "\n")
    store.article("src/enough", body="x" * 400 + "\n")
    store.article("lib/small", body="tiny\n")  # no parent article `lib`
    store.article("src/deep/small", body="tiny\n")  # parent `src/deep` has no article
    assert only(store, "tiny-child") == [(A + "src/small.md", 5)]


def test_orphan(store: Store) -> None:
    store.asset("src/live.ts")
    store.asset("src/folder/inner.py")
    store.asset("src/config.test.ts")
    for address in ("src/live", "src/folder", "src/config.test", "src/gone", "ghost/thing", "top"):
        store.article(address, body=LONG_BODY)
    store.article("src/rule", "---\ncapsule: A rule.\nscope: rule\n---\n" + LONG_BODY)
    # src/ exists and holds nothing called gone; ghost/ does not exist; top-level articles never orphan.
    assert only(store, "orphan") == [(A + "src/gone.md", 1)]


def test_address_eventish(store: Store) -> None:
    store.asset("src/session.ts")
    store.asset("logs/app.log")
    for address in (
        "src/session",
        "notes/meeting-notes",
        "ops/2026-03-01-outage",
        "team/standup",
        "logs",
        "src/logger",
        "catalog/items",
        "release/20260301",
    ):
        store.article(address, body=LONG_BODY)
    found = sorted(p for p, _ in only(store, "address-eventish"))
    # src/session and logs govern real assets; logger and catalog are not the word "log".
    assert found == [
        A + "notes/meeting-notes.md",
        A + "ops/2026-03-01-outage.md",
        A + "release/20260301.md",
        A + "team/standup.md",
    ]


def test_journal_names(store: Store) -> None:
    good = ENTRY.format(subjects="a")
    store.article("a", body=LONG_BODY)
    store.journal("2026-01-02-deploy.md", good)
    store.journal("2026-01-02-deploy-2.md", good)
    store.journal("2026-02-30-bad-date.md", good)
    store.journal("2026-01-02-Upper.md", good)
    store.journal("notes.txt", "stray\n")
    store.journal(".gitkeep", "")
    (store.canon / "journal" / "2026-01-03-folder.md").mkdir()
    result = store.lint("--json")
    names = sorted((f["path"], f["message"]) for f in result.json()["findings"] if f["rule"] == "journal-name")
    assert [p for p, _ in names] == [
        J + "2026-01-02-Upper.md",
        J + "2026-01-03-folder.md",
        J + "2026-02-30-bad-date.md",
        J + "notes.txt",
    ]
    assert "not a calendar date" in names[2][1]
    assert result.code == 1


def test_unknown_subject(store: Store, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    (lake / ".canon" / "articles").mkdir(parents=True)
    (lake / ".canon" / "articles" / "prices.md").write_text(article(), encoding="utf-8")
    store.write(".canon/config.toml", 'mounts = ["../lake"]\n')
    store.article("src/core/config", body=LONG_BODY)
    store.journal("2026-01-01-a.md", ENTRY.format(subjects='src/core/config, "lake:prices"'))
    store.journal("2026-01-01-b.md", ENTRY.format(subjects='src/core/config/deep, nothing, "lake:volumes"'))
    result = store.lint("--json")
    found = [(f["path"], f["line"], f["message"]) for f in result.json()["findings"] if f["rule"] == "unknown-subject"]
    assert found == [
        (J + "2026-01-01-b.md", 2, "subject 'src/core/config/deep' names no article (src/core/config governs it)"),
        (J + "2026-01-01-b.md", 2, "subject 'nothing' names no article"),
        (J + "2026-01-01-b.md", 2, "subject 'lake:volumes' names no article"),
    ]
    assert result.code == 0  # warnings only


def test_journal_front_matter(store: Store) -> None:
    store.journal("2026-01-01-open.md", "---\nsubject: [a]\nlogged: 2026-01-01T00:00:00Z\nno close\n")
    store.journal("2026-01-01-list.md", '---\nsubject: [a, "b\n---\ntext\n')
    store.journal("2026-01-01-nologged.md", "---\nsubject: []\n---\ntext\n")
    store.journal("2026-01-01-block.md", "---\nsubject:\n  - a\nlogged: 2026-01-01T00:00:00Z\n---\ntext\n")
    store.article("a", body=LONG_BODY)
    result = store.lint("--json")
    found = {(f["path"], f["severity"]) for f in result.json()["findings"] if f["rule"] == "front-matter-invalid"}
    assert (J + "2026-01-01-open.md", "error") in found
    assert (J + "2026-01-01-list.md", "error") in found
    assert (J + "2026-01-01-nologged.md", "warning") in found
    assert not any(p == J + "2026-01-01-block.md" for p, _ in found)
