"""`canon lint --fix`: byte-exact, atomic, idempotent rewrites; reports what remains; nothing else changes."""

from __future__ import annotations

import os
import stat

from tests.canon.lint.conftest import LONG_BODY, Store
from tests.conftest import Result


def fix(store: Store, *args: str) -> Result:
    return store.lint("--fix", "--json", *args)


def test_quoting_fixes_are_byte_exact(store: Store) -> None:
    path = store.article(
        "a",
        "---\r\ncapsule: yes\r\nupdated: 2026-01-01\r\nowner:   someone  # keep me\r\n"
        "aliases:\r\n  - A\r\n---\r\n" + LONG_BODY.replace("\n", "\r\n"),
    )
    store.article("b", "---\n# leading comment\ncapsule: Loads config: env beats file\nscope: rule\n---\n" + LONG_BODY)
    result = fix(store)
    assert result.code == 0, result
    assert (
        path.read_bytes()
        == (
            '---\r\ncapsule: "yes"\r\nupdated: 2026-01-01\r\nowner:   someone  # keep me\r\n'
            "aliases:\r\n  - A\r\n---\r\n" + LONG_BODY.replace("\n", "\r\n")
        ).encode()
    )
    assert (store.canon / "articles" / "b.md").read_text() == (
        '---\n# leading comment\ncapsule: "Loads config: env beats file"\nscope: rule\n---\n' + LONG_BODY
    )
    doc = result.json()
    assert doc["findings"] == []
    assert sorted((f["path"], f["rules"]) for f in doc["fixed"]) == [
        (".canon/articles/a.md", ["unquoted-value"]),
        (".canon/articles/b.md", ["unquoted-value"]),
    ]


def test_capsule_folding(store: Store) -> None:
    path = store.article(
        "a", "---\ncapsule: >\n  Loads config\n  from two places.\nupdated: 2026-01-01\nx: 1\n---\n" + LONG_BODY
    )
    store.article("b", '---\ncapsule: "first\\nsecond"\n---\n' + LONG_BODY)
    assert fix(store).code == 0
    assert (
        path.read_text() == "---\ncapsule: Loads config from two places.\nupdated: 2026-01-01\nx: 1\n---\n" + LONG_BODY
    )
    assert (store.canon / "articles" / "b.md").read_text() == "---\ncapsule: first second\n---\n" + LONG_BODY


def test_pasted_front_matter_removed_and_missing_capsule_adopted(store: Store) -> None:
    same = store.article(
        "same",
        "---\ncapsule: Same.\nupdated: 2026-01-01\n---\n\n---\ncapsule: Same.\n"
        "updated: 2025-05-05\n---\n\n" + LONG_BODY,
    )
    adopt = store.article("adopt", "---\nowner: me\n---\n---\ncapsule: From the paste.\nowner: me\n---\n" + LONG_BODY)
    result = fix(store)
    assert result.code == 0, result
    assert same.read_text() == "---\ncapsule: Same.\nupdated: 2026-01-01\n---\n" + LONG_BODY
    assert adopt.read_text() == "---\ncapsule: From the paste.\nowner: me\n---\n" + LONG_BODY


def test_conflicting_paste_is_left_and_reported(store: Store) -> None:
    text = "---\ncapsule: Real.\n---\n---\ncapsule: Different.\n---\n" + LONG_BODY
    path = store.article("a", text)
    stray = "---\ncapsule: Real.\n---\n---\ncapsule: Real.\nowner: someone\n---\n" + LONG_BODY
    other = store.article("b", stray)
    result = fix(store)
    assert result.code == 0  # warnings only
    assert path.read_text() == text and other.read_text() == stray
    doc = result.json()
    assert [(f["path"], f["rule"]) for f in doc["findings"]] == [
        (".canon/articles/a.md", "pasted-front-matter"),
        (".canon/articles/b.md", "pasted-front-matter"),
    ]
    assert doc["fixed"] == []


