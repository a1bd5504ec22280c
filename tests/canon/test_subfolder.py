"""Arguments are relative to the current folder, like git, before exact-article-first applies."""

from __future__ import annotations

from pathlib import Path

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article
from tests.conftest import Run


def test_a_write_in_a_subfolder_never_rewrites_the_root_level_article(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"core/config": article("Root level.", "Root body.\n")})
    (root / "src").mkdir()
    before = (root / ".canon/articles/core/config.md").read_bytes()
    r = run("canon", "write", "core/config", "--capsule", "Src level.", "--body", "x", cwd=root / "src")
    assert r.code == 0, r
    assert r.out == "Wrote src/core/config.\n"
    assert (root / ".canon/articles/core/config.md").read_bytes() == before
    assert "Src level." in (root / ".canon/articles/src/core/config.md").read_text()


def test_exact_article_first_applies_relative_to_the_current_folder(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"src/core/config.test": article("Own.", "Own.\n"), "config.test": article("Root.")})
    (root / "src" / "core").mkdir(parents=True)
    r = run("canon", "read", "--json", "config.test", cwd=root / "src" / "core")
    assert r.code == 0, r
    assert r.json()["address"] == "src/core/config.test"


def test_exact_article_first_still_works_at_the_root(run: Run, make_store: MakeStore) -> None:
    root: Path = make_store(articles={"src/core/config.test": article("Own.")})
    r = run("canon", "read", "--json", "src/core/config.test", cwd=root)
    assert r.json()["address"] == "src/core/config.test", r
