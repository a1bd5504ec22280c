"""Single-article rules, positive and negative, through the real `canon lint --json`."""

from __future__ import annotations

import os
from pathlib import Path

from tests.canon.lint.conftest import LONG_BODY, Store, article

A = ".canon/articles/"


def only(store: Store, rule: str) -> list[tuple[str, int]]:
    return [(path, line) for r, path, line in store.rules() if r == rule]


# --- front-matter-invalid ------------------------------------------------------------------------


def test_unterminated_front_matter(store: Store) -> None:
    store.article("a", "---\ncapsule: x\nbody without a closing fence\n")
    assert only(store, "front-matter-invalid") == [(A + "a.md", 1)]


def test_yaml_that_does_not_parse(store: Store) -> None:
    store.article("a", "---\ncapsule: fine\ntags: {a: b\n---\nbody\n")
    found = only(store, "front-matter-invalid")
    assert len(found) == 1 and found[0][0] == A + "a.md"


def test_owned_key_given_twice(store: Store) -> None:
    store.article("a", "---\ncapsule: one\ncapsule: two\n---\nbody\n")
    result = store.lint("--json")
    (f,) = [f for f in result.json()["findings"] if f["rule"] == "front-matter-invalid"]
    assert f["line"] == 3 and "twice" in f["message"] and f["severity"] == "error"


def test_owned_value_yaml_reads_as_boolean(store: Store) -> None:
    store.article("a", "---\ncapsule: yes\n---\nbody\n")
    result = store.lint("--json")
    (f,) = [f for f in result.json()["findings"] if f["rule"] == "unquoted-value"]
    assert f["line"] == 2 and "boolean" in f["message"] and f["fixable"] is True and f["severity"] == "warning"
    assert result.code == 0  # pi-canon writes these: never an error the user did not cause


def test_impossible_date_is_invalid_yaml(store: Store) -> None:
    store.article("a", "---\ncapsule: ok\nupdated: 2026-13-45\n---\nbody\n")
    assert only(store, "front-matter-invalid")


def test_valid_front_matter_shapes_pass(store: Store) -> None:
    store.article(
        "a",
        article(
            extra="owner: team-a # who\naliases:\n  - Config\n  - 'Loader, main'\n"
            'tags: [one, "two three"]\nnested: {k: v}\n# a comment\n',
            body=LONG_BODY,
        ),
    )
    store.article("b", '---\ncapsule: "Quoted: fine"\nupdated: 2026-02-28\nscope: rule\n---\n' + LONG_BODY)
    store.article("c", "No front matter at all; the whole text is the body.\n" + LONG_BODY)
    assert only(store, "front-matter-invalid") == []


# --- capsule rules -------------------------------------------------------------------------------


def test_no_capsule(store: Store) -> None:
    store.article("a", capsule=None)
    store.article("b", "just a body\n")
    store.article("c", capsule='""')
    store.article("d")
    assert sorted(p for p, _ in only(store, "no-capsule")) == [A + "a.md", A + "b.md", A + "c.md"]


def test_capsule_too_long_boundary(store: Store) -> None:
    store.article("ok", capsule="x" * 1000)
    store.article("long", capsule="x" * 1001)
    assert only(store, "capsule-too-long") == [(A + "long.md", 2)]


def test_capsule_multiline(store: Store) -> None:
    store.article("fold", "---\ncapsule: >\n  one line\n  and another\nupdated: 2026-01-01\n---\nbody\n")
    store.article("plain", "---\ncapsule: starts here\n  and continues\n---\nbody\n")
    store.article("one", capsule="One line.")
    assert sorted(only(store, "capsule-multiline")) == [(A + "fold.md", 2), (A + "plain.md", 2)]


def test_capsule_changelog(store: Store) -> None:
    for i, text in enumerate(
        [
            "Added retry to the loader.",
            "fix: handle empty env",
            "2026-01-02: moved to S3",
            "Updated the cache policy",
            "feat(api): new route",
        ]
    ):
        store.article(f"bad{i}", capsule=text)
    for i, text in enumerate(["Adds two numbers.", "Loader for layered config.", "Updates flow from the queue."]):
        store.article(f"good{i}", capsule=text)
    found = sorted(p for p, _ in only(store, "capsule-changelog"))
    assert found == [A + f"bad{i}.md" for i in range(5)]


