"""Start-up budget: hot commands must not import heavy modules when stdout is not a TTY.

Runs the real installed console scripts under `python -X importtime` and reads which modules
were imported from its report.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import MakeRepo, script

HEAVY = ("pygit2", "watchdog", "rich", "tree_sitter", "tree_sitter_bash", "sqlglot", "bashlex")


def _import_report(stderr: str) -> set[str]:
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


@functools.cache
def wrapper_imports(name: str) -> frozenset[str]:
    """What the console script's own wrapper imports before it calls pylon.

    The wrapper is written by the installer, not by us: pip 23 (what `python3 -m venv` ships)
    writes `import re`, newer pips do not. Its imports are not pylon's start-up cost, so the
    budgets below are checked on what pylon adds (`import sys` and the interpreter's own start are
    in every report anyway)."""
    lines = Path(script(name)).read_text(encoding="utf-8").splitlines()
    own = [ln for ln in lines if ln.startswith(("import ", "from ")) and "pylon" not in ln]
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "\n".join(own) or "pass"], capture_output=True, text=True
    )
    bare = subprocess.run([sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, text=True)
    return frozenset(_import_report(proc.stderr) - _import_report(bare.stderr))


def imported_modules(argv: list[str], cwd: Path) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", script(argv[0]), *argv[1:]],
        cwd=cwd,
        capture_output=True,
        text=True,
    )
    names = _import_report(proc.stderr)
    assert names, f"no import report; stderr was: {proc.stderr[-2000:]}"
    assert "pylon" in names, f"pylon was not imported; stderr was: {proc.stderr[-2000:]}"
    return names - wrapper_imports(argv[0])


@pytest.fixture
def small_store(project: Path) -> Path:
    (project / ".canon" / "articles" / "src").mkdir(parents=True)
    (project / ".canon" / "journal").mkdir(parents=True)
    (project / ".canon" / "articles" / "src" / "app.md").write_text(
        "---\ncapsule: The app.\nupdated: 2026-01-01\n---\nBody text [[src]].\n", encoding="utf-8"
    )
    (project / ".canon" / "articles" / "src.md").write_text("---\ncapsule: Sources.\n---\nAll code.\n" * 1)
    (project / "notes.txt").write_text("one\ntwo\n", encoding="utf-8")
    return project


@pytest.mark.parametrize(
    "argv",
    [
        ["pylon", "--version"],
        ["canon", "read", "src/app"],
        ["canon", "lint"],
        ["pylon", "canon", "read", "src/app"],
        ["pylon", "read", "notes.txt"],
    ],
    ids=lambda a: " ".join(a),
)
def test_hot_commands_skip_heavy_imports(argv: list[str], small_store: Path) -> None:
    names = imported_modules(argv, small_store)
    heavy = sorted(n for n in names if n.split(".")[0] in HEAVY)
    assert not heavy, f"{' '.join(argv)} imported {heavy[:10]}"


@pytest.mark.parametrize(
    "argv",
    [["canon", "read", "src/app"], ["pylon", "read", "notes.txt"], ["canon", "lint"], ["pylon", "canon", "map"]],
    ids=lambda a: " ".join(a),
)
def test_plain_hot_command_lines_skip_typer(argv: list[str], small_store: Path) -> None:
    # The front door (pylon/cli/fastpath.py) answers these without importing typer at all.
    names = imported_modules(argv, small_store)
    assert "typer" not in names and "click" not in names


def test_workspace_commands_skip_heavy_imports(make_repo: MakeRepo, small_store: Path) -> None:
    repo = make_repo({"a.txt": "a\n"})
    for argv in (["pylon", "ws", "changes"], ["pylon", "ws", "fingerprint"], ["pylon", "ws", "diff"]):
        names = imported_modules(argv, repo)
        heavy = sorted(n for n in names if n.split(".")[0] in (*HEAVY, "typer"))
        assert not heavy, f"{' '.join(argv)} imported {heavy[:10]}"


def test_canon_read_does_not_parse_yaml(small_store: Path) -> None:
    names = imported_modules(["canon", "read", "src/app"], small_store)
    assert "yaml" not in names and "frontmatter" not in names


# Standard modules `canon read` once imported and no longer needs: each costs milliseconds of a
# start-up budget of 3x `python -c pass` (docs/benchmarks.md). Imported inside the functions that
# need them (writes, lint, error messages) instead.
NOT_ON_THE_READ_PATH = ("dataclasses", "pathlib", "re", "json", "typing", "shlex", "enum", "inspect", "importlib")


@pytest.mark.parametrize(
    "argv", [["canon", "read", "src/app"], ["pylon", "canon", "read", "src/app"]], ids=lambda a: " ".join(a)
)
@pytest.mark.parametrize("with_schema", [False, True], ids=["no schema", "default schema"])
def test_canon_read_imports_only_what_it_needs(argv: list[str], with_schema: bool, small_store: Path) -> None:
    if with_schema:  # the store `canon init` makes; the first read decodes it and caches the result
        from pylon.canon.schema import dump_default

        (small_store / ".canon" / "schema.json").write_text(dump_default(), encoding="utf-8")
        imported_modules(argv, small_store)
    names = imported_modules(argv, small_store)
    assert "sqlite3" in names  # the journal index: the read really ran
    extra = sorted(n for n in names if n.split(".")[0] in NOT_ON_THE_READ_PATH)
    assert not extra, f"{' '.join(argv)} imported {extra}"


# The plain `pylon read` path too (pylon/workspace/edits: ledger in marshal, paths as strings, no
# regular expressions): each of these would cost start-up time on the command agents call most.
NOT_ON_THE_EDIT_READ_PATH = (*NOT_ON_THE_READ_PATH, "contextlib", "threading", "array", "collections")


@pytest.mark.parametrize("offset", [None, "2"], ids=["whole file", "--offset (next-line hint)"])
def test_pylon_read_imports_only_what_it_needs(offset: str | None, small_store: Path) -> None:
    (small_store / "notes.txt").write_text("".join(f"line {i}\n" for i in range(3000)), encoding="utf-8")
    argv = ["pylon", "read", "notes.txt", *(["--offset", offset] if offset else [])]
    imported_modules(argv, small_store)  # the first read writes the ledger; the second reads it
    names = imported_modules(argv, small_store)
    assert "pylon.workspace.edits.ledger" in names and "hashlib" in names  # the read really ran
    extra = sorted(n for n in names if n.split(".")[0] in NOT_ON_THE_EDIT_READ_PATH)
    assert not extra, f"{' '.join(argv)} imported {extra}"


def test_guard_hook_on_a_safe_event_stays_light(make_repo: MakeRepo) -> None:
    # runs before every shell command an agent issues: the bash grammar only, no SQL parser, no typer
    import json

    repo = make_repo({"a.txt": "a\n"})
    event = json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "cwd": str(repo),
            "tool_input": {"command": "git status && ls"},
        }
    )
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", script("pylon"), "guard", "hook", "claude-code"],
        cwd=repo,
        input=event,
        capture_output=True,
        text=True,
    )
    names = _import_report(proc.stderr) - wrapper_imports("pylon")
    assert proc.returncode == 0 and proc.stdout == "" and {"pylon.guard.shell", "pylon.native"} <= names
    heavy = sorted(n for n in names if n.split(".")[0] in ("pygit2", "watchdog", "rich", "typer", "sqlglot", "yaml"))
    assert not heavy, heavy


def test_pylon_mcp_answers_initialize_without_heavy_imports(small_store: Path) -> None:
    # What an agent waits for at the start of each session: pylon's own stdio server, no SDK, no
    # typing, none of canon's write path (the tools' modules load at the first call).
    init = (
        '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", '
        '"capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}\n'
    )
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", script("pylon"), "mcp", "--harness", "claude-code"],
        cwd=small_store,
        input=init,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert '"protocolVersion":"2025-06-18"' in proc.stdout
    names = _import_report(proc.stderr) - wrapper_imports("pylon")
    assert "pylon.mcp.server" in names
    for heavy in ("mcp", "anyio", "pydantic", "typing", "dataclasses", "pylon.canon.journal"):
        assert heavy not in names, heavy
