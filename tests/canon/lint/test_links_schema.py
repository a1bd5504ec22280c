"""pylon.canon.links and pylon.canon.schema as libraries (pure functions, used by write and mv)."""

from __future__ import annotations

import json
from pathlib import Path

from pylon.canon.address import Address
from pylon.canon.frontmatter import parse
from pylon.canon.links import check_links, code_mask, extract_links, link_address
from pylon.canon.schema import DEFAULT_SCHEMA, load_schema, parse_schema
from pylon.canon.schema_check import bound_violations, check_article, required_violations, title_of
from pylon.canon.store import Store


def test_extract_links_offsets_lines_and_labels() -> None:
    text = "intro [[a/b|Label]]\n\n`[[code]]` [[c#H]] ![[d]] ![[pic.png]]\n"
    links = extract_links(text, first_line=10)
    assert [(link.target, link.label, link.line, link.embed) for link in links] == [
        ("a/b", "Label", 10, False),
        ("c#H", None, 12, False),
        ("d", None, 12, True),
    ]
    first = links[0]
    assert text[first.start : first.end] == "[[a/b|Label]]"
    assert text[first.target_start : first.target_start + 3] == "a/b"
    assert text[links[2].start : links[2].end] == "![[d]]"


def test_code_mask_fences_and_spans() -> None:
    text = "a `x` b\n````\n```\n[[in]]\n```\n````\n[[out]] ``y ` z``\n"
    assert [link.target for link in extract_links(text)] == ["out"]
    assert len(code_mask(text)) == 3
    # An unclosed fence runs to the end; an unmatched backtick is literal.
    assert extract_links("```\n[[hidden]]\n") == []
    assert [link.target for link in extract_links("a ` b [[seen]]\n")] == ["seen"]
    # A code span does not cross a blank line.
    assert [link.target for link in extract_links("a `b\n\n[[seen]] c`\n")] == ["seen"]


def test_link_address_normalises() -> None:
    assert link_address(" src/app.md#Setup ", None) == Address(None, "src/app")
    assert link_address("lake:prices", None, ["lake"]) == Address("lake", "prices")
    assert link_address("lake:prices", None, []) == Address(None, "lake:prices")
    assert link_address("x/./y/../z", "lake") == Address("lake", "x/z")


def test_check_links_against_known_sets() -> None:
    links = extract_links("[[a]] [[a/b]] [[lake:p]] [[lake:q]]")
    checks = check_links(links, None, {None: {"a"}, "lake": {"p"}})
    assert [(c.link.target, c.exists) for c in checks] == [
        ("a", True),
        ("a/b", False),
        ("lake:p", True),
        ("lake:q", False),
    ]
    assert "a governs it" in checks[1].reason


def test_title_of() -> None:
    assert title_of("\n# Title here #\nbody") == ("Title here", 1)
    assert title_of("## Not a title\n") == (None, 0)
    assert title_of("") == (None, 0)


def test_default_schema_parses_cleanly() -> None:
    schema = parse_schema(json.loads(json.dumps(DEFAULT_SCHEMA)))
    assert schema.problems == [] and set(schema.fields) == {"capsule", "title", "body"} and schema.refs is not None


def test_load_schema_problems_never_raise(tmp_path: Path) -> None:
    store = Store(tmp_path)
    assert load_schema(store).empty and load_schema(store).problems == []
    (tmp_path / ".canon").mkdir()
    store.schema_path.write_bytes(b"\xff")
    assert "not UTF-8" in load_schema(store).problems[0].message
    store.schema_path.write_text("[1, 2]")
    assert load_schema(store).problems[0].message.startswith("schema.json must hold a JSON object")
    store.schema_path.write_text(
        '{"$schema": "x", "article": {"body": {"min_chars": 10, "max_chars": 5}}, "relations": {"links": {}}}'
    )
    problems = [p.message for p in load_schema(store).problems]
    assert len(problems) == 2 and "min_chars is larger" in problems[0] and "relations.links" in problems[1]
    store.schema_path.unlink()
    store.schema_path.mkdir()
    assert "folder" in load_schema(store).problems[0].message


def test_required_violations_on_create_and_touch() -> None:
    schema = parse_schema(
        {"capsule": {"required": True, "hint": "one line"}, "title": {"required": True}, "body": {"max_chars": 5}}
    )
    new = parse("---\ncapsule: x\n---\nno title here\n")
    assert required_violations(schema, None, new) == ["schema.json requires a title (a leading '# ' heading)"]
    # The body did not change: title is not touched, nothing is required of this write.
    assert required_violations(schema, parse("---\ncapsule: old\n---\nno title here\n"), new) == []
    # A capsule still missing but not touched by the write: allowed.
    old = parse("# T\nbody\n")
    assert required_violations(schema, old, parse("# T\nbody two\n")) == []
    assert required_violations(schema, None, parse("# T\nbody\n")) == ["schema.json requires a capsule (one line)"]
    assert bound_violations(schema, parse("---\ncapsule: c\n---\n# T\nlong body\n")) == [
        "body has 13 characters, over the schema maximum of 5"
    ]


def test_refs_count_excludes_code() -> None:
    schema = parse_schema({"relations": {"refs": {"min_count": 2}}})
    doc = parse("[[a]] [[a|again]] `[[b]]`\n")
    (violation,) = check_article(schema, doc)
    assert violation.field == "relations.refs" and violation.message.startswith("1 outgoing")
