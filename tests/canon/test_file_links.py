"""`[[file.ts]]` links resolve the way a path does (extension dropped, nearest article), as
pi-canon resolves them."""

from __future__ import annotations

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article
from tests.conftest import Run

LONG = "Enough body text to keep tiny-child quiet. " * 12 + "\n"


def test_a_file_link_resolves_like_a_path(run: Run, make_store: MakeStore) -> None:
    root = make_store(
        articles={
            "src/core/config": article("Config.", LONG),
            "src": article("Sources.", LONG),
            "a": article("A.", "See [[src/core/config.ts]] and [[src/other/deep.py]].\n" + LONG),
        }
    )
    (root / "src" / "core").mkdir(parents=True)
    (root / "src" / "core" / "config.ts").write_text("x")
    lint = run("canon", "lint", "--json", "a", cwd=root)
    assert [f for f in lint.json()["findings"] if f["rule"] == "dead-link"] == [], lint


def test_an_address_link_without_extension_is_still_exact(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"src": article("Sources.", LONG), "a": article("A.", "See [[src/nothing]].\n" + LONG)})
    lint = run("canon", "lint", "--json", "a", cwd=root)
    assert [f["rule"] for f in lint.json()["findings"]] == ["dead-link"], lint
