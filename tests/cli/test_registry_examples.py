"""Every registry example runs: each Command's `example` (what `--help`, docs/reference.md and the
docs show) is executed through the installed console script in a scratch git repository, and ends
with a status its own command documents as success, with no traceback and no `internal-error`.

The scratch repository (built once, by the one worker that runs this module; copied for each
example) has a small canon store (articles for src/app.py, src/core/config.py, src/old,
src/net/client.py), the files the examples name (src/app.py of 250 lines, docs/intro.md, a Makefile
with `generate`, an ignored .env, event.json), a `start` baseline, and an uncommitted change to
src/app.py. An example that needs a
prior step (an owned worktree, an op to undo) gets it from SETUP, next to this test; an example
that demonstrates a finding exits 1, as EXIT says. If an example fails here, fix the example in
the registry (it is what users read), not this table.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from pylon.cli import commands as registry
from tests.conftest import Result, git, run_cmd, write_files

pytestmark = pytest.mark.xdist_group("examples")  # one worker builds the template (scripts/test: --dist loadgroup)

# Prior steps, in order, run in the scratch repository before the example (command lines, each must
# exit 0). `agent-1`/`agent-2` are owned worktrees made from the checkout's current state.
NEW_1 = "pylon ws new agent-1"
NEW_2 = "pylon ws new agent-2"
SESSION_EDIT = "pylon ws run --in agent-1 -- sh -c 'echo retries = 2 >> src/net/client.py'"
# A Claude Code transcript (in the test's own HOME) for `pylon tokens ID`: one request, one tool call.
TRANSCRIPT = "\n".join(
    [
        (
            '{"type":"assistant","sessionId":"05defe4d-0000-4000-8000-000000000000","cwd":".","timestamp":"2026-01-01T00:00:00Z",'
            '"message":{"id":"msg_1","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_1","name":"Bash",'
            '"input":{"command":"ls"}}],"usage":{"input_tokens":12,"output_tokens":5}}}'
        ),
        (
            '{"type":"user","sessionId":"05defe4d-0000-4000-8000-000000000000","cwd":".","timestamp":"2026-01-01T00:00:01Z",'
            '"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"src"}]}}'
        ),
        "",
    ]
)
CLAUDE_SESSION = shlex.join(
    [
        "pylon",
        "ws",
        "run",
        "--",
        "sh",
        "-c",
        (
            'mkdir -p "$HOME/.claude/projects/p" && printf %s "$0" > '
            '"$HOME/.claude/projects/p/05defe4d-0000-4000-8000-000000000000.jsonl"'
        ),
        TRANSCRIPT,
    ]
)
SETUP: dict[str, list[str]] = {
    "tokens": [CLAUDE_SESSION],
    "edit": ["pylon read src/app.py"],  # the example's tag is the one this read prints (see TAG)
    "canon hook uninstall": ["canon hook install codex --user"],
    "guard uninstall": ["pylon guard install codex --user"],
    "ws path": [NEW_1],
    "ws rm": [NEW_1],
    "ws conflicts": [NEW_1, NEW_2],
    "ws apply": [NEW_1, SESSION_EDIT],
    "ws sync": [NEW_1],
    "ws finish": [NEW_1, SESSION_EDIT],
    "ws move": [NEW_1, SESSION_EDIT],
    "ws undo": [NEW_1, SESSION_EDIT, "pylon ws apply agent-1"],
    "ws redo": [NEW_1, SESSION_EDIT, "pylon ws apply agent-1", "pylon ws undo"],
    # op-4: the second apply (the numbers are the repository's: the two `ws run` in agent-1 are shell
    # ops 1 and 3 of that worktree, the applies 2 and 4 of the checkout, the restore 5), so
    # `op-4:before` names a kept state of the checkout.
    "ws restore": [
        NEW_1,
        SESSION_EDIT,
        "pylon ws apply agent-1",
        SESSION_EDIT.replace("2", "3"),
        "pylon ws apply agent-1",
        "pylon ws restore start",
    ],
}
# Status the example's command documents as success when it is not 0, and why.
EXIT: dict[str, int] = {
    "canon check": 1,  # src/app.py is staged with no change to its article: the gate's finding (exit 1)
    "guard check": 1,  # `git clean -fdx` is not safe: exit 1 with the verdict ("Exit 0 when safe, 1 otherwise")
}
# Commands that run until stopped: the example runs with this bound added (the watchers' --timeout).
UNTIL_STOPPED = {"canon watch": ["--timeout", "0.3"], "ws watch": ["--timeout", "0.3"]}
TAG = re.compile(r"#([0-9a-f]{12})\b")

APP = "".join(f"line_{n} = {n}\n" for n in range(1, 251))
FILES: dict[str, str | bytes] = {
    "src/app.py": APP,
    "src/core/config.py": "TIMEOUT = 30\n",
    "src/net/client.py": "RETRIES = 1\n",
    "src/old/thing.py": "x = 1\n",
    "docs/intro.md": "# Intro\n",
    "Makefile": "generate:\n\techo generated > generated.txt\n",
    ".gitignore": ".env\nevent.json\ngenerated.txt\n",
}
EVENT = {
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "session_id": "s1",
    "tool_input": {"command": "rm -rf build/"},
}
_TEMPLATE: list[Path] = []


def _ok(result: Result, line: str) -> Result:
    assert result.code == 0, f"setup step `{line}` failed: {result!r}"
    return result


def _template(factory: pytest.TempPathFactory) -> Path:
    """The scratch repository every example starts from (built once per worker: one worker, see pytestmark)."""
    if _TEMPLATE:
        return _TEMPLATE[0]
    repo = factory.mktemp("examples") / "template"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write_files(repo, FILES)
    for address, capsule in (
        ("src/app.py", "Entry point; parses flags."),
        ("src/core", "Configuration."),
        ("src/old", "The old layout."),
        ("src/net/client.py", "HTTP client with retry."),
    ):
        _ok(
            run_cmd(
                "canon", "write", address, "--capsule", capsule, "--body", f"About {address}: retry timeout.", cwd=repo
            ),
            "canon write",
        )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    _ok(run_cmd("pylon", "ws", "baseline", "start", cwd=repo), "ws baseline start")
    write_files(
        repo,
        {
            "src/app.py": APP.replace("line_3 = 3\n", "line_3 = 'three'\n"),
            ".env": "TOKEN=x\n",
            "event.json": json.dumps({**EVENT, "cwd": str(repo)}),
        },
    )
    _TEMPLATE.append(repo)
    return repo


def _run_line(line: str, cwd: Path, extra: list[str] | None = None) -> Result:
    """One example or setup line: a plain command line, `printf ... | CMD`, `CMD < FILE` or
    `eval "$(CMD)"` (the completion script, which is then evaluated by bash too)."""
    stdin: bytes | None = None
    if line.startswith("eval "):
        inner = re.fullmatch(r'eval "\$\((.+)\)"', line)
        assert inner, line
        result = _run_line(inner.group(1), cwd)
        if result.code == 0:
            proc = subprocess.run(["bash", "-c", result.out], cwd=cwd, capture_output=True, text=True, timeout=30)
            assert proc.returncode == 0, f"bash cannot evaluate the script `{line}` prints: {proc.stderr}"
        return result
    if " | " in line:
        producer, line = line.split(" | ", 1)
        stdin = subprocess.run(["sh", "-c", producer], cwd=cwd, capture_output=True, check=True).stdout
    words = shlex.split(line)
    if "<" in words:
        at = words.index("<")
        stdin = (cwd / words[at + 1]).read_bytes()
        words = words[:at] + words[at + 2 :]
    if extra:
        words = words[:1] + words[1:] + extra
    return run_cmd(*words, cwd=cwd, input=stdin if stdin is not None else b"")


COMMANDS = list(registry.COMMANDS)
SERVERS = {"serve"}  # runs until Ctrl-C: started, read until it prints its URL, then interrupted


def _serve_until_ready(line: str, cwd: Path) -> Result:
    """A server's example as a real process: it must print its URL, then stop cleanly on SIGINT."""
    import os
    import signal

    env = {k: v for k, v in os.environ.items() if k != "BROWSER"}
    proc = subprocess.Popen(shlex.split(line), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().decode()
        assert "http://127.0.0.1:" in first, first
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return Result(proc.returncode, first + out.decode(), err.decode(), shlex.split(line))


def test_the_tables_name_registry_commands() -> None:
    names = {c.name for c in COMMANDS}
    for table in (SETUP, EXIT, UNTIL_STOPPED):
        assert set(table) <= names, set(table) - names


@pytest.mark.parametrize("command", COMMANDS, ids=[c.name for c in COMMANDS])
def test_the_example_runs(command: registry.Command, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(_template(tmp_path_factory), repo, symlinks=True)
    if command.name == "canon check":
        git(repo, "add", "src/app.py")
    example = command.example
    for step in SETUP.get(command.name, []):
        result = _ok(_run_line(step, repo), step)
        if command.name == "edit" and step.startswith("pylon read"):
            found = TAG.search(result.out)
            assert found, result
            example = TAG.sub(f"#{found.group(1)}", example)
    if command.name in SERVERS:
        result = _serve_until_ready(example, repo)
    else:
        result = _run_line(example, repo, UNTIL_STOPPED.get(command.name))
    expected = EXIT.get(command.name, 0)
    assert result.code == expected, f"`{command.example}` exits {result.code}, not {expected}: {result!r}"
    assert "Traceback" not in result.out + result.err, result
    assert "internal-error" not in result.out + result.err, result
