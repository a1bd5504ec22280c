"""The conventions every command shares: version, usage errors, -C, JSON envelope, crash logs."""

from __future__ import annotations

import json
from pathlib import Path

from pylon import __version__
from tests.conftest import Run


def test_version_prints_and_exits_zero(run: Run) -> None:
    res = run("pylon", "--version")
    assert res.code == 0
    assert res.out == f"pylon {__version__}\n"
    assert res.err == ""


def test_canon_script_is_the_same_app(run: Run) -> None:
    res = run("canon", "--version")
    assert res.code == 0 and res.out.startswith("pylon ")
    helped = run("canon", "--help")
    assert helped.code == 0 and "init" in helped.out


def test_unknown_option_is_usage_error_exit_2(run: Run) -> None:
    res = run("pylon", "--bogus")
    assert res.code == 2
    assert res.err.startswith("error[usage]: No such option: --bogus")
    assert "hint: pylon --help" in res.err
    assert res.out == ""


def test_usage_error_in_json_mode_is_one_envelope(run: Run) -> None:
    res = run("pylon", "guide", "nope", "--json")
    assert res.code == 2
    doc = json.loads(res.out)
    assert doc["ok"] is False
    assert doc["error"]["code"] == "usage"
    assert set(doc["error"]) >= {"code", "message", "hint"}


def test_bare_group_prints_help_and_exits_2(run: Run) -> None:
    res = run("pylon")
    assert res.code == 2
    assert "Commands" in res.out and "canon" in res.out and "ws" in res.out


def test_dash_c_missing_directory(run: Run, tmp_path: Path) -> None:
    res = run("pylon", "-C", str(tmp_path / "nope"), "guide")
    assert res.code == 2
    assert res.err.startswith("error[bad-directory]: Cannot run in")


def test_guide_lists_every_part(run: Run) -> None:
    res = run("pylon", "guide")
    assert res.code == 0
    for word in ("canon", "pylon read", "pylon edit", "pylon ws", "pylon guard", "exit"):
        assert word in res.out
    guard = run("pylon", "guide", "guard")
    assert guard.code == 0 and guard.out.startswith("## guard") and "pylon ws undo" in guard.out


def test_no_colour_on_a_pipe(run: Run) -> None:
    res = run("pylon", "--bogus")
    assert "\x1b[" not in res.err


def test_colour_always_forces_ansi(run: Run) -> None:
    res = run("pylon", "--color", "always", "guide", "nope")
    assert "\x1b[" in res.err
