"""`canon init`, `canon map`, `canon status`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article, entry
from tests.conftest import MakeRepo, Run


def test_init_creates_the_store_and_is_idempotent(run: Run, project: Path) -> None:
    r = run("canon", "init", cwd=project)
    assert r.code == 0, r
    assert r.out.splitlines() == [
        "created .canon/",
        "created .canon/articles/",
        "created .canon/journal/",
        "created .canon/.gitignore",
        "created .canon/schema.json",
    ]
    assert (project / ".canon" / ".gitignore").read_text() == ".cache/\n.*.pylon-tmp-*\n.journal-index.jsonl\n"
    schema = json.loads((project / ".canon" / "schema.json").read_text())
    assert list(schema) == ["schema_version", "about", "article", "relations"]
    (project / ".canon" / "schema.json").write_text("{}\n")
    r = run("canon", "init", cwd=project)
    assert r.code == 0 and "already exists; nothing to create" in r.out, r
    assert (project / ".canon" / "schema.json").read_text() == "{}\n"
    doc = run("canon", "init", "--json", cwd=project).json()
    assert doc == {"ok": True, "store": str(project / ".canon"), "created": [], "ignored": []}


def test_init_completes_a_partial_store(run: Run, project: Path) -> None:
    (project / ".canon" / "articles").mkdir(parents=True)
    doc = run("canon", "init", "--json", cwd=project).json()
    assert doc["created"] == [".canon/journal/", ".canon/.gitignore", ".canon/schema.json"]


def test_init_with_root(run: Run, project: Path, tmp_path: Path) -> None:
    target = tmp_path / "other"
    target.mkdir()
    assert run("canon", "init", "--root", str(target), cwd=project).code == 0
    assert (target / ".canon" / "schema.json").is_file()
    assert not (project / ".canon").exists()
    r = run("canon", "init", "--root", str(tmp_path / "missing"), cwd=project)
    assert r.code == 2 and "error[bad-root]" in r.err, r


def test_init_in_a_git_subfolder_creates_the_store_at_the_top(run: Run, make_repo: MakeRepo) -> None:
    repo = make_repo({"pkg/a.py": "x"})
    assert run("canon", "init", cwd=repo / "pkg").code == 0
    assert (repo / ".canon").is_dir() and not (repo / "pkg" / ".canon").exists()


def test_map_lists_address_and_capsule(run: Run, make_store: MakeStore) -> None:
    root = make_store(
        articles={
            "src": article("Sources."),
            "src/core/config": article("Config."),
            "src/nocap": "Just a body.\n",
            "docs": article("Docs."),
            "srcx": article("Not under src."),
        }
    )
    r = run("canon", "map", cwd=root)
    assert r.code == 0, r
    assert r.out.splitlines() == [
        "docs: Docs.",
        "src: Sources.",
        "src/core/config: Config.",
        "src/nocap",
        "srcx: Not under src.",
    ]
    r = run("canon", "map", "src", cwd=root)
    assert r.out.splitlines() == ["src: Sources.", "src/core/config: Config.", "src/nocap"]
    doc = run("canon", "map", "--json", "src/core", cwd=root).json()
    assert doc == {
        "ok": True,
        "articles": [{"address": "src/core/config", "capsule": "Config.", "problem": None}],
        "count": 1,
    }
    absent = run("canon", "map", "absent", cwd=root)  # pi-canon: "No articles under absent."
    assert absent.code == 0 and absent.out == ""
    assert absent.err.startswith(
        "note: no articles under absent (canon map lists every article; create one: canon write absent --capsule"
    )


def test_map_of_an_empty_store_and_a_broken_article(run: Run, make_store: MakeStore) -> None:
    root = make_store()
    r = run("canon", "map", cwd=root)
    assert r.code == 0 and r.out == "" and "no articles" in r.err, r
    (root / ".canon" / "articles" / "bad.md").write_bytes(b"---\ncapsule: \xff\n---\n")
    r = run("canon", "map", cwd=root)
    assert r.out == "bad\n" and "warning: bad: not valid UTF-8" in r.err, r


def test_status_reports_store_counts_mounts_and_session(run: Run, make_store: MakeStore, tmp_path: Path) -> None:
    root = make_store(
        articles={"a": article("A."), "b/c": article("C.")},
        journal={"2026-01-01-a.md": entry("[a]", "2026-01-01T00:00:00Z")},
    )
    lake = tmp_path / "lake"
    (lake / ".canon" / "articles").mkdir(parents=True)
    (lake / ".canon" / "articles" / "p.md").write_text("x\n")
    r = run("canon", "status", "--mount", str(lake), cwd=root, env={"PYLON_SESSION": "s1"})
    assert r.code == 0, r
    assert r.out.splitlines() == [
        f"store: {root / '.canon'}",
        "articles: 2",
        "journal: 1 entries",
        f"mount lake: {lake} (1 articles)",
        "session s1: surfacing has shown nothing yet",
    ]
    doc = run("canon", "status", "--json", cwd=root).json()
    assert doc["ok"] is True and doc["articles"] == 2 and doc["journal"] == 1 and doc["mounts"] == []
    assert doc["session"] == "default" and doc["exists"] is True and doc["root"] == str(root)


def test_status_without_a_store(run: Run, project: Path) -> None:
    r = run("canon", "status", cwd=project)
    assert r.code == 0, r
    assert "not created yet: canon init" in r.out
    assert list(project.iterdir()) == []
