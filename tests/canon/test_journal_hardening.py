"""Journal entries are immutable, so what goes in must be right: no line breaks in subjects,
and entries of one instant order by their numeric suffix."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article, entry, snapshot
from tests.conftest import Run


@pytest.mark.parametrize("subject", ["a\nb", "a\rb", "a\u2028b", "src/x\n---"])
def test_a_line_break_in_a_subject_is_refused(run: Run, make_store: MakeStore, subject: str) -> None:
    root = make_store(articles={"a": article("A.")})
    before = snapshot(root)
    r = run("canon", "journal", "--json", "text", "--subject", subject, cwd=root)
    assert r.code == 2 and r.json()["error"]["code"] == "bad-subject", r
    assert snapshot(root) == before


@pytest.mark.parametrize("address", ["a\nb", "src/a\rb", "x\x85y", "tab\there"])
def test_a_control_character_in_an_address_is_refused(run: Run, project: Path, address: str) -> None:
    r = run("canon", "write", "--json", address, "--body", "x", cwd=project)
    assert r.code == 2 and r.json()["error"]["code"] == "bad-address", r
    assert list(project.iterdir()) == []


def test_entries_of_one_instant_order_by_their_numeric_suffix(run: Run, make_store: MakeStore) -> None:
    same = "2026-01-01T00:00:00.000000Z"
    names = ["2026-01-01-x.md"] + [f"2026-01-01-x-{n}.md" for n in range(2, 12)]
    root = make_store(articles={"a": article("A.")}, journal={n: entry("[a]", same) for n in names})
    r = run("canon", "read", "--json", "a", cwd=root)
    assert r.json()["journal"] == ["2026-01-01-x-11.md", "2026-01-01-x-10.md", "2026-01-01-x-9.md"], r
    assert r.json()["journal_total"] == 11


def test_entries_without_logged_fall_back_to_the_file_date(run: Run, make_store: MakeStore) -> None:
    old = "---\nsubject: [a]\n---\nOld style.\n"
    root = make_store(
        articles={"a": article("A.")},
        journal={
            "2025-03-01-b.md": old,
            "2025-01-01-a.md": old,
            "2025-02-01-c.md": entry("[a]", "2025-02-01T10:00:00Z"),
        },
    )
    r = run("canon", "read", "--json", "a", cwd=root)
    assert r.json()["journal"] == ["2025-03-01-b.md", "2025-02-01-c.md", "2025-01-01-a.md"], r
