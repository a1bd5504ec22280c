"""schema.json in pi-canon 0.3's shape is the shape pylon reads, enforces and writes; the earlier
flat shape keeps working with a warning; a broken file is reported by write and read too."""

from __future__ import annotations

import json
from pathlib import Path

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article
from tests.conftest import Run

PI_SHAPE = {
    "schema_version": 1,
    "about": "From pi-canon.",
    "article": {
        "capsule": {"required": True, "hint": "One line."},
        "title": {"required": False},
        "body": {"max_chars": 20000},
    },
    "relations": {"refs": {"required": False}, "orphan": {"warn": False}, "children": {"listed": False}},
}


def test_init_writes_pi_canons_shape(run: Run, project: Path) -> None:
    assert run("canon", "init", cwd=project).code == 0
    data = json.loads((project / ".canon/schema.json").read_text())
    assert list(data) == ["schema_version", "about", "article", "relations"]
    assert set(data["article"]) == {"capsule", "title", "body"}
    assert set(data["relations"]) == {"refs", "orphan", "children"}
    lint = run("canon", "lint", "--json", cwd=project)
    assert lint.code == 0 and lint.json()["findings"] == [], lint


def test_pi_canons_shape_is_enforced_without_a_warning(run: Run, make_store: MakeStore) -> None:
    root = make_store(files={".canon/schema.json": json.dumps(PI_SHAPE)})
    r = run("canon", "write", "--json", "a", "--body", "No capsule.", cwd=root)
    assert r.code == 1 and r.json()["error"]["code"] == "schema-required", r
    ok = run("canon", "write", "a", "--capsule", "C.", "--body", "Body.", cwd=root)
    assert ok.code == 0 and "schema" not in ok.err, ok


def test_the_flat_shape_still_works_with_a_warning(run: Run, make_store: MakeStore) -> None:
    root = make_store(files={".canon/schema.json": json.dumps({"capsule": {"required": True}})})
    r = run("canon", "write", "--json", "a", "--body", "No capsule.", cwd=root)
    assert r.json()["error"]["code"] == "schema-required", r
    lint = run("canon", "lint", "--json", cwd=root).json()
    assert any("top level" in f["message"] for f in lint["findings"] if f["rule"] == "schema")


def test_a_broken_schema_is_reported_by_write_and_read(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"a": article("A.")}, files={".canon/schema.json": "{ not json"})
    w = run("canon", "write", "--json", "a", "--body", "New body.", cwd=root)
    assert w.code == 0 and any(
        a["rule"] == "schema" and "not valid JSON" in a["message"] for a in w.json()["advice"]
    ), w
    r = run("canon", "read", "--json", "a", cwd=root)
    assert any("not valid JSON" in n for n in r.json()["notes"]), r
    unknown = make_store(articles={"b": article("B.")}, files={".canon/schema.json": '{"article": {"capsul": {}}}'})
    r = run("canon", "read", "--json", "b", cwd=unknown)
    assert any("capsul" in n for n in r.json()["notes"]), r


def test_lint_fix_rewrites_the_flat_shape_into_pi_canons(run: Run, make_store: MakeStore) -> None:
    flat = {"capsule": {"required": True}, "relations": {"refs": {"min_count": 0}}}
    root = make_store(articles={"a": article("A.")}, files={".canon/schema.json": json.dumps(flat)})
    r = run("canon", "lint", "--fix", "--json", cwd=root)
    assert "schema" in [rule for f in r.json()["fixed"] for rule in f["rules"]], r
    data = json.loads((root / ".canon/schema.json").read_text())
    assert data == {
        "schema_version": 1,
        "article": {"capsule": {"required": True}},
        "relations": {"refs": {"min_count": 0}},
    }
    again = run("canon", "lint", "--json", cwd=root)
    assert again.code == 0 and again.json()["findings"] == [], again