def test_fix_reports_what_remains_and_is_idempotent(store: Store) -> None:
    path = store.article("a", "---\ncapsule: 123\n---\nSee [[nowhere]].\n" + LONG_BODY)
    first = store.lint("--fix")
    assert first.code == 1
    assert first.out == ".canon/articles/a.md:4: error[dead-link] [[nowhere]] names no article\n"
    assert "fixed 1 problem in 1 file" in first.err
    fixed_text = path.read_bytes()
    assert fixed_text.startswith(b'---\ncapsule: "123"\n---\n')
    second = fix(store)
    assert second.json()["fixed"] == [] and path.read_bytes() == fixed_text
    assert [f["rule"] for f in second.json()["findings"]] == ["dead-link"]


def test_fix_keeps_mode_never_writes_through_links_and_leaves_no_temp_files(store: Store) -> None:
    real = store.write("elsewhere/real.md", "---\ncapsule: no\n---\n" + LONG_BODY)
    os.chmod(real, 0o640)
    before = real.read_bytes()
    link = store.canon / "articles" / "linked.md"
    link.symlink_to(real)
    result = fix(store)
    assert result.code == 1 and [f["rule"] for f in result.json()["findings"]] == ["symlink"]
    assert link.is_symlink() and real.read_bytes() == before
    plain = store.article("plain", "---\ncapsule: no\n---\n" + LONG_BODY)
    os.chmod(plain, 0o640)
    fix(store)
    assert plain.read_text().startswith('---\ncapsule: "no"\n')
    assert stat.S_IMODE(os.stat(plain).st_mode) == 0o640
    assert sorted(os.listdir(store.root / "elsewhere")) == ["real.md"]
    assert sorted(os.listdir(store.canon / "articles")) == ["linked.md", "plain.md"]


def test_without_fix_nothing_changes(store: Store) -> None:
    store.article("a", "---\ncapsule: yes\n---\n---\ncapsule: yes\n---\n" + LONG_BODY)
    store.article("b", "---\ncapsule: >\n  two\n  lines\n---\n" + LONG_BODY)
    store.journal("2026-01-01-x.md", "---\nsubject: [a]\nlogged: 2026-01-01T00:00:00Z\n---\ntext\n")
    before = store.snapshot()
    for args in ((), ("--format", "sarif"), ("--format", "github"), ("--json",), ("--strict",)):
        result = store.lint(*args)
        assert result.code == (1 if "--strict" in args else 0)  # warnings only
    assert store.snapshot() == before


def test_fix_never_touches_the_journal(store: Store) -> None:
    store.article("a", body=LONG_BODY)
    entry = store.journal("2026-01-01-x.md", "---\nsubject: [a]\ncapsule: yes\nlogged: 2026-01-01T00:00:00Z\n---\nt\n")
    before = entry.read_bytes()
    fix(store)
    assert entry.read_bytes() == before


def test_fix_does_not_touch_updated_or_unrelated_files(store: Store) -> None:
    store.article("clean", body=LONG_BODY)
    store.article("dirty", "---\ncapsule: on\nupdated: 2020-01-01\n---\n" + LONG_BODY)
    before = store.snapshot()
    fix(store)
    after = store.snapshot()
    changed = sorted(k for k in after if after[k] != before.get(k))
    assert changed == [".canon/articles/dirty.md"]
    assert "updated: 2020-01-01" in (store.canon / "articles" / "dirty.md").read_text()


def test_concurrent_fix_runs_agree(store: Store) -> None:
    from tests.conftest import run_many

    for i in range(60):
        store.article(f"m/a{i}", f"---\ncapsule: {'yes' if i % 2 else 'on'}\nowner: x\n---\n" + LONG_BODY)
    results = run_many([["canon", "lint", "--fix"]] * 4, cwd=store.root, timeout=60)
    assert [r.code for r in results] == [0, 0, 0, 0], results
    for i in range(60):
        text = (store.canon / "articles" / "m" / f"a{i}.md").read_text()
        assert text == f'---\ncapsule: "{"yes" if i % 2 else "on"}"\nowner: x\n---\n' + LONG_BODY
    assert len(os.listdir(store.canon / "articles" / "m")) == 60
