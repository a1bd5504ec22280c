"""`canon mv`: articles and children move, inbound links are rewritten, the move is journaled."""

from __future__ import annotations

from pathlib import Path

from tests.canon.git.conftest import BODY, GitStore
from tests.canon.helpers import snapshot


def _files(repo: GitStore) -> set[str]:
    return {str(p.relative_to(repo.root / ".canon/articles")) for p in (repo.root / ".canon/articles").rglob("*.md")}


def test_move_with_children_links_and_journal(repo: GitStore) -> None:
    repo.article("src/core/loader", body="Loads. Back to [[src/core]].\n" + BODY)
    linking = (
        "See [[src/core|the core]], [[src/core#Details]], [[src/core/loader^b1]], [[src/core/config.py]],\n"
        "[[ src/core.md ]] and `[[src/core]]` in code, and [[src/corefile]] (another name).\n"
    )
    repo.article("src", body=linking + BODY)
    journal_before = repo.write(
        ".canon/journal/2026-01-02-old.md",
        "---\nsubject: [src/core]\nlogged: 2026-01-02T00:00:00Z\n---\nSaw [[src/core]] break.\n",
    ).read_bytes()
    result = repo.canon("mv", "src/core", "src/engine")
    assert result.code == 0, result
    assert result.out.startswith(
        "Moved src/core -> src/engine (2 articles).\n  src/core -> src/engine\n  src/core/loader -> src/engine/loader\n"
    )
    assert _files(repo) == {"src.md", "src/engine.md", "src/engine/loader.md"}
    text = (repo.root / ".canon/articles/src.md").read_text()
    assert text.startswith("---\ncapsule: Capsule.\nupdated: 2026-01-01\n---\n")  # a move is not new knowledge
    assert (
        "See [[src/engine|the core]], [[src/engine#Details]], [[src/engine/loader^b1]], "
        "[[src/engine/config.py]],\n[[ src/engine.md ]] and `[[src/core]]` in code, and [[src/corefile]]"
    ) in text
    assert "Back to [[src/engine]]." in (repo.root / ".canon/articles/src/engine/loader.md").read_text()
    assert (repo.root / ".canon/journal/2026-01-02-old.md").read_bytes() == journal_before
    entries = sorted(p.name for p in (repo.root / ".canon/journal").iterdir())
    assert len(entries) == 2
    new_entry = next(p for p in (repo.root / ".canon/journal").iterdir() if "moved" in p.name).read_text()
    assert "subject: [src/engine]" in new_entry and "Moved the article src/core to src/engine" in new_entry
    dead = [line for line in repo.canon("lint").out.splitlines() if "dead-link" in line]
    assert len(dead) == 1 and "[[src/corefile]]" in dead[0]  # dead before the move too


def test_dry_run_changes_nothing(repo: GitStore) -> None:
    before = snapshot(repo.root / ".canon")
    result = repo.canon("mv", "src/core", "src/engine", "--dry-run", "--json")
    assert result.code == 0
    doc = result.json()
    assert doc["dry_run"] is True and doc["moves"][0]["moved"] == [{"from": "src/core", "to": "src/engine"}]
    assert doc["moves"][0]["journal"] is None
    assert snapshot(repo.root / ".canon") == before


def test_move_onto_an_existing_article_is_refused(repo: GitStore) -> None:
    repo.article("src/engine")
    before = snapshot(repo.root / ".canon")
    result = repo.canon("mv", "src/core", "src/engine")
    assert result.code == 1
    assert result.err.startswith("error[article-exists]: An article already exists at src/engine;")
    assert snapshot(repo.root / ".canon") == before
    # A child landing on an existing article is refused too, before anything is written.
    repo.article("src/core/a")
    repo.article("src/other/a")
    repo.article("src/other")
    (repo.root / ".canon/articles/src/other.md").unlink()
    before = snapshot(repo.root / ".canon")
    child = repo.canon("mv", "src/core", "src/other")
    assert child.code == 1 and "already exists at src/other/a" in child.err
    assert snapshot(repo.root / ".canon") == before


def test_bad_moves(repo: GitStore) -> None:
    missing = repo.canon("mv", "src/nothing", "src/x")
    assert missing.code == 1 and missing.err.startswith("error[no-article]: No article is at src/nothing")
    assert repo.canon("mv", "src/core", "src/core").code == 2
    assert repo.canon("mv", "src/core", ".canon/x").code == 2
    assert repo.canon("mv", "src/core").code == 2
    assert repo.canon("mv", "--from-git", "HEAD", "extra").code == 2


