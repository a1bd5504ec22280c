"""Owned values round-trip every Unicode string: what YAML treats as a line break is escaped."""

from __future__ import annotations

import pytest
import yaml

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article
from tests.conftest import Run

ODD = ["\u2028", "\u2029", "\u0085", "\x0b", "\x0c", "\x1c", "\x1e", "\ufeff", "\x7f", "\x9f", "é\u0301", "\U0001f600"]


@pytest.mark.parametrize("char", ODD, ids=lambda c: f"U+{ord(c[0]):04X}")
def test_a_capsule_with_a_yaml_line_break_round_trips_and_stays_writable(
    run: Run, make_store: MakeStore, char: str
) -> None:
    root = make_store(articles={"a": article("Old.", "Body.\n")})
    capsule = f"before{char}after"
    r = run("canon", "write", "a", "--capsule", capsule, cwd=root)
    assert r.code == 0, r
    text = (root / ".canon/articles/a.md").read_text(encoding="utf-8")
    assert yaml.safe_load(text.split("---\n")[1])["capsule"] == capsule  # YAML reads the same string
    assert run("canon", "read", "--json", "a", cwd=root).json()["capsule"] == capsule
    again = run("canon", "write", "a", "--body", "New body.", cwd=root)
    assert again.code == 0, again
    assert run("canon", "read", "--json", "a", cwd=root).json()["capsule"] == capsule
    lint = run("canon", "lint", "--json", "a", cwd=root).json()
    assert [f for f in lint["findings"] if f["severity"] == "error"] == []


def test_a_capsule_with_a_nul_byte_is_refused_and_nothing_changes(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"a": article("Old.", "Body.\n")})
    before = (root / ".canon/articles/a.md").read_bytes()
    r = run("canon", "write", "--json", "a", "--body-file", "-", input="bad\0body\n", cwd=root)
    assert r.code == 2 and r.json()["error"]["code"] == "bad-text", r
    assert (root / ".canon/articles/a.md").read_bytes() == before


def test_lint_reports_a_nul_byte_in_an_article(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"a": article("Old.", "Bo\0dy.\n")})
    lint = run("canon", "lint", "--json", cwd=root)
    assert lint.code == 1 and [f["rule"] for f in lint.json()["findings"]] == ["nul-byte"], lint
