"""Articles pi-canon stored for dotted folder names (`src/my.pkg/` as `src/my`: its normalize()
drops an extension from folders too) are found, updated in place, and lint names the `canon mv`
that gives them the folder's own address."""

from __future__ import annotations

from pathlib import Path

from tests.canon.conftest import MakeStore
from tests.canon.helpers import snapshot
from tests.conftest import Run

# As pi-canon 0.3.0 stored it (tests/canon/fixtures/pi-canon-0.3.0/project/.canon/articles/src/my.md).
PI_ARTICLE = '---\ncapsule: "my.pkg: the plugin package"\nupdated: 2026-08-20\n---\nPlugin package; entry is mod.py.\n'
FILES = {"src/my.pkg/mod.py": "VALUE = 7\n", "src/my.pkg/sub/deep.py": "DEEP = 1\n", "src/other.py": ""}
MOVE = "canon mv src/my src/my.pkg"


def _store(make_store: MakeStore, **extra: str) -> Path:
    return make_store(articles={"src/my": PI_ARTICLE, **extra}, files=FILES)


def test_the_folder_and_its_files_read_the_article_pi_canon_stored(run: Run, make_store: MakeStore) -> None:
    root = _store(make_store)
    for path in ("src/my.pkg", "src/my.pkg/", "src/my.pkg/mod.py", "src/my.pkg/sub/deep.py"):
        doc = run("canon", "read", "--json", path, cwd=root).json()
        assert doc["ok"] and doc["address"] == "src/my", (path, doc)
        assert doc["capsule"] == "my.pkg: the plugin package"
    [note] = run("canon", "read", "--json", "src/my.pkg", cwd=root).json()["notes"]
    assert note.endswith(MOVE) and "orphan" not in note, note
    text = run("canon", "read", "src/my.pkg", cwd=root)
    assert text.out.startswith("src/my governs src/my.pkg\n"), text
    explain = run("canon", "resolve", "--explain", "src/my.pkg/mod.py", cwd=root)
    assert "tried src/my.pkg: no article" in explain.out and "tried src/my: governs" in explain.out, explain


def test_an_asset_of_the_short_name_keeps_its_article(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"src/my": PI_ARTICLE}, files={**FILES, "src/my.py": ""})
    assert run("canon", "read", "--json", "src/my.py", cwd=root).json()["address"] == "src/my"
    # src/my belongs to src/my.py now, so the folder is not governed by it.
    result = run("canon", "read", "--json", "src/my.pkg/mod.py", cwd=root)
    assert result.code == 1 and result.json()["error"]["code"] == "no-article", result
    lint = run("canon", "lint", "--json", cwd=root).json()
    assert not [f for f in lint["findings"] if f["rule"] in ("dotted-folder", "orphan")], lint


def test_a_dotted_file_is_not_a_folder(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"src/a": PI_ARTICLE}, files={"src/a.tar.gz": ""})
    doc = run("canon", "read", "--json", "src/a.tar.gz", cwd=root).json()
    assert doc["ok"] is False  # a.tar.gz is the article src/a.tar (one extension), not src/a


def test_a_write_of_the_folder_updates_that_article(run: Run, make_store: MakeStore) -> None:
    root = _store(make_store)
    result = run("canon", "write", "src/my.pkg", "--capsule", "The plugin package v2", cwd=root)
    assert result.code == 0, result
    assert result.out.startswith("Wrote src/my."), result
    assert MOVE in result.err, result  # the advice names the move
    assert not (root / ".canon/articles/src/my.pkg.md").exists()
    assert "capsule: The plugin package v2\n" in (root / ".canon/articles/src/my.md").read_text()


def test_lint_names_the_move_instead_of_orphan(run: Run, make_store: MakeStore) -> None:
    guide = "---\ncapsule: Guide.\n---\nSee [[src/my.pkg/mod.py]] and [[src/my.pkg/sub/deep.py]].\n"
    root = _store(make_store, guide=guide)
    before = snapshot(root)
    result = run("canon", "lint", "--json", cwd=root)
    assert result.code == 0, result
    findings = result.json()["findings"]
    assert [(f["rule"], f["severity"], f["path"]) for f in findings] == [
        ("dotted-folder", "warning", ".canon/articles/src/my.md")
    ], findings
    assert findings[0]["message"].endswith(MOVE) and not findings[0]["fixable"]
    assert snapshot(root) == before  # lint never moves anything itself


def test_an_exact_link_below_the_dotted_folder_stays_dead(run: Run, make_store: MakeStore) -> None:
    guide = "---\ncapsule: Guide.\n---\nSee [[src/my.pkg/nothing]].\n"
    root = _store(make_store, guide=guide)
    dead = [f for f in run("canon", "lint", "--json", cwd=root).json()["findings"] if f["rule"] == "dead-link"]
    assert len(dead) == 1, dead


def test_a_store_of_the_folders_own_address_wins(run: Run, make_store: MakeStore) -> None:
    own = "---\ncapsule: Its own article.\n---\nBody.\n"
    root = _store(make_store, **{"src/my.pkg": own})
    assert run("canon", "read", "--json", "src/my.pkg/mod.py", cwd=root).json()["address"] == "src/my.pkg"