# --- body size -----------------------------------------------------------------------------------


def test_body_long_and_large_boundaries(store: Store) -> None:
    store.article("b8000", body="x" * 8000 + "\n")
    store.article("b8001", body="x" * 8001 + "\n")
    store.article("b20000", body="x" * 20000 + "\n")
    store.article("b20001", body="x" * 20001 + "\n")
    assert only(store, "body-long") == [(A + "b20000.md", 5), (A + "b8001.md", 5)]
    assert only(store, "body-large") == [(A + "b20001.md", 5)]


def test_pasted_front_matter(store: Store) -> None:
    store.article("p", article(body="\n---\ncapsule: A dense capsule.\n---\nReal body.\n"))
    store.article("hr", article(body="Text.\n\n---\n\nMore text after a rule.\n"))
    assert only(store, "pasted-front-matter") == [(A + "p.md", 6)]


# --- dead-link -----------------------------------------------------------------------------------


def test_dead_and_live_links(store: Store) -> None:
    store.article("src/app", body=LONG_BODY)
    store.article(
        "src",
        body=(
            "Live: [[src/app]], [[src/app|the app]], [[src/app#Setup]], [[src/app.md]], [[ src/app ]].\n"
            "Dead: [[src/gone]] and [[nowhere|label]].\n"
            "Code: `[[in/code]]` and ``[[double `tick`]]``.\n"
            "```\n[[fenced/away]]\n```\n"
            "~~~md\n[[tilde/fence]]\n~~~\n"
            "Self: [[#Heading]]. Image: ![[diagram.png]]. Embed: ![[embedded/note]].\n"
        ),
    )
    result = store.lint("--json")
    dead = [(f["line"], f["message"]) for f in result.json()["findings"] if f["rule"] == "dead-link"]
    assert [line for line, _ in dead] == [6, 6, 14]
    assert dead[0][1] == "[[src/gone]] names no article (src governs it; link [[src]] instead)"
    assert dead[1][1] == "[[nowhere]] names no article"
    assert "embedded/note" in dead[2][1]
    assert result.code == 1


def test_link_above_the_root_is_dead(store: Store) -> None:
    store.article("a", body="[[../../etc/passwd]]\n")
    result = store.lint("--json")
    (f,) = [f for f in result.json()["findings"] if f["rule"] == "dead-link"]
    assert "climbs above" in f["message"]


def test_mount_links(store: Store, tmp_path: Path) -> None:
    lake = tmp_path / "data" / "lake"
    (lake / ".canon" / "articles").mkdir(parents=True)
    (lake / ".canon" / "articles" / "prices.md").write_text(article(body=LONG_BODY), encoding="utf-8")
    store.write(".canon/config.toml", 'mounts = ["../data/lake"]\n')
    store.article("a", body="[[lake:prices]] [[lake:volumes]] [[pond:x]]\n" + LONG_BODY)
    result = store.lint("--json")
    dead = [f["message"] for f in result.json()["findings"] if f["rule"] == "dead-link"]
    assert dead == ["[[lake:volumes]] names no article", "[[pond:x]] names no article and no mount called 'pond'"]


# --- schema --------------------------------------------------------------------------------------


def test_schema_required_is_error_bounds_warn(store: Store) -> None:
    store.write(
        ".canon/schema.json",
        '{"capsule": {"required": true, "hint": "Say what it is."},\n'
        ' "title": {"min_chars": 5}, "body": {"max_chars": 50},\n'
        ' "relations": {"refs": {"min_count": 1}}}\n',
    )
    store.article("missing", capsule=None, body="# Hi\nshort\n")
    store.article("ok", body="# A good title\n[[missing]]\n")
    result = store.lint("--json")
    found = [(f["path"], f["severity"], f["message"]) for f in result.json()["findings"] if f["rule"] == "schema"]
    assert (A + "missing.md", "error", "schema.json requires a capsule (Say what it is.)") in found
    assert (A + "missing.md", "warning", "title has 2 characters, under the schema minimum of 5") in found
    assert any(p == A + "missing.md" and "under the schema minimum of 1" in m for p, _, m in found)
    assert not any(p == A + "ok.md" for p, _, _ in found)
    assert result.code == 1


