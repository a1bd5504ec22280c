"""The typer-free front door (canon_fast.py) and the typer app answer every command line the same."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.canon.helpers import article, entry
from tests.conftest import run_cmd

TYPER = (
    "import sys; from pylon.cli.runner import run; from pylon.cli.canon_cmds import build_canon_app; "
    "sys.exit(run(build_canon_app, sys.argv[1:], 'canon'))"
)


def via_typer(*args: str, cwd: Path, input: str | None = None):  # type: ignore[no-untyped-def]
    return run_cmd(sys.executable, "-c", TYPER, *args, cwd=cwd, input=input)


@pytest.fixture
def store(make_store) -> Path:  # type: ignore[no-untyped-def]
    return make_store(
        articles={"src": article("Sources.", "All code. It must never block.\n"), "src/core/config": article("Config.")},
        journal={"2026-01-01-a.md": entry("[src]", "2026-01-01T00:00:00Z")},
        files={"src/core/config.ts": "x", "src/app.py": "x"},
    )


READ_ONLY = [
    ["read", "src/app.py"],
    ["read", "--json", "src/core/config.ts"],
    ["read", "src/core/config.ts", "--root", "."],
    ["-C", "src", "read", "app.py"],
    ["--color", "never", "read", "src"],
    ["read", "nothing"],
    ["read", "--json", "nothing"],
    ["read", "../out"],
    ["read", "src", "--mount", "missing"],
    ["-C", "missing", "read", "src"],
    ["resolve", "src/app.py", "docs/x", "--explain"],
    ["resolve", "--json", "src/core/config.ts"],
    ["map"],
    ["map", "--json", "src/core"],
    ["search", "config", "--limit", "1"],
    ["search", "--journal", "--json", "never"],
    ["status"],
    ["status", "--json"],
    ["journal", ""],
    ["write", "new", "--capsule=Cap."],
]


@pytest.mark.parametrize("argv", READ_ONLY, ids=" ".join)
def test_same_answer_with_and_without_typer(run, store: Path, argv: list[str]) -> None:
    fast = run("canon", *argv, cwd=store)
    slow = via_typer(*argv, cwd=store)
    assert (fast.code, fast.out, fast.err) == (slow.code, slow.out, slow.err)


WRITES = [
    ["write", "src/app.py", "--capsule", "The app.", "--body", "It must run. Always."],
    ["write", "src", "--body", "Shorter."],
    ["write", "--json", "src", "--scope", "rule"],
    ["journal", "Raised `timeout` to 30s.", "--subject", "src/app.py", "--slug", "Timeout"],
    ["journal", "--json", "--body-file", "-", "--subject", "src", "--subject", "src/core/config"],
    ["init"],
]


@pytest.mark.parametrize("argv", WRITES, ids=" ".join)
def test_writes_land_the_same_with_and_without_typer(run, store: Path, tmp_path: Path, argv: list[str]) -> None:
    twin = tmp_path / "twin"
    shutil.copytree(store, twin)
    fast = run("canon", *argv, cwd=store, input="piped text\n")
    slow = via_typer(*argv, cwd=twin, input="piped text\n")
    normalize = lambda s, root: s.replace(str(root), "ROOT")  # noqa: E731
    assert fast.code == slow.code == 0, (fast, slow)
    if "--json" in argv and argv[0] == "journal":
        f, s = fast.json(), slow.json()
        assert f["name"] == s["name"] and f["subjects"] == s["subjects"]
    else:
        assert normalize(fast.out, store) == normalize(slow.out, twin)
        assert normalize(fast.err, store) == normalize(slow.err, twin)
    for path in sorted(p.relative_to(store) for p in store.rglob("*") if p.is_file() and ".cache" not in p.parts):
        a, b = (store / path).read_text(), (twin / path).read_text()
        if path.parts[:2] == (".canon", "journal"):
            a, b = a.split("logged:")[0], b.split("logged:")[0]
        assert a == b, path


@pytest.mark.parametrize(
    "argv",
    [["read", "--help"], ["read"], ["read", "a", "b"], ["read", "x", "--bogus"], ["search", "x", "--limit", "many"],
     ["--version"], ["write", "x", "--json=yes"], ["resolve"]],
    ids=" ".join,
)
def test_unusual_command_lines_fall_back_to_typer(run, store: Path, argv: list[str]) -> None:
    fast = run("canon", *argv, cwd=store)
    slow = via_typer(*argv, cwd=store)
    assert (fast.code, fast.out, fast.err) == (slow.code, slow.out, slow.err)
    assert "Traceback" not in fast.err


def test_pylon_canon_is_the_same_command(run, store: Path) -> None:
    for argv in (["read", "src/app.py"], ["resolve", "--explain", "src/app.py"], ["read", "--help"]):
        a = run("canon", *argv, cwd=store)
        b = run("pylon", "canon", *argv, cwd=store)
        assert (a.code, a.out, a.err) == (b.code, b.out.replace("pylon canon", "canon"), b.err)
