"""Front matter survives every write byte for byte; owned values are quoted only when YAML needs it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.canon.conftest import MakeStore
from tests.canon.helpers import today
from tests.conftest import Run

FOREIGN = (
    "---\n"
    "# Obsidian note, keep me\n"
    "aliases:\n"
    "  - Config loader\n"
    "  - 'cfg: loader'\n"
    "tags: [core, config]   # trailing comment\n"
    "capsule: Old capsule.\n"
    "owner: someone\n"
    "nested:\n"
    "  key: value\n"
    "  list:\n"
    "    - 1\n"
    "updated: 2020-01-01\n"
    "cssclass: wide\n"
    "---\n"
    "Old body.\n"
)


def art(root: Path, address: str) -> Path:
    return root / ".canon" / "articles" / f"{address}.md"


def test_foreign_keys_block_lists_and_comments_survive_every_write(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"src/core/config": FOREIGN})
    path = art(root, "src/core/config")
    r = run("canon", "write", "src/core/config", "--capsule", "New: capsule, quoted.", "--body", "New body.", cwd=root)
    assert r.code == 0, r
    expected = (
        FOREIGN.replace("capsule: Old capsule.\n", 'capsule: "New: capsule, quoted."\n')
        .replace("updated: 2020-01-01\n", f"updated: {today()}\n")
        .replace("Old body.\n", "New body.\n")
    )
    assert path.read_text() == expected
    assert run("canon", "write", "src/core/config", "--scope", "rule", cwd=root).code == 0
    expected = expected.replace(f"updated: {today()}\n", f"updated: {today()}\nscope: rule\n")
    assert path.read_text() == expected
    assert run("canon", "write", "src/core/config", "--scope", "asset", "--body", "Third body.", cwd=root).code == 0
    expected = expected.replace("scope: rule\n", "").replace("New body.\n", "Third body.\n")
    assert path.read_text() == expected
    # Still valid YAML with every foreign value intact.
    data = yaml.safe_load(expected.split("---\n")[1])
    assert data["aliases"] == ["Config loader", "cfg: loader"] and data["nested"] == {"key": "value", "list": [1]}
    assert data["capsule"] == "New: capsule, quoted."


def test_owned_keys_are_inserted_in_canonical_order_after_foreign_keys(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"a": "---\ntitle: Hello\naliases:\n  - x\n---\nBody.\n"})
    assert run("canon", "write", "a", "--capsule", "Cap.", "--scope", "rule", cwd=root).code == 0
    text = art(root, "a").read_text()
    assert text.startswith(
        "---\ncapsule: Cap.\nupdated: " + today() + "\nscope: rule\ntitle: Hello\naliases:\n  - x\n---\n"
    )


def test_a_bom_and_no_trailing_newline_survive(run: Run, make_store: MakeStore) -> None:
    root = make_store()
    path = art(root, "a")
    path.write_bytes("\ufeff---\nowner: me\ncapsule: Old.\n---\nBody without newline".encode())
    assert run("canon", "write", "a", "--capsule", "New.", cwd=root).code == 0
    assert (
        path.read_bytes()
        == f"\ufeff---\nowner: me\ncapsule: New.\nupdated: {today()}\n---\nBody without newline".encode()
    )


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("Plain words and dots.", "Plain words and dots."),
        ("semi; colons; fine", "semi; colons; fine"),
        ("under_score-dash (parens) 50%", '"under_score-dash (parens) 50%"'),
        ("yes", '"yes"'),
        ("No", '"No"'),
        ("on", '"on"'),
        ("true", '"true"'),
        ("null", '"null"'),
        ("~", '"~"'),
        ("123", '"123"'),
        ("1.5", '"1.5"'),
        ("0x1F", '"0x1F"'),
        ("1e3", '"1e3"'),
        (".inf", '".inf"'),
        ("2026-01-01", '"2026-01-01"'),
        ("a: b", '"a: b"'),
        ("has # hash", '"has # hash"'),
        ("list, with comma", '"list, with comma"'),
        ("[bracket]", '"[bracket]"'),
        ("{brace}", '"{brace}"'),
        ("&anchor", '"&anchor"'),
        ("*alias", '"*alias"'),
        ("!tag", '"!tag"'),
        ("| pipe", '"| pipe"'),
        ("> folded", '"> folded"'),
        ("@at", '"@at"'),
        ("back\\slash", '"back\\\\slash"'),
        ('say "hi"', '"say \\"hi\\""'),
        ("it's", '"it\'s"'),
        ("`code`", '"`code`"'),
        ("- dash item", '"- dash item"'),
        ("--- fence", '"--- fence"'),
        ("Ünïcödé ok", "Ünïcödé ok"),
    ],
)
def test_owned_values_are_quoted_only_when_yaml_would_misread_them(
    run: Run, project: Path, value: str, written: str
) -> None:
    r = run("canon", "write", "a", "--capsule", value, "--body", "B.", cwd=project)
    assert r.code == 0, r
    text = art(project, "a").read_text()
    assert f"capsule: {written}\n" in text
    # YAML (what python-frontmatter uses) reads back exactly the string we meant...
    assert yaml.safe_load(text.split("---\n")[1])["capsule"] == value
    # ...and so does canon.
    assert run("canon", "read", "--json", "a", cwd=project).json()["capsule"] == value
    # Writing the same value again is a no-op.
    again = run("canon", "write", "a", "--capsule", value, cwd=project)
    assert "already current" in again.out, again


def test_leading_and_trailing_spaces_are_trimmed_by_folding(run: Run, project: Path) -> None:
    assert run("canon", "write", "a", "--capsule", "  padded  ", "--body", "B.", cwd=project).code == 0
    assert "capsule: padded\n" in art(project, "a").read_text()


def test_updated_is_a_plain_date(run: Run, project: Path) -> None:
    assert run("canon", "write", "a", "--capsule", "C.", "--body", "B.", cwd=project).code == 0
    text = art(project, "a").read_text()
    assert f"\nupdated: {today()}\n" in text
    import datetime

    assert yaml.safe_load(text.split("---\n")[1])["updated"] == datetime.date.fromisoformat(today())


def test_multiline_owned_values_are_replaced_whole(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"a": "---\ncapsule: >\n  folded old\n  capsule text\nowner: me\n---\nB.\n"})
    assert run("canon", "read", "--json", "a", cwd=root).json()["capsule"] == "folded old capsule text"
    assert run("canon", "write", "a", "--capsule", "One line.", cwd=root).code == 0
    assert art(root, "a").read_text() == f"---\ncapsule: One line.\nupdated: {today()}\nowner: me\n---\nB.\n"
