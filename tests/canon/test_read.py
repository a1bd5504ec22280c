"""`canon read`: the governing article, its newest journal entries, and the errors around it."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article, entry, snapshot
from tests.conftest import MakeRepo, Run, git


def test_read_prints_address_owned_keys_and_body(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"src/core/config": article("Loads config.", "Env beats file.\n", scope="rule")})
    r = run("canon", "read", "src/core/config", cwd=root)
    assert r.code == 0, r
    assert r.out == "src/core/config\ncapsule: Loads config.\nupdated: 2020-01-01\nscope: rule\n\nEnv beats file.\n"
    assert r.err == ""


def test_read_names_the_governing_article_of_a_deeper_path(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"src/core/config": article("Loads config.")})
    r = run("canon", "read", "src/core/config/deep.ts", cwd=root)
    assert r.code == 0, r
    assert r.out.splitlines()[0] == "src/core/config governs src/core/config/deep.ts"


def test_read_json_shape(run: Run, make_store: MakeStore) -> None:
    root = make_store(
        articles={"src": article("Sources.", "All code.\n")},
        journal={"2026-01-01-a.md": entry("[src]", "2026-01-01T10:00:00Z")},
    )
    r = run("canon", "read", "--json", "src/app.py", cwd=root)
    assert r.code == 0, r
    doc = r.json()
    assert list(doc)[0] == "ok" and doc["ok"] is True
    assert doc["address"] == "src" and doc["requested"] == "src/app"
    assert doc["capsule"] == "Sources." and doc["updated"] == "2020-01-01" and doc["scope"] is None
    assert doc["body"] == "All code.\n"
    assert doc["journal"] == ["2026-01-01-a.md"] and doc["journal_total"] == 1
    assert doc["notes"] == []


def test_no_governing_article_is_exit_1_with_the_write_command(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"lib": article("Lib.")})
    before = snapshot(root)
    r = run("canon", "read", "src/core/config.ts", cwd=root)
    assert r.code == 1, r
    assert r.out == ""
    assert r.err.splitlines() == [
        "error[no-article]: No article governs src/core/config.",
        'hint: canon write src/core/config --capsule "..." --body "..."',
    ]
    r = run("canon", "read", "--json", "src/core/config.ts", cwd=root)
    assert r.code == 1
    assert r.json()["error"]["code"] == "no-article"
    assert r.json()["error"]["hint"] == 'canon write src/core/config --capsule "..." --body "..."'
    assert snapshot(root) == before


def test_reading_never_creates_anything(run: Run, project: Path) -> None:
    r = run("canon", "read", "src/app.py", cwd=project)
    assert r.code == 1 and "error[no-article]" in r.err, r
    assert "no store" in r.err
    assert list(project.iterdir()) == []


def test_a_file_without_front_matter_is_all_body(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"notes": "# Notes\n\nJust text: no fences.\n"})
    r = run("canon", "read", "--json", "notes", cwd=root)
    assert r.code == 0, r
    doc = r.json()
    assert doc["capsule"] is None and doc["updated"] is None
    assert doc["body"] == "# Notes\n\nJust text: no fences.\n"


def test_quoted_values_read_back(run: Run, make_store: MakeStore) -> None:
    root = make_store(
        articles={
            "a": '---\ncapsule: "yes: really, \\"quoted\\""\nupdated: \'2026-02-03\'\n---\nx\n',
            "b": "---\ncapsule: 'it''s single'\n---\nx\n",
        }
    )
    assert run("canon", "read", "--json", "a", cwd=root).json()["capsule"] == 'yes: really, "quoted"'
    assert run("canon", "read", "--json", "a", cwd=root).json()["updated"] == "2026-02-03"
    assert run("canon", "read", "--json", "b", cwd=root).json()["capsule"] == "it's single"


def test_journal_line_lists_newest_three_by_logged_not_by_name(run: Run, make_store: MakeStore) -> None:
    root = make_store(
        articles={"src/core/config": article("Config.")},
        journal={
            # Names sort one way, `logged` another: logged wins.
            "2026-01-01-a.md": entry("[src/core/config]", "2026-01-05T00:00:00Z"),
            "2026-01-02-b.md": entry("[src/core/config, other]", "2026-01-02T00:00:00Z"),
            "2026-01-03-c.md": entry("[src/core/config]", "2026-01-03T00:00:00.5+00:00"),
            "2026-01-04-d.md": entry("[src/core/config]", "2026-01-04T01:00:00+02:00"),  # 2026-01-03T23:00Z
            "2026-01-05-e.md": entry("[src/core/config]", "2026-01-01T00:00:00Z"),
            "2026-01-06-f.md": entry("[other]", "2026-01-09T00:00:00Z"),
        },
    )
    r = run("canon", "read", "src/core/config.ts", cwd=root)
    assert r.code == 0, r
    assert r.out.splitlines()[-1] == "journal: 2026-01-01-a.md, 2026-01-04-d.md, 2026-01-03-c.md (+2 earlier)"
    doc = run("canon", "read", "--json", "src/core/config", cwd=root).json()
    assert doc["journal"] == ["2026-01-01-a.md", "2026-01-04-d.md", "2026-01-03-c.md"]
    assert doc["journal_total"] == 5


def test_journal_line_never_shows_entry_text(run: Run, make_store: MakeStore) -> None:
    root = make_store(
        articles={"x": article("X.")},
        journal={"2026-01-01-a.md": entry("[x]", "2026-01-01T00:00:00Z", "SECRET-TEXT\n")},
    )
    r = run("canon", "read", "x", cwd=root)
    assert "SECRET-TEXT" not in r.out and r.out.endswith("journal: 2026-01-01-a.md\n"), r


def test_no_journal_line_without_entries(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"x": article("X.")})
    r = run("canon", "read", "x", cwd=root)
    assert "journal:" not in r.out


def test_the_cache_heals_when_entries_are_added_and_removed_outside_canon(run: Run, make_store: MakeStore) -> None:
    root = make_store(
        articles={"x": article("X.")},
        journal={"2026-01-01-a.md": entry("[x]", "2026-01-01T00:00:00Z")},
    )
    journal = root / ".canon" / "journal"
    assert run("canon", "read", "--json", "x", cwd=root).json()["journal"] == ["2026-01-01-a.md"]
    assert (root / ".canon" / ".cache" / "journal.sqlite").is_file()
    # Added by hand (as a `git pull` would), within the same second as the indexing.
    (journal / "2026-01-02-b.md").write_text(entry("[x]", "2026-01-02T00:00:00Z"), encoding="utf-8")
    assert run("canon", "read", "--json", "x", cwd=root).json()["journal"] == ["2026-01-02-b.md", "2026-01-01-a.md"]
    (journal / "2026-01-01-a.md").unlink()
    doc = run("canon", "read", "--json", "x", cwd=root).json()
    assert doc["journal"] == ["2026-01-02-b.md"] and doc["journal_total"] == 1


def test_the_cache_heals_when_an_entry_is_replaced_in_place(run: Run, make_store: MakeStore) -> None:
    root = make_store(
        articles={"x": article("X."), "y": article("Y.")},
        journal={"2026-01-01-a.md": entry("[x]", "2026-01-01T00:00:00Z")},
    )
    path = root / ".canon" / "journal" / "2026-01-01-a.md"
    assert run("canon", "read", "--json", "x", cwd=root).json()["journal_total"] == 1
    # Replace by rename, as editors save: the folder's mtime changes, the names do not.
    tmp = path.with_name(".tmp-save")
    tmp.write_text(entry("[y]", "2026-01-01T00:00:00Z", "Now about y, longer text.\n"), encoding="utf-8")
    os.replace(tmp, path)
    assert run("canon", "read", "--json", "x", cwd=root).json()["journal_total"] == 0
    assert run("canon", "read", "--json", "y", cwd=root).json()["journal"] == ["2026-01-01-a.md"]


def test_the_cache_survives_a_corrupt_file_and_racy_reads(run: Run, make_store: MakeStore) -> None:
    root = make_store(
        articles={"x": article("X.")},
        journal={"2026-01-01-a.md": entry("[x]", "2026-01-01T00:00:00Z")},
    )
    cache = root / ".canon" / ".cache"
    cache.mkdir(parents=True)
    (cache / "journal.sqlite").write_bytes(b"this is not a database" * 100)
    assert run("canon", "read", "--json", "x", cwd=root).json()["journal_total"] == 1
    for i in range(2, 6):  # several adds in quick succession, each read right after
        (root / ".canon" / "journal" / f"2026-01-0{i}-a.md").write_text(entry("[x]", f"2026-01-0{i}T00:00:00Z"))
        assert run("canon", "read", "--json", "x", cwd=root).json()["journal_total"] == i


def test_the_cache_is_invisible_to_git(run: Run, make_repo: MakeRepo) -> None:
    repo = make_repo({"a.py": "x"})
    assert run("canon", "write", "a.py", "--capsule", "A.", "--body", "Body.", cwd=repo).code == 0
    assert run("canon", "journal", "did a thing", "--subject", "a.py", cwd=repo).code == 0
    assert run("canon", "read", "a.py", cwd=repo).code == 0
    assert (repo / ".canon" / ".cache").is_dir()
    status = git(repo, "status", "--porcelain", "--untracked-files=all")
    assert ".cache" not in status
    assert ".canon/articles/a.md" in status


def test_the_cache_ignores_itself_without_the_store_gitignore(
    run: Run, make_repo: MakeRepo, make_store: MakeStore
) -> None:
    repo = make_repo({"a.py": "x"})
    make_store(
        articles={"a": article("A.")}, journal={"2026-01-01-a.md": entry("[a]", "2026-01-01T00:00:00Z")}, root=repo
    )
    assert run("canon", "read", "a.py", cwd=repo).code == 0
    assert ".cache" not in git(repo, "status", "--porcelain", "--untracked-files=all")


def test_unreadable_cache_folder_falls_back_to_reading_entries(run: Run, make_store: MakeStore) -> None:
    root = make_store(
        articles={"x": article("X.")},
        journal={"2026-01-01-a.md": entry("[x]", "2026-01-01T00:00:00Z")},
    )
    (root / ".canon" / ".cache").write_text("a file where the cache folder goes")
    doc = run("canon", "read", "--json", "x", cwd=root).json()
    assert doc["journal"] == ["2026-01-01-a.md"]


def test_malformed_front_matter_is_shown_with_a_note(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"x": '---\ncapsule: "unclosed\n---\nBody stays readable.\n'})
    r = run("canon", "read", "x", cwd=root)
    assert r.code == 0, r
    assert "Body stays readable." in r.out
    assert "note: front matter line 2: capsule: double-quoted value is not closed" in r.err


def test_a_current_index_answers_without_listing_the_journal(run: Run, make_store: MakeStore) -> None:
    root = make_store(
        articles={"x": article("X.")},
        journal={"2026-01-01-a.md": entry("[x]", "2026-01-01T00:00:00Z")},
    )
    journal = root / ".canon" / "journal"
    old = time.time() - 3600
    os.utime(journal, (old, old))  # not racy: the last change is long before the indexing
    assert run("canon", "read", "--json", "x", cwd=root).json()["journal_total"] == 1
    # Sneak an entry in and put the folder's mtime back: a read that listed the folder would
    # see it; the index trusts the unchanged mtime and answers from sqlite alone.
    (journal / "2026-01-02-b.md").write_text(entry("[x]", "2026-01-02T00:00:00Z"))
    os.utime(journal, (old, old))
    assert run("canon", "read", "--json", "x", cwd=root).json()["journal_total"] == 1
    os.utime(journal)  # any real change to the folder is seen
    assert run("canon", "read", "--json", "x", cwd=root).json()["journal_total"] == 2


def test_standing_problems_follow_as_notes(run: Run, make_store: MakeStore) -> None:
    import json

    root = make_store(
        articles={
            "src/gone": article("Was a module.", "Long gone.\n"),
            "src/rule": article("A rule.", "Applies everywhere.\n", scope="rule"),
            "src/app": article(None, "The app.\n"),
            "lake/prices": article("Conceptual.", "No folder on disk.\n"),
        },
        files={"src/app.py": "x", "src/lib/util.py": "x"},
    )
    (root / ".canon" / "schema.json").write_text(json.dumps({"capsule": {"required": True}, "body": {"min_chars": 50}}))
    r = run("canon", "read", "src/gone", cwd=root)
    assert r.code == 0, r
    assert "note: orphan: nothing in src/ maps to 'gone'" in r.err
    assert "canon write src/gone --scope rule" in r.err
    doc = run("canon", "read", "--json", "src/rule", cwd=root).json()
    assert not [n for n in doc["notes"] if n.startswith("orphan")]
    doc = run("canon", "read", "--json", "src/app.py", cwd=root).json()
    assert [n for n in doc["notes"] if not n.startswith("schema")] == []
    assert any("requires a capsule" in n for n in doc["notes"])
    assert any("under the schema minimum of 50" in n for n in doc["notes"])
    doc = run("canon", "read", "--json", "lake/prices", cwd=root).json()
    assert not [n for n in doc["notes"] if n.startswith("orphan")]


def test_read_follows_every_change_of_schema_json(run: Run, make_store: MakeStore) -> None:
    # `canon read` keeps the decoded schema in .cache/ keyed by the file's bytes (schema_cache.py):
    # an edit, even one keeping size and mtime, and a broken or deleted file are all seen at once.
    root = make_store(articles={"src": article("Sources.", "All code here.\n")})
    schema = root / ".canon" / "schema.json"

    def schema_notes() -> list[str]:
        doc = run("canon", "read", "--json", "src", cwd=root).json()
        return [n for n in doc["notes"] if n.startswith("schema")]

    schema.write_text(json.dumps({"article": {"body": {"min_chars": 50}}}))
    assert schema_notes() == ["schema: body has 14 characters, under the schema minimum of 50"]
    assert (root / ".canon" / ".cache" / "schema.marshal").is_file()
    assert schema_notes() == ["schema: body has 14 characters, under the schema minimum of 50"]  # from the cache
    stat = schema.stat()
    schema.write_text(json.dumps({"article": {"body": {"min_chars": 60}}}))
    os.utime(schema, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert schema_notes() == ["schema: body has 14 characters, under the schema minimum of 60"]
    schema.write_text("{broken")
    (broken,) = schema_notes()  # reported, never cached
    assert "not valid JSON" in broken
    (root / ".canon" / ".cache" / "schema.marshal").write_bytes(b"not marshal")
    schema.write_text(json.dumps({"article": {"body": {"min_chars": 50}}}))
    assert schema_notes() == ["schema: body has 14 characters, under the schema minimum of 50"]
    schema.unlink()
    assert schema_notes() == []