def test_schema_refs_required(store: Store) -> None:
    store.write(".canon/schema.json", '{"relations": {"refs": {"required": true}}}')
    store.article("lonely", body="No links, only `[[code]]`.\n")
    store.article("linked", body="See [[lonely]].\n")
    found = only(store, "schema")
    assert found == [(A + "lonely.md", 5)]


def test_schema_refs_min_count_counts_case_folded_duplicates_once(store: Store) -> None:
    # As pi-canon's outgoingOf: the target before any `#`, trimmed, lower-cased, counted once.
    store.write(".canon/schema.json", '{"relations": {"refs": {"min_count": 2}}}')
    store.article("x")
    store.article("one", body="[[x]] [[X]] [[ x#Part ]] [[x|label]]\n" + LONG_BODY)
    store.article("two", body="[[x]] [[one]]\n" + LONG_BODY)
    result = store.lint("--json")
    found = [(f["path"], f["message"]) for f in result.json()["findings"] if f["rule"] == "schema"]
    assert found == [
        (A + "one.md", "1 outgoing [[link]](s), under the schema minimum of 2"),
        (A + "x.md", "0 outgoing [[link]](s), under the schema minimum of 2"),
    ]


def test_an_over_long_capsule_is_one_warning_when_the_schema_bounds_it(store: Store) -> None:
    long = "x" * 1001
    store.article("a", capsule=long)
    assert [r for r, _, _ in store.rules()] == ["capsule-too-long"]  # no schema: the fixed cap
    store.write(".canon/schema.json", '{"article": {"capsule": {"max_chars": 1000}}}')
    found = [(f["rule"], f["message"]) for f in store.lint("--json").json()["findings"]]
    assert found == [("schema", "capsule has 1001 characters, over the schema maximum of 1000")]
    store.write(".canon/schema.json", '{"article": {"capsule": {"max_chars": 2000}}}')
    assert store.rules() == []  # the store's own bound allows it


def test_broken_schema_is_reported_and_ignored(store: Store) -> None:
    store.write(
        ".canon/schema.json",
        '{"article": {\n  "capsule": {"required": true, "colour": 3},\n  "bogus": 1,\n'
        '  "body": {"max_chars": -2}\n}}\n',
    )
    store.article("a", capsule=None)
    result = store.lint("--json")
    schema = [f for f in result.json()["findings"] if f["rule"] == "schema"]
    on_file = [(f["line"], f["severity"]) for f in schema if f["path"] == ".canon/schema.json"]
    assert on_file == [(2, "warning"), (3, "warning"), (4, "warning")]
    # The valid part still applies.
    assert any(f["path"] == A + "a.md" and f["severity"] == "error" for f in schema)


def test_unparsable_schema_is_a_warning_not_a_failure(store: Store) -> None:
    store.write(".canon/schema.json", "{ not json")
    store.article("a", body=LONG_BODY)
    result = store.lint("--json")
    assert result.code == 0
    (f,) = result.json()["findings"]
    assert f["rule"] == "schema" and f["severity"] == "warning" and "not valid JSON" in f["message"]


# --- unreadable ----------------------------------------------------------------------------------


def test_invalid_utf8_folder_and_broken_link(store: Store) -> None:
    store.article("bytes", b"---\ncapsule: ok\n---\nline\n\xff\xfe bad\n")
    (store.canon / "articles" / "dir.md").mkdir()
    (store.canon / "articles" / "broken.md").symlink_to(store.root / "nowhere.md")
    os.mkfifo(store.canon / "articles" / "fifo.md")  # must not hang lint
    before = store.snapshot()
    result = store.lint("--json")
    found = {(f["path"], f["line"]) for f in result.json()["findings"] if f["rule"] == "unreadable"}
    assert found == {(A + "bytes.md", 5), (A + "dir.md", 1), (A + "broken.md", 1), (A + "fifo.md", 1)}
    assert result.code == 1
    assert store.snapshot() == before
