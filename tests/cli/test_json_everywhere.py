"""`--json` on every command, and one shape for the two streaming commands' JSON Lines.

The hook commands are the documented exception (docs/reference/cli.md, "Output"): what they print is already
the JSON the agent reads, in the agent's own format, or nothing at all (which the agent reads as
no objection); a pylon envelope around it would break the agent's contract.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from pylon.cli import commands as registry
from pylon.cli.spec import Command
from tests.conftest import MakeRepo, script, write_files

HOOKS = {"canon hook claude-code", "canon hook codex", "guard hook", "hook claude-code", "hook codex"}
SERVERS = {"mcp"}  # stdout is the MCP protocol; each tool answers with its command's --json document
ROOT = Path(__file__).resolve().parents[2]


def run_json(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[dict[str, object]]]:
    from pylon.cli.main import run

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    monkeypatch.setattr(sys, "stdout", out)
    code = run("pylon", argv)
    assert isinstance(out.buffer, io.BytesIO)
    return code, [json.loads(line) for line in out.buffer.getvalue().decode().splitlines() if line.strip()]


def test_every_command_takes_json_but_the_hooks() -> None:
    without = {c.name for c in registry.COMMANDS if not c.option("--json") and not c.option("--format")}
    assert without == HOOKS | SERVERS
    conventions = (ROOT / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")
    for name in HOOKS | SERVERS:
        assert f"`{name}" in conventions, f"docs/reference/cli.md must say why {name} takes no --json"


@pytest.mark.parametrize(
    "argv",
    [
        ["help", "--json"],
        ["help", "ws", "--json"],
        ["help", "ws", "diff", "--json"],
        ["completion", "bash", "--json"],
        ["guide", "edits", "--json"],
    ],
)
def test_help_completion_and_guide_print_one_document(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, docs = run_json(argv, monkeypatch)
    assert code == 0 and len(docs) == 1 and docs[0]["ok"] is True
    if argv[:1] == ["help"] and len(argv) == 4:
        options = docs[0]["options"]
        assert isinstance(options, list)
        command = registry.lookup("ws diff")
        assert isinstance(command, Command) and [o["name"] for o in options] == [o.name for o in command.opts]
    if argv[:1] == ["completion"]:
        assert "_PYLON_COMPLETE" in str(docs[0]["script"])


def test_help_json_of_an_unknown_command_is_an_error_document(monkeypatch: pytest.MonkeyPatch) -> None:
    code, docs = run_json(["help", "nosuch", "--json"], monkeypatch)
    assert code == 2 and docs == [{"ok": False, "error": docs[0]["error"]}]


def _stream(argv: list[str], cwd: Path) -> list[dict[str, object]]:
    proc = subprocess.run(
        [script("pylon"), *argv, "--json", "--timeout", "1"], cwd=cwd, capture_output=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.decode().splitlines() if line.strip()]


def test_both_watchers_stream_one_shape_with_a_ready_event_first(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "a\n"})
    assert subprocess.run([script("canon"), "init"], cwd=repo, capture_output=True).returncode == 0
    write_files(repo, {".canon/articles/x.md": "---\ncapsule: X.\n---\nBody [[nowhere]].\n"})
    for argv in (["ws", "watch", "--since", "HEAD"], ["canon", "watch"]):
        lines = _stream(argv, repo)
        assert lines and lines[0]["event"] == "ready", (argv, lines[:1])
        assert all(list(line)[:2] == ["ok", "event"] and line["ok"] is True for line in lines), (argv, lines)
    batches = [line for line in _stream(["ws", "watch", "--since", "HEAD"], repo) if line["event"] == "batch"]
    assert batches and batches[0]["initial"] is True


def test_a_stream_that_fails_ends_with_an_error_event(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "a\n"})
    proc = subprocess.run(
        [script("pylon"), "ws", "watch", "--json", "--timeout", "1", "--since", "nosuch~9"],
        cwd=repo,
        capture_output=True,
        timeout=60,
    )
    lines = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert proc.returncode == 2 and lines[-1]["ok"] is False and lines[-1]["event"] == "error"
    assert lines[-1]["error"]["code"] == "bad-revision"
