"""pylon.canon.lint as a library: lint_article for write advice, lint() reports, the YAML fast path."""

from __future__ import annotations

import yaml

from pylon.canon.address import Address
from pylon.canon.lint import lint, lint_article
from pylon.canon.lint.yamlcheck import provably_valid
from pylon.canon.store import open_project
from tests.canon.lint.conftest import LONG_BODY, Store


def test_lint_article_checks_one_article_with_tree_rules(store: Store) -> None:
    store.article("src", body=LONG_BODY)
    store.article("src/small", capsule=None, body="[[src]] [[nope]]\n")
    store.asset("src/other.py")
    project = open_project(store.root)
    rules = sorted(f.rule for f in lint_article(project, Address(None, "src/small")))
    assert rules == ["dead-link", "no-capsule", "orphan", "tiny-child"]
    assert lint_article(project, "src") == []
    assert lint_article(project, Address(None, "missing")) == []


def test_lint_report_counts(store: Store) -> None:
    store.article("a", capsule=None, body="[[x]]\n" + LONG_BODY)
    store.journal("2026-01-01-e.md", "---\nsubject: [a]\nlogged: 2026-01-01T00:00:00Z\n---\nt\n")
    report = lint(open_project(store.root))
    assert (report.articles, report.journal, report.errors, report.warnings) == (1, 1, 1, 1)
    assert report.failed() and report.failed(strict=True)


def test_yaml_fast_path_is_sound_on_tricky_blocks() -> None:
    """Whatever provably_valid accepts, PyYAML must load as a mapping."""
    blocks = [
        "a: b\n",
        "a: b: c\n",
        "a: 'x'y\n",
        "a: [a, [b]]\n",
        "updated: 2026-02-29\n",
        "updated: 2024-02-29\n",
        "a: 2026-04-31\n",
        "a: 2026-01-01T24:00:00Z\n",
        "l:\n  - a\n    - b\n",
        "l:\n  - a\n  - b\n",
        "a: x #c\n",
        "a: x#c\n",
        "a: @x\n",
        'a: "x\\"y"\n',
        "a: - x\n",
        "- a\n",
        "a:\tb\n",
        "a: b\r\nc: d\r\n",
        "k: \x07\n",
        "a: [2026-13-01]\n",
        "a: [2026-12-01, x]\n",
        "? a\n",
        "a: |\n  x\n",
        "a: >\n  x\n",
        "a: &x 1\n",
    ]
    for block in blocks:
        lines = block.splitlines(keepends=True)
        if provably_valid(lines):
            assert isinstance(yaml.safe_load(block), dict), block
