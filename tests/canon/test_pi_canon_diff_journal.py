"""Journal entries pi-canon 0.1.x wrote (no `logged`, often no `subject`) never fail `--strict` once
committed: their warnings fold into one `legacy-journal` note; uncommitted or edited entries keep
their warnings (the writer can still fix those)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.canon.conftest import MakeStore
from tests.conftest import MakeRepo, Run

ARTICLE = "---\ncapsule: The app entry point.\nupdated: 2026-08-10\n---\nStarts the app.\n"
OLD_ENTRIES = {  # byte for byte as pi-canon 0.1.2 writes them (tests/canon/fixtures/pi-canon-0.1.2)
    "2026-08-11-entry.md": "An entry about nothing in particular.\n",
    "2026-08-11-config.md": "---\nsubject: [app]\n---\nRaised the cap to 64.\n",
    "2026-08-12-config.md": "---\nsubject: [app]\n---\nLowered it again.\n",
}


def _store(make_repo: MakeRepo, commit: bool = True) -> Path:
    files: dict[str, str | bytes] = {"app.py": "print()\n", ".canon/articles/app.md": ARTICLE}
    files.update({f".canon/journal/{name}": text for name, text in OLD_ENTRIES.items()})
    return make_repo(files, commit=commit)


def test_committed_legacy_entries_are_one_note_and_strict_passes(run: Run, make_repo: MakeRepo) -> None:
    root = _store(make_repo)
    result = run("canon", "lint", "--strict", "--json", cwd=root)
    assert result.code == 0, result
    doc = result.json()
    assert doc["clean"] is True and doc["warnings"] == 0 and doc["notes"] == 1, doc
    [note] = doc["findings"]
    assert (note["rule"], note["severity"], note["path"]) == ("legacy-journal", "note", ".canon/journal")
    assert note["message"].startswith("3 committed journal entries (no logged instant: 2, no front matter")
    text = run("canon", "lint", "--strict", cwd=root)
    assert text.code == 0, text
    assert text.out.count("note[legacy-journal]") == 1, text
    assert "canon lint: clean (1 article, 3 journal entries); 1 note." in text.err, text


def test_uncommitted_legacy_entries_keep_their_warnings(run: Run, make_repo: MakeRepo) -> None:
    root = _store(make_repo, commit=False)
    result = run("canon", "lint", "--strict", "--json", cwd=root)
    assert result.code == 1, result
    rules = [(f["rule"], f["path"].rpartition("/")[2]) for f in result.json()["findings"]]
    assert sorted(rules) == sorted(("front-matter-invalid", name) for name in OLD_ENTRIES), rules
    assert run("canon", "lint", cwd=root).code == 0  # warnings only: plain lint stays clean


def test_an_edited_committed_entry_is_reported_again(run: Run, make_repo: MakeRepo) -> None:
    root = _store(make_repo)
    (root / ".canon/journal/2026-08-12-config.md").write_text("---\nsubject: [app]\n---\nEdited.\n")
    findings = run("canon", "lint", "--json", cwd=root).json()["findings"]
    assert [f["path"] for f in findings if f["rule"] == "front-matter-invalid"] == [
        ".canon/journal/2026-08-12-config.md"
    ]
    [note] = [f for f in findings if f["rule"] == "legacy-journal"]
    assert note["message"].startswith("2 committed journal entries"), note


def test_a_new_entry_after_the_commit_is_reported(run: Run, make_repo: MakeRepo) -> None:
    root = _store(make_repo)
    (root / ".canon/journal/2026-08-13-late.md").write_text("Written by hand, no front matter.\n")
    result = run("canon", "lint", "--strict", "--json", cwd=root)
    assert result.code == 1, result
    assert [f["path"] for f in result.json()["findings"] if f["severity"] == "warning"] == [
        ".canon/journal/2026-08-13-late.md"
    ]


def test_outside_git_nothing_is_folded(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"app": ARTICLE}, journal=OLD_ENTRIES, files={"app.py": "print()\n"})
    findings = run("canon", "lint", "--json", cwd=root).json()["findings"]
    assert len([f for f in findings if f["rule"] == "front-matter-invalid"]) == 3
    assert not [f for f in findings if f["rule"] == "legacy-journal"]


def test_errors_on_committed_entries_stay_errors(run: Run, make_repo: MakeRepo) -> None:
    root = make_repo(
        {".canon/articles/app.md": ARTICLE, "app.py": "", ".canon/journal/2026-08-11-broken.md": "---\nsubject: [app\n"}
    )
    result = run("canon", "lint", "--json", cwd=root)
    assert result.code == 1, result
    assert [f["severity"] for f in result.json()["findings"] if f["rule"] == "front-matter-invalid"] == ["error"]


def test_the_note_in_github_and_sarif(run: Run, make_repo: MakeRepo) -> None:
    root = _store(make_repo)
    github = run("canon", "lint", "--format", "github", "--strict", cwd=root)
    assert github.code == 0 and github.out.startswith("::notice file=.canon/journal,line=1,"), github
    sarif = json.loads(run("canon", "lint", "--format", "sarif", cwd=root).out)
    [result] = sarif["runs"][0]["results"]
    assert (result["ruleId"], result["level"]) == ("legacy-journal", "note")
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    assert rules[result["ruleIndex"]]["defaultConfiguration"]["level"] == "note"


def test_legacy_entries_order_by_the_date_in_their_name(run: Run, make_repo: MakeRepo) -> None:
    root = _store(make_repo)
    doc = run("canon", "read", "--json", "app", cwd=root).json()
    assert doc["journal"] == ["2026-08-12-config.md", "2026-08-11-config.md"], doc
