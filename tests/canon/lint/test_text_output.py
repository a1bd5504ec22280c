"""Text output: bounded to 200 findings by default (`--all` shows every one), coloured on a TTY only."""

from __future__ import annotations

import re
import sys

import pytest

from tests.canon.lint.conftest import LONG_BODY, Store
from tests.canon.lint.test_formats import TEXT_LINE, seeded
from tests.conftest import Result, run_cmd, run_on_terminal

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def many_findings(store: Store, dead: int = 230, uncapsuled: int = 20) -> Store:
    """`dead` dead links in links.md, then `uncapsuled` articles without a capsule (sorted after it)."""
    store.article("links", body="".join(f"[[gone-{i}]]\n" for i in range(dead)) + LONG_BODY)
    for i in range(uncapsuled):
        store.article(f"n{i:02d}", capsule=None, body=LONG_BODY)
    return store


def test_text_shows_the_first_200_and_counts_the_rest_per_rule(store: Store) -> None:
    many_findings(store)
    every = store.lint("--all")
    assert every.code == 1
    all_lines = every.out.splitlines()
    assert len(all_lines) == 250 and all(TEXT_LINE.match(line) for line in all_lines), every
    assert "more finding" not in every.err

    bounded = store.lint()
    assert bounded.code == 1  # the exit status counts everything
    assert bounded.out.splitlines() == all_lines[:200]
    assert bounded.err.splitlines() == [
        "... and 50 more findings (dead-link 30, no-capsule 20); canon lint --all shows all",
        "canon lint: 230 errors, 20 warnings in 21 articles, 0 journal entries.",
    ]


def test_machine_formats_stay_complete(store: Store) -> None:
    many_findings(store)
    doc = store.lint("--json").json()
    assert len(doc["findings"]) == 250 and (doc["errors"], doc["warnings"]) == (230, 20)
    assert len(store.lint("--format", "github").out.splitlines()) == 250
    sarif = store.lint("--format", "sarif").json()
    assert len(sarif["runs"][0]["results"]) == 250


def test_exactly_the_limit_needs_no_note(store: Store) -> None:
    many_findings(store, dead=199, uncapsuled=1)
    result = store.lint()
    assert len(result.out.splitlines()) == 200
    assert result.err.splitlines() == ["canon lint: 199 errors, 1 warning in 2 articles, 0 journal entries."]


def test_one_left_out_is_singular_and_typer_accepts_all(store: Store) -> None:
    many_findings(store, dead=201, uncapsuled=0)
    result = store.lint()
    assert "... and 1 more finding (dead-link 1); canon lint --all shows all" in result.err.splitlines()
    every = store.lint("--all")
    assert every.code == 1 and len(every.out.splitlines()) == 201, every


def lint_with_root_options(store: Store, *options: str, env: dict[str, str] | None = None) -> Result:
    """`canon <options> lint`: --color is a root option, given before the command."""
    return run_cmd("canon", *options, "lint", cwd=store.root, env=env)


def test_color_always_paints_severities_and_dims_rules(store: Store) -> None:
    seeded(store)
    plain = store.lint()
    painted = lint_with_root_options(store, "--color", "always")
    assert painted.code == plain.code == 1
    assert "\x1b[31;1merror\x1b[0m\x1b[2m[dead-link]\x1b[0m" in painted.out
    assert "\x1b[33mwarning\x1b[0m\x1b[2m[no-capsule]\x1b[0m" in painted.out
    assert ANSI.sub("", painted.out) == plain.out


@pytest.mark.parametrize(
    "how", [{}, {"args": ("--color", "never")}, {"env": {"NO_COLOR": "1"}}], ids=["pipe", "never", "NO_COLOR"]
)
def test_no_colour_on_a_pipe_or_when_turned_off(store: Store, how: dict) -> None:
    seeded(store)
    result = lint_with_root_options(store, *how.get("args", ()), env=how.get("env"))
    assert result.code == 1 and result.out and "\x1b" not in result.out, result


def on_a_tty(store: Store, env: dict[str, str] | None = None) -> str:
    """stdout of `canon lint` when stdout is a terminal (a pseudo-terminal), as text."""
    code, out = run_on_terminal("canon", "lint", cwd=store.root, env=env, timeout=30)
    assert code == 1
    return out.decode("utf-8")


@pytest.mark.skipif(not sys.platform.startswith(("linux", "darwin")), reason="needs a pseudo-terminal")
def test_a_terminal_gets_colour_unless_no_color(store: Store) -> None:
    seeded(store)
    assert "\x1b[31;1merror\x1b[0m" in on_a_tty(store)
    assert "\x1b" not in on_a_tty(store, {"NO_COLOR": "1"})
