"""`canon search`: BM25 ranking over address, capsule and body; short tokens; journal on request."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article, entry
from tests.conftest import Run


@pytest.fixture
def store(make_store: MakeStore) -> Path:
    return make_store(
        articles={
            "src/db/pool": article("Connection pool for the db.", "Pool size 10. The db pool recycles connections.\n"),
            "src/storage/s3": article("Uploads to s3.", "Buckets live in s3; the db is not involved.\n"),
            "docs/readme": article("Project readme.", "Nothing about storage here.\n"),
            "src/config": article("Config loader.", "Reads env then file. Mentions db once.\n"),
        },
        journal={
            "2026-01-01-pool.md": entry(
                "[src/db/pool]", "2026-01-01T00:00:00Z", "Pool exhausted at 09:00; raised size.\n"
            ),
        },
    )


def test_results_are_ranked_and_short_tokens_are_searchable(run: Run, store: Path) -> None:
    r = run("canon", "search", "db", cwd=store)
    assert r.code == 0, r
    lines = r.out.splitlines()
    assert lines[0] == "src/db/pool: Connection pool for the db."
    assert set(lines) == {
        "src/db/pool: Connection pool for the db.",
        "src/storage/s3: Uploads to s3.",
        "src/config: Config loader.",
    }
    r = run("canon", "search", "s3", cwd=store)
    assert r.out.splitlines() == ["src/storage/s3: Uploads to s3."]


def test_address_and_capsule_weigh_more_than_body(run: Run, store: Path) -> None:
    r = run("canon", "search", "--json", "config", cwd=store)
    assert [h["address"] for h in r.json()["results"]] == ["src/config"]
    r = run("canon", "search", "--json", "storage", cwd=store)
    assert [h["address"] for h in r.json()["results"]][0] == "src/storage/s3"


def test_journal_entries_only_with_the_flag(run: Run, store: Path) -> None:
    r = run("canon", "search", "--json", "exhausted", cwd=store)
    assert r.json()["results"] == [] and r.json()["total"] == 0
    r = run("canon", "search", "--json", "--journal", "exhausted", cwd=store)
    results = r.json()["results"]
    assert [(h["kind"], h["address"]) for h in results] == [("journal", "journal/2026-01-01-pool.md")]
    assert results[0]["snippet"] == "Pool exhausted at 09:00; raised size."
    r = run("canon", "search", "--journal", "exhausted", cwd=store)
    assert r.out == "journal/2026-01-01-pool.md: Pool exhausted at 09:00; raised size.\n"


def test_cut_lists_say_how_many_more_matched(run: Run, store: Path) -> None:
    r = run("canon", "search", "db", "--limit", "1", cwd=store)
    assert r.code == 0, r
    assert len(r.out.splitlines()) == 1
    assert "note: 2 more matched; show them with --limit 3." in r.err
    doc = run("canon", "search", "--json", "db", "--limit", "1", cwd=store).json()
    assert doc["total"] == 3 and doc["more"] == 2 and len(doc["results"]) == 1
    assert doc["results"][0]["score"] > 0


def test_several_words_and_no_match(run: Run, store: Path) -> None:
    doc = run("canon", "search", "--json", "pool", "recycles", cwd=store).json()
    assert doc["terms"] == ["pool", "recycles"] and doc["results"][0]["address"] == "src/db/pool"
    r = run("canon", "search", "zebra", cwd=store)
    assert r.code == 0 and r.out == "" and "nothing matched" in r.err, r


def test_a_query_without_searchable_words_is_a_usage_error(run: Run, store: Path) -> None:
    r = run("canon", "search", "a ! ?", cwd=store)
    assert r.code == 2 and r.err.startswith("error[bad-query]:"), r
    r = run("canon", "search", "db", "--limit", "0", cwd=store)
    assert r.code == 2 and "error[usage]" in r.err, r


def test_mount_articles_are_searched_with_their_prefix(run: Run, store: Path, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    (lake / ".canon" / "articles").mkdir(parents=True)
    (lake / ".canon" / "articles" / "prices.md").write_text("---\ncapsule: Daily prices table.\n---\nParquet.\n")
    r = run("canon", "search", "prices", "--mount", str(lake), cwd=store)
    assert r.out == "lake:prices: Daily prices table.\n", r


def test_search_hints_journal_when_only_the_journal_matches(run: Run, make_store: MakeStore) -> None:
    from tests.canon.helpers import article, entry

    root = make_store(
        articles={"a": article("A.", "Nothing relevant.\n")},
        journal={"2026-01-01-x.md": entry("[a]", "2026-01-01T00:00:00Z", "The zebra outage.\n")},
    )
    r = run("canon", "search", "zebra", cwd=root)
    assert r.code == 0 and r.out == "", r
    assert "1 journal entry did: canon search zebra --journal" in r.err, r
    assert run("canon", "search", "--json", "zebra", cwd=root).json()["journal_matches"] == 1
