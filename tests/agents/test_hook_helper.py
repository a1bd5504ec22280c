"""The hook's resident helper (pylon/hooks/helper.py): it answers every event exactly as the hook
process does, only for this user and environment, and killing it at any moment loses nothing: the
hook answers in its own process and `ws undo` still restores every command exactly (the oracle is
git and the file system, through tests/keep/hookpath.py)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from pylon.hooks import helper_ask
from tests.conftest import git, run_cmd, script, sized
from tests.keep.hookpath import event, whole_state

BOOT = "pylon.cli.hook:serve_helper"

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="the helper is Linux only")


@pytest.fixture
def helper_on(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """The helper turned on for this test's environment; every helper it started is stopped after."""
    monkeypatch.setenv("PYLON_HOOK_HELPER", "1")
    monkeypatch.setenv("PYLON_HOOK_HELPER_IDLE", "20")
    yield
    for pid in helper_pids():
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass


def folder() -> Path:
    return Path(helper_ask.state_home()) / helper_ask.FOLDER


def helper_pids(where: Path | None = None) -> list[int]:
    """The helpers running for the state folder `where` (default: this test's)."""
    pids = []
    where = where or folder()
    for lock in where.glob("*.lock") if where.is_dir() else []:
        text = lock.read_text().strip()
        if text.isdigit() and os.path.exists(f"/proc/{text}"):
            pids.append(int(text))
    return pids


def wait_for_helper(seconds: float = 20.0) -> int:
    """The pid of this environment's helper once it listens."""
    name = helper_ask.key(helper_ask.env_blob())
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        sock, lock = folder() / f"{name}.sock", folder() / f"{name}.lock"
        if sock.exists() and lock.exists() and lock.read_text().strip().isdigit():
            return int(lock.read_text())
        time.sleep(0.05)
    raise AssertionError("no helper started")


def start_helper(repo: Path) -> int:
    """The first PreToolUse starts it (only PreToolUse events go to it: pylon/cli/hook.py)."""
    run_cmd(
        "pylon",
        "hook",
        "claude-code",
        cwd=repo,
        input=json.dumps(
            {
                "hook_event_name": "PreToolUse",
                "session_id": "x",
                "cwd": str(repo),
                "tool_name": "Read",
                "tool_input": {},
            }
        ),
    )
    return wait_for_helper()


