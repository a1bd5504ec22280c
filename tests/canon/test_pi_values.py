"""Owned values pi-canon writes unquoted read as the text they show; lint warns, --fix quotes, and
a write of that field heals the line."""

from __future__ import annotations

import pytest

from tests.canon.conftest import MakeStore
from tests.conftest import Run

UNQUOTED = ["yes", "123", "null", "~", "on", "1.5", "0x1F", "2026-01-01", "- item", "? q", "a: b"]


@pytest.mark.parametrize("value", UNQUOTED)
def test_an_unquoted_owned_value_reads_as_its_text_and_is_only_a_warning(
    run: Run, make_store: MakeStore, value: str
) -> None:
    root = make_store(articles={"a": f"---\ncapsule: {value}\n---\nBody.\n"})
    assert run("canon", "read", "--json", "a", cwd=root).json()["capsule"] == value
    lint = run("canon", "lint", "--json", cwd=root)
    assert lint.code == 0, lint
    assert {f["rule"] for f in lint.json()["findings"]} <= {
        "unquoted-value",
        "capsule-changelog",
    }  # a date reads like a log line
    body = run("canon", "write", "a", "--body", "Another body.", cwd=root)
    assert body.code == 0, body  # a write of another field is not refused
    healed = run("canon", "write", "a", "--capsule", value + " now", cwd=root)
    assert healed.code == 0, healed
    fixed = run("canon", "lint", "--json", cwd=root).json()
    assert [f for f in fixed["findings"] if f["rule"] == "unquoted-value"] == [], fixed
