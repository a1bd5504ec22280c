"""The journal's value warning matches whole tokens and leaves test names alone."""

from __future__ import annotations

from pathlib import Path

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article
from tests.conftest import Run


def _warned(run: Run, root: Path, text: str) -> str:
    r = run("canon", "journal", "--json", text, "--subject", "a", cwd=root)
    assert r.code == 0, r
    return " ".join(a["message"] for a in r.json()["advice"] if a["rule"] == "values-not-in-article")


def test_a_number_inside_a_longer_number_is_not_present(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"a": article("A.", "The pool holds 142s of backlog and max_pool_size_x.\n")})
    assert "`42s`" in _warned(run, root, "Raised the timeout to 42s.")
    assert "max_pool_size" in _warned(run, root, "Set max_pool_size to match.")
    assert _warned(run, root, "Backlog is 142s again.") == ""


def test_test_names_are_not_facts(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"a": article("A.", "Body.\n")})
    assert _warned(run, root, "Fixed test_pool_timeout and TestPoolLimits; tests/test_x.py::test_edge passes.") == ""
