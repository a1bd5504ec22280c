"""Hard limits where an agent writes (pylon/canon/text.py): capsules and bodies through `pylon mcp`
are refused over their limit with `too-long` naming it; `canon_map` answers are bounded. The CLI
used by a person keeps writing what it is given."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pylon.canon.text import BODY_MAX, CAPSULE_MAX
from pylon.cli.canon.render import MAP_ANSWER_MAX
from tests.conftest import MakeRepo, run_cmd
from tests.mcp.wire import tool_calls


@pytest.fixture
def repo(make_repo: MakeRepo) -> Path:
    return make_repo({"src/app.py": "x = 1\n"})


def test_over_the_limits_nothing_is_written(repo: Path) -> None:
    inside = repo / "notes" / "body.md"
    inside.parent.mkdir()
    inside.write_text("b" * (BODY_MAX + 1))
    docs = tool_calls(
        repo,
        [
            ("canon_write", {"address": "src/app.py", "capsule": "c" * (CAPSULE_MAX + 1), "body": "b"}),
            ("canon_write", {"address": "src/app.py", "capsule": "c", "body": "b" * (BODY_MAX + 1)}),
            ("canon_write", {"address": "src/app.py", "capsule": "c", "body_file": "notes/body.md"}),
            ("canon_journal", {"text": "j" * (BODY_MAX + 1)}),
            ("canon_write", {"address": "src/app.py", "capsule": "c" * CAPSULE_MAX, "body": "b" * BODY_MAX}),
        ],
    )
    for doc, (limit, field) in zip(
        docs, [(CAPSULE_MAX, "capsule"), (BODY_MAX, "body"), (BODY_MAX, "body"), (BODY_MAX, "body")]
    ):
        assert doc["ok"] is False and doc["error"]["code"] == "too-long", doc
        assert doc["error"]["limit"] == limit and doc["error"]["field"] == field
        assert f"{limit:,}" in doc["error"]["message"]
    assert docs[4]["ok"] is True  # exactly at the limits
    assert not list((repo / ".canon" / "journal").glob("*.md"))


def test_a_person_at_the_cli_is_not_bound(repo: Path) -> None:
    result = run_cmd(
        "canon", "write", "src/app.py", "--capsule", "c" * (CAPSULE_MAX + 10), "--body", "b", "--json", cwd=repo
    )
    assert json.loads(result.out)["ok"] is True


def test_canon_map_answers_are_bounded(repo: Path) -> None:
    # A store written before the limits (through the CLI): one huge capsule and many articles.
    huge = repo / ".canon" / "articles" / "a" / "huge.md"  # a file, not argv: one argument holds at most 128 KiB
    huge.parent.mkdir(parents=True)
    huge.write_text("---\ncapsule: " + "h" * 1_000_000 + "\nupdated: 2026-01-01\n---\nb\n")
    for i in range(60):
        assert (
            run_cmd("canon", "write", f"m/n{i:02d}", "--capsule", f"{i} " + "w" * 1500, "--body", "b", cwd=repo).code
            == 0
        )
    person = json.loads(run_cmd("canon", "map", "--json", cwd=repo).out)
    assert person["count"] == 61 and len(person["articles"]) == 61  # the CLI lists everything
    answer = tool_calls(repo, [("canon_map", {})])[0]
    assert len(json.dumps(answer)) < MAP_ANSWER_MAX + 10_000
    assert answer["truncated"] is True and answer["count"] == 61 and answer["shown"] == len(answer["articles"]) < 61
    assert (
        answer["articles"][0]["capsule_cut"] == 1_000_000 and len(answer["articles"][0]["capsule"]) <= CAPSULE_MAX + 3
    )
    assert "prefix" in answer["hint"]
    narrow = tool_calls(repo, [("canon_map", {"prefix": "m/n05"})])[0]
    assert "truncated" not in narrow and [a["address"] for a in narrow["articles"]] == ["m/n05"]


def test_subjects_count_toward_a_journal_entrys_limit(repo: Path) -> None:
    """200 subjects of 5,000 characters made a 1 MB entry around the body's limit."""
    many = [f"s{i:04d}" + "e" * 5000 for i in range(200)]
    docs = tool_calls(
        repo,
        [("canon_journal", {"text": "x", "subject": many}), ("canon_journal", {"text": "x", "subject": many[:30]})],
    )
    assert docs[0]["ok"] is False and docs[0]["error"]["code"] == "too-long", docs[0]
    assert docs[0]["error"]["field"] == "entry" and docs[0]["error"]["limit"] == BODY_MAX
    assert docs[1]["ok"] is True  # 150,000 characters of subjects: within the limit
    assert len(list((repo / ".canon" / "journal").glob("*.md"))) == 1
    person = run_cmd("canon", "journal", "x", *[a for s in many for a in ("--subject", s)], "--json", cwd=repo)
    assert json.loads(person.out)["ok"] is True  # a person at the command line is not bound


def test_canon_search_answers_are_bounded(repo: Path) -> None:
    """Many articles, each within the limits, and a limit of 100,000: the answer stays near canon_map's."""
    for i in range(30):
        assert (
            run_cmd("canon", "write", f"m/n{i:02d}", "--capsule", "word " + "w" * 3990, "--body", "word", cwd=repo).code
            == 0
        )
    person = json.loads(run_cmd("canon", "search", "word", "--limit", "100000", "--json", cwd=repo).out)
    assert len(person["results"]) == 30  # the CLI lists everything
    answer = tool_calls(repo, [("canon_search", {"query": ["word"], "limit": 100000})])[0]
    assert len(json.dumps(answer)) < MAP_ANSWER_MAX + 10_000, len(json.dumps(answer))
    assert answer["truncated"] is True and answer["more"] == 30 - len(answer["results"]) > 0


def test_canon_lint_answers_are_bounded(repo: Path) -> None:
    from pylon.canon.lint.formats import TEXT_LIMIT

    articles = repo / ".canon" / "articles" / "m"
    articles.mkdir(parents=True, exist_ok=True)
    for i in range(TEXT_LIMIT + 50):  # each with a finding (no capsule)
        (articles / f"a{i:03d}.md").write_text("---\nupdated: 2026-01-01\n---\nbody\n")
    person = json.loads(run_cmd("canon", "lint", "--json", cwd=repo).out)
    assert len(person["findings"]) > TEXT_LIMIT
    answer = tool_calls(repo, [("canon_lint", {})])[0]
    assert answer["truncated"] is True and len(answer["findings"]) == answer["shown"] == TEXT_LIMIT
    assert answer["errors"] + answer["warnings"] + answer["notes"] == len(person["findings"])
