"""`canon lint` and `journal-changed`: entries present in the base revision are append-only."""

from __future__ import annotations

from tests.canon.git.conftest import GitStore
from tests.conftest import MakeRepo

ENTRY = "---\nsubject: [src]\nlogged: 2026-01-02T00:00:00Z\n---\nRaised the timeout to 30 s.\n"


def _with_entry(repo: GitStore) -> str:
    repo.write(".canon/journal/2026-01-02-timeout.md", ENTRY)
    return repo.commit("entry")


def test_a_modified_entry_fails_against_head_by_default(repo: GitStore) -> None:
    _with_entry(repo)
    assert repo.canon("lint").code == 0
    repo.append(".canon/journal/2026-01-02-timeout.md", "Actually 45 s.\n")
    result = repo.canon("lint")
    assert result.code == 1
    assert result.out == (
        ".canon/journal/2026-01-02-timeout.md:1: error[journal-changed] was modified since HEAD; "
        "journal entries are append-only: restore it (git checkout HEAD -- "
        ".canon/journal/2026-01-02-timeout.md) and record the correction as a new entry "
        '(canon journal "...")\n'
    )
    # The documented fix: restore, then a new correcting entry.
    repo.git("checkout", "HEAD", "--", ".canon/journal/2026-01-02-timeout.md")
    assert repo.canon("journal", "Correction: the timeout is 45 s, not 30 s.", "--subject", "src").code == 0
    assert repo.canon("lint").code == 0


def test_deleted_entry_and_base_rev(repo: GitStore) -> None:
    base = _with_entry(repo)
    repo.git("rm", "-q", ".canon/journal/2026-01-02-timeout.md")
    repo.commit("dropped the entry")
    assert repo.canon("lint").code == 0  # HEAD no longer has it
    result = repo.canon("lint", "--since", base, "--format", "json")
    assert result.code == 1
    (finding,) = result.json()["findings"]
    assert finding["rule"] == "journal-changed" and finding["message"].startswith(f"was deleted since {base};")
    github = repo.canon("lint", "--since", base, "--format", "github")
    assert github.out.startswith(
        "::error file=.canon/journal/2026-01-02-timeout.md,line=1,title=canon journal-changed::was deleted"
    )


def test_new_entries_and_renamed_entries(repo: GitStore) -> None:
    base = _with_entry(repo)
    repo.canon("journal", "Another thing happened.", "--subject", "src")
    assert repo.canon("lint", "--since", base).code == 0  # appending is what the journal is for
    repo.git("mv", ".canon/journal/2026-01-02-timeout.md", ".canon/journal/2026-01-02-renamed.md")
    result = repo.canon("lint", "--since", base)
    assert result.code == 1 and "2026-01-02-timeout.md:1: error[journal-changed] was deleted" in result.out


def test_bad_base_and_first_commit(repo: GitStore, make_repo: MakeRepo) -> None:
    bad = repo.canon("lint", "--since", "nope")
    assert bad.code == 2 and bad.err.startswith("error[bad-revision]: --since nope:")
    fresh = GitStore(make_repo(name="fresh"))
    fresh.canon("init")
    fresh.write(".canon/journal/2026-01-02-x.md", ENTRY)
    assert fresh.canon("lint").code == 0  # no HEAD yet: nothing can have changed
    assert fresh.canon("lint", "--since", "HEAD").code == 2


def test_sarif_knows_the_rule(repo: GitStore) -> None:
    _with_entry(repo)
    repo.append(".canon/journal/2026-01-02-timeout.md")
    doc = repo.canon("lint", "--format", "sarif").json()
    rules = [r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]]
    (result,) = doc["runs"][0]["results"]
    assert rules[result["ruleIndex"]] == "journal-changed" == result["ruleId"]


def test_project_in_a_subfolder(make_repo: MakeRepo) -> None:
    root = make_repo()
    app = GitStore(root / "app")
    app.root.mkdir()
    app.canon("init")
    app.write(".canon/journal/2026-01-02-x.md", ENTRY)
    GitStore(root).commit("init")
    app.append(".canon/journal/2026-01-02-x.md")
    for args in ((), ("--since", "HEAD")):
        result = app.canon("lint", *args, "--format", "github")
        assert result.code == 1, args
        # annotations are repository-relative; the restore command runs from the project root
        assert result.out.startswith("::error file=app/.canon/journal/2026-01-02-x.md,line=1,"), args
        assert "git checkout HEAD -- .canon/journal/2026-01-02-x.md" in result.out