def make(root: Path) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('app')\n")
    (root / "notes.md").write_text("one\n")
    (root / ".gitignore").write_text("*.log\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "one")
    (root / "notes.md").write_text("changed, not committed\n")
    (root / "run.log").write_text("ignored\n")
    return root


def events(repo: Path) -> list[tuple[str, str]]:
    """(agent, event) pairs covering each part: the guard before and after a shell command (safe,
    asked), a file tool, canon's and the batch's events, Codex's shell tool, input that is not JSON."""

    def shell(name: str, command: str, use_id: str, agent_tool: str = "Bash") -> str:
        return event(name, command, repo, use_id, extra={"tool_name": agent_tool})

    return [
        ("claude-code", shell("PreToolUse", "rm -f notes.md && echo gone > src/new.txt", "t1")),
        ("claude-code", shell("PostToolUse", "rm -f notes.md && echo gone > src/new.txt", "t1")),
        ("claude-code", shell("PreToolUse", "git push --force origin main", "t2")),
        (
            "claude-code",
            json.dumps(
                {
                    "session_id": "s-1",
                    "cwd": str(repo),
                    "hook_event_name": "PreToolUse",
                    "tool_name": "Write",
                    "tool_use_id": "t3",
                    "tool_input": {"file_path": str(repo / "src" / "app.py"), "content": "x\n"},
                }
            ),
        ),
        ("claude-code", json.dumps({"session_id": "s-1", "cwd": str(repo), "hook_event_name": "PostToolBatch"})),
        (
            "claude-code",
            json.dumps({"session_id": "s-1", "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup"}),
        ),
        ("codex", shell("PreToolUse", "cat src/app.py", "t4", "exec_command")),
        ("codex", "{not json"),
    ]


def answers(repo: Path) -> list[tuple[int, str, str]]:
    out = []
    for agent, payload in events(repo):
        r = run_cmd("pylon", "hook", agent, cwd=repo, input=payload)
        if "rm -f notes.md" in payload and '"PreToolUse"' in payload:
            subprocess.run(["bash", "-c", "rm -f notes.md && echo gone > src/new.txt"], cwd=repo, check=True)
        out.append((r.code, r.out.replace(str(repo), "REPO"), r.err.replace(str(repo), "REPO")))
    return out


def test_the_helper_answers_every_event_as_the_hook_process_does(
    tmp_path: Path, helper_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone = make(tmp_path / "a" / "repo")
    helped = make(tmp_path / "b" / "repo")
    monkeypatch.setenv("PYLON_HOOK_HELPER", "0")
    expected = answers(alone)
    monkeypatch.setenv("PYLON_HOOK_HELPER", "1")
    pid = start_helper(helped)
    # the helper itself answers (not this process's fallback): asked directly, it returns the answer
    got = helper_ask.ask("pylon", ["hook", "claude-code"], b'{"hook_event_name": "Stop", "session_id": "x"}', BOOT)
    assert got is not None and got[0] == 0 and json.loads(got[1]) == {}
    assert answers(helped) == expected
    assert any("ask" in out for _code, out, _err in expected)  # the events did reach the guard
    assert helper_pids() == [pid]  # one helper served them all
    assert whole_state(helped)["tree"] == whole_state(alone)["tree"]


def test_only_a_private_folder_and_the_same_environment_are_served(tmp_path: Path, helper_on: None) -> None:
    repo = make(tmp_path / "repo")
    start_helper(repo)
    assert (folder().stat().st_mode & 0o777) == 0o700
    name = helper_ask.key(helper_ask.env_blob())
    # another environment on this helper's socket (a key collision): closed without an answer
    import socket

    fd = os.open(folder(), os.O_RDONLY | os.O_DIRECTORY)
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(f"/proc/self/fd/{fd}/{name}.sock")  # the path itself may be over the socket limit
        os.close(fd)
        sock.sendall(
            helper_ask.pack(
                b"pylon",
                b"hook\0claude-code",
                str(repo).encode(),
                helper_ask.env_blob() + b"\0EXTRA=1",
                b'{"hook_event_name": "Stop"}',
            )
        )
        with pytest.raises(EOFError):
            helper_ask.read_fields(sock, 3)
    # a folder others can enter is not used: the hook answers in its own process
    os.chmod(folder(), 0o755)
    try:
        assert helper_ask.ask("pylon", ["hook", "claude-code"], b"{}", BOOT) is None
        r = run_cmd("pylon", "hook", "claude-code", cwd=repo, input='{"hook_event_name": "Stop", "session_id": "x"}')
        assert (r.code, r.out.strip()) == (0, "{}")
    finally:
        os.chmod(folder(), 0o700)


_IMPORTS_PROBE = """
import io, json, os, sys
from pylon.hooks import helper
helper._preload()
before = set(sys.modules)
from pylon.cli.hook import run_hook
for agent, payload in json.loads(sys.stdin.read()):
    sys.stdout = io.StringIO()
    run_hook(agent, ("guard", "canon", "ws"), data=payload.encode())
    sys.stdout = sys.__stdout__
print(json.dumps(sorted(set(sys.modules) - before)))
"""


def test_a_fork_of_the_helper_imports_nothing_to_answer_an_event(tmp_path: Path) -> None:
    """What the helper preloads (PRELOAD) covers every kind of event: a module an event imports
    itself is imported again by every fork, on the client's time (a renamed module once left the
    classifier out of the preload without a word)."""
    import sys

    repo = make(tmp_path / "repo")
    env = {**os.environ, "PYLON_HOOK_HELPER": "0", "PYLON_KEEP_DETACH": "0"}
    probe = subprocess.run(
        [sys.executable, "-c", _IMPORTS_PROBE],
        input=json.dumps(events(repo)),
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert probe.returncode == 0, probe.stderr
    imported = json.loads(probe.stdout.strip().splitlines()[-1])
    assert [m for m in imported if m.startswith("pylon")] == [], " ".join(imported)
    assert imported == [], " ".join(imported)  # nor the standard library


def test_the_helpers_copies_of_pylon_facts_match_pylons() -> None:
    from pylon.agents.events import MAX_EVENT_BYTES
    from pylon.state import state_home

    assert helper_ask.MAX_EVENT_BYTES == MAX_EVENT_BYTES
    assert helper_ask.state_home() == state_home()


def test_an_idle_helper_exits_and_takes_its_socket_with_it(
    tmp_path: Path, helper_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYLON_HOOK_HELPER_IDLE", "1")
    repo = make(tmp_path / "repo")
    pid = start_helper(repo)
    deadline = time.monotonic() + 15
    while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not os.path.exists(f"/proc/{pid}")
    assert not list(folder().glob("*.sock"))


def _hook_killing_the_helper(agent: str, payload: str, repo: Path, rng: random.Random) -> dict[str, object]:
    """Run the real hook script while the helper (and any fork of it answering) is killed at a random
    moment; the answer must come all the same."""
    proc = subprocess.Popen(
        [script("pylon"), "hook", agent],
        cwd=repo,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None
    proc.stdin.write(payload.encode())
    proc.stdin.close()
    time.sleep(rng.uniform(0.0, 0.06))
    for pid in helper_pids():
        try:
            os.killpg(pid, signal.SIGKILL)  # the helper and its forks (a capture after a command runs on its own)
        except OSError:
            pass
    assert proc.stdout is not None and proc.stderr is not None
    out, err = proc.stdout.read(), proc.stderr.read()
    assert proc.wait(timeout=120) == 0, err
    return json.loads(out) if out.strip() else {}


def test_killing_the_helper_at_any_moment_loses_nothing(tmp_path: Path, helper_on: None) -> None:
    repo = make(tmp_path / "repo")
    rng = random.Random(29)
    start_helper(repo)
    states = [whole_state(repo)]
    commands = [
        "echo one > src/a.txt",
        "rm -f notes.md",
        "chmod 700 src/app.py",
        "mkdir -p empty/dir",
        "git add -A",
        "mv src/a.txt src/b.txt",
        "git commit -qm two",
        "rm -rf src",
        "echo again > notes.md && rm -f run.log",
        "git checkout -q -f HEAD~1",
    ][: sized(6, 10)]  # the first six change files, bits, folders and the index: the helper's paths
    for i, command in enumerate(commands):
        use_id = f"toolu_kill_{i}"
        answer = _hook_killing_the_helper("claude-code", event("PreToolUse", command, repo, use_id), repo, rng)
        specific = answer.get("hookSpecificOutput")
        decision = specific.get("permissionDecision") if isinstance(specific, dict) else None
        assert decision in (None, "allow", "ask"), answer
        subprocess.run(["bash", "-c", command], cwd=repo, check=True, capture_output=True)
        _hook_killing_the_helper("claude-code", event("PostToolUse", command, repo, use_id), repo, rng)
        if rng.random() < 0.5:
            wait_for_helper()  # sometimes the next event finds a helper, sometimes it starts one
        states.append(whole_state(repo))
    log = run_cmd("pylon", "ws", "log", "--json", cwd=repo)
    assert log.code == 0, log
    for i in range(len(commands), 0, -1):  # every command is its own op, undone newest first, exactly
        undone = run_cmd("pylon", "ws", "undo", cwd=repo)
        assert undone.code == 0, (commands[i - 1], undone)
        after = whole_state(repo)
        assert after == states[i - 1], (commands[i - 1], [k for k in after if after[k] != states[i - 1][k]])