def test_asset_paths_name_articles(repo: GitStore) -> None:
    repo.article("src/app")
    result = repo.canon("mv", "src/app.py", "src/main.py")
    assert result.code == 0 and result.out.startswith("Moved src/app -> src/main (1 article).")


def test_from_git_applies_what_check_names(repo: GitStore) -> None:
    repo.article("src/app")
    repo.article("src/core/config")
    repo.commit("more articles")
    repo.git("mv", "src/core", "src/engine")
    repo.git("mv", "src/app.py", "src/main.py")
    assert repo.canon("check", "--staged").code == 1
    result = repo.canon("mv", "--from-git", "--json")
    assert result.code == 0, result
    moves = [(m["from"], m["to"]) for m in result.json()["moves"]]
    assert sorted(moves) == [("src/app", "src/main"), ("src/core", "src/engine")]  # the child went with its parent
    assert _files(repo) == {"src.md", "src/main.md", "src/engine.md", "src/engine/config.md"}
    repo.git("add", "-A")
    assert repo.canon("check", "--staged").code == 0
    assert repo.canon("mv", "--from-git").out.startswith("No rename that git sees")


def test_from_git_rev(repo: GitStore) -> None:
    base = repo.git("rev-parse", "HEAD").strip()
    repo.git("mv", "src/core", "src/engine")
    repo.git("commit", "-q", "-m", "renamed without the article")
    assert repo.canon("mv", "--from-git").out.startswith("No rename")  # HEAD already has it
    result = repo.canon("mv", "--from-git", base)
    assert result.code == 0 and result.out.startswith("Moved src/core -> src/engine")
    assert repo.canon("mv", "--from-git", "nope").code == 2


def test_move_in_a_mount_rewrites_prefixed_links(repo: GitStore, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    (lake / ".canon/articles").mkdir(parents=True)
    (lake / ".canon/articles/prices.md").write_text("---\ncapsule: P.\n---\n" + BODY)
    (lake / ".canon/articles/index.md").write_text("---\ncapsule: I.\n---\nSee [[prices]].\n" + BODY)
    repo.article("src", body="Prices: [[lake:prices|the prices]].\n" + BODY)
    result = repo.canon("mv", "--mount", str(lake), "lake:prices", "lake:costs")
    assert result.code == 0, result
    assert "[[costs]]" in (lake / ".canon/articles/index.md").read_text()
    assert "[[lake:costs|the prices]]" in (repo.root / ".canon/articles/src.md").read_text()
    assert not (lake / ".canon/articles/prices.md").exists()


def test_move_into_its_own_subtree_and_files_left_behind(repo: GitStore) -> None:
    repo.article("src/core/a")
    repo.write(".canon/articles/src/core/diagram.png", "png")
    result = repo.canon("mv", "src/core", "src/core/inner", "--json")
    assert result.code == 0, result
    (move,) = result.json()["moves"]
    assert move["moved"] == [
        {"from": "src/core", "to": "src/core/inner"},
        {"from": "src/core/a", "to": "src/core/inner/a"},
    ]
    assert move["left_behind"] == ["src/core/diagram.png"]
    assert _files(repo) == {"src.md", "src/core/inner.md", "src/core/inner/a.md"}
    assert (repo.root / ".canon/articles/src/core/diagram.png").exists()


def test_errors_are_json_envelopes(repo: GitStore) -> None:
    doc = repo.canon("mv", "src/core", "src", "--json")
    assert doc.code == 1
    assert doc.json()["ok"] is False and doc.json()["error"]["code"] == "article-exists"


SPELLINGS = (
    "| [[src/core\\|the core]] | [[ src/core ]] |\n"  # Obsidian's alias inside a table, blanks
    "[[./src/core]] [[src/core/]] [[/src/core]] [[src/core/loader.md#Use]] ![[ ./src/core/loader/ ^b ]]\n"
    "[[src/core/config.py\\|cfg]] [[src/core/loader/ | spaced label ]]\n"
)


def test_mv_keeps_every_spelling_but_the_address_and_moves_back_byte_exact(repo: GitStore) -> None:
    repo.article("src/core/loader")
    path = repo.article("src", body=SPELLINGS + BODY)
    before = {p: p.read_bytes() for p in (repo.root / ".canon/articles").rglob("*.md")}
    assert repo.canon("mv", "src/core", "src/engine").code == 0
    assert SPELLINGS.replace("src/core", "src/engine") + BODY in path.read_text()
    assert "dead-link" not in repo.canon("lint").out
    assert repo.canon("mv", "src/engine", "src/core").code == 0
    assert {p: p.read_bytes() for p in (repo.root / ".canon/articles").rglob("*.md")} == before
