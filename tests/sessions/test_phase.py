"""A session's phase from the clients' own records of running sessions, pylon's hook marks and the
transcript; the status line; `--watch`; and what the plain `pylon sessions` path imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pylon.sessions import live
from pylon.sessions.phase import DONE, WAITING, WORKING, decide
from tests.cli.test_startup import HEAVY, imported_modules
from tests.conftest import MakeRepo, run_cmd, script
from tests.sessions import transcripts as T

NOW = 1_000_000.0


@pytest.mark.parametrize(
    ("turn", "last", "running", "status", "mark", "can_continue", "phase"),
    [
        ("answer", NOW - 5, False, None, ("PreToolUse", NOW), True, DONE),  # the client says it ended
        ("answer", NOW - 5, True, "busy", None, True, WORKING),  # the client's own status
        ("call", NOW - 5, True, "idle", None, True, WAITING),
        ("call", NOW - 5, True, "waiting", None, True, WAITING),  # a permission prompt
        ("call", NOW - 5, True, None, None, True, WORKING),
        ("answer", NOW - 5, True, None, None, True, WAITING),
        ("answer", NOW - 5, None, None, ("PreToolUse", NOW - 1), True, WORKING),  # the mark is newer
        ("call", NOW - 5, None, None, ("Stop", NOW - 1), True, WAITING),
        ("call", NOW - 5, None, None, ("Stop", NOW - 60), True, WORKING),  # the transcript is newer
        ("call", NOW - 5, None, None, ("SessionEnd", NOW - 1), True, DONE),
        ("prompt", NOW - 5, None, None, None, True, WORKING),
        ("result", NOW - 7200, None, None, None, True, DONE),  # an open turn idle for an hour
        ("answer", NOW - 7200, None, None, None, True, WAITING),
        ("answer", NOW - 50_000, None, None, None, True, DONE),  # waiting for over twelve hours
        ("answer", NOW - 5, None, None, None, False, DONE),  # `claude -p`, `codex exec` answered
        ("interrupted", NOW - 5, None, None, None, True, WAITING),
    ],
)
def test_the_phase_follows_the_best_evidence(
    turn: str,
    last: float | None,
    running: bool | None,
    status: str | None,
    mark: tuple[str, float] | None,
    can_continue: bool,
    phase: str,
) -> None:
    assert decide(turn, last, running, status, mark, can_continue, NOW) == phase


def test_claude_codes_running_sessions_are_checked_against_their_process(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    assert live.claude_running(str(tmp_path)) is None  # an older client keeps no such list
    folder.mkdir()
    started = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19]
    records = {
        "live": {"pid": os.getpid(), "procStart": started, "status": "idle"},
        "reused": {"pid": os.getpid(), "procStart": str(int(started) + 1)},  # the pid of another process
        "dead": {"pid": 2**22 + 17, "procStart": "1"},
    }
    for sid, record in records.items():
        (folder / f"{sid}.json").write_text(json.dumps({"sessionId": sid, **record}))
    (folder / "junk.json").write_text("{not json")
    assert live.claude_running(str(tmp_path)) == {"live": "idle"}


@pytest.mark.skipif(not Path("/proc/locks").exists(), reason="/proc/locks is Linux's")
def test_a_codex_session_runs_while_its_thread_lock_is_held(tmp_path: Path) -> None:
    folder = tmp_path / "thread-writer-locks"
    folder.mkdir()
    for name in ("held", "left"):
        (folder / f"{name}.lock").write_bytes(b"")
    (folder / ".coordination.lock").write_bytes(b"")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import fcntl, sys, time\nf = open(sys.argv[1])\n"
                "fcntl.flock(f, fcntl.LOCK_EX)\nprint('locked', flush=True)\ntime.sleep(60)"
            ),
            str(folder / "held.lock"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        assert live.codex_running(str(tmp_path)) == {"held"}
    finally:
        holder.kill()
        holder.wait()
    assert live.codex_running(str(tmp_path)) == set()


def test_the_hooks_mark_the_last_event_and_the_phase_follows_it(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo, home = make_repo({"a.txt": "a\n"}), tmp_path / "h"
    T.claude_file(
        home,
        repo,
        [
            T.prompt(0, repo, session="s-1"),
            T.assistant(1, repo, "m1", tools=[("t1", "Bash", {"command": "ls"})], session="s-1"),
        ],
        session="s-1",
    )
    (home / ".claude" / "sessions").mkdir(parents=True)  # the client lists no running session: done
    assert (
        json.loads(run_cmd("pylon", "sessions", "--json", cwd=repo, env=T.claude_env(home)).out)["sessions"][0]["phase"]
        == DONE
    )
    os.rmdir(home / ".claude" / "sessions")
    event = {"hook_event_name": "Stop", "session_id": "s-1", "cwd": str(repo), "stop_hook_active": False}
    done = run_cmd("pylon", "hook", "claude-code", cwd=repo, input=json.dumps(event))
    assert done.code == 0, done
    mark = Path(os.environ["XDG_STATE_HOME"]) / "pylon" / "sessions" / "marks" / "claude-code.s-1"
    assert mark.read_text().split()[0] == "Stop"
    # the transcript (an hour... no: years ago) said a tool call was open; the newer Stop says waiting
    assert (
        json.loads(run_cmd("pylon", "sessions", "--json", cwd=repo, env=T.claude_env(home)).out)["sessions"][0]["phase"]
        == WAITING
    )
    bad = dict(event, session_id="../escape")
    assert run_cmd("pylon", "hook", "claude-code", cwd=repo, input=json.dumps(bad)).code == 0
    assert sorted(p.name for p in mark.parent.iterdir()) == ["claude-code.s-1"]


def test_the_status_line_names_the_worktree_phase_tokens_and_cost(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo, home = make_repo({"a.txt": "a\n"}), tmp_path / "h"
    assert run_cmd("pylon", "ws", "new", "agent-7", cwd=repo).code == 0
    owned = Path(run_cmd("pylon", "ws", "path", "agent-7", cwd=repo).out.strip())
    path = T.claude_file(
        home,
        owned,
        [T.prompt(0, owned), T.assistant(1, owned, "m1", usage={"input_tokens": 1500, "output_tokens": 20})],
    )
    registry = home / ".claude" / "sessions"
    registry.mkdir(parents=True)
    started = (
        Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19] if Path("/proc/self/stat").exists() else None
    )
    (registry / f"{os.getpid()}.json").write_text(
        json.dumps({"pid": os.getpid(), "procStart": started, "sessionId": T.SESSION, "status": "busy"})
    )
    event = {
        "session_id": T.SESSION,
        "transcript_path": str(path),
        "cwd": str(owned),
        "workspace": {"current_dir": str(owned)},
        "cost": {"total_cost_usd": 0.5},
    }
    done = run_cmd("pylon", "sessions", "statusline", cwd=owned, env=T.claude_env(home), input=json.dumps(event))
    assert done.code == 0 and done.out == "agent-7 · working · 1.5k tok · $0.0048\n", done
    for junk in ("", "{not json", "[1]", json.dumps({"transcript_path": 5})):
        done = run_cmd("pylon", "sessions", "statusline", cwd=owned, env=T.claude_env(home), input=junk)
        assert done.code == 0 and done.out == "agent-7\n", (junk, done)


def test_watch_prints_a_session_again_when_its_transcript_grows(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo, home = make_repo({"a.txt": "a\n"}), tmp_path / "h"
    path = T.claude_file(home, repo, [T.prompt(0, repo), T.assistant(1, repo, "m1")])
    env = {**os.environ, **T.claude_env(home)}
    proc = subprocess.Popen(
        [script("pylon"), "sessions", "--watch", "--json", "--timeout", "20"],
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        ready = json.loads(proc.stdout.readline())
        assert ready["event"] == "ready" and [s["tokens"]["input"] for s in ready["sessions"]] == [10]
        time.sleep(0.5)  # the watches are in place before the first list is printed; a moment for the kernel
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(T.assistant(2, repo, "m2", usage={"input_tokens": 5}) + "\n")
        changed = json.loads(proc.stdout.readline())
        assert changed["event"] == "session" and changed["session"]["tokens"]["input"] == 15, changed
    finally:
        proc.kill()
        proc.wait()


def test_the_plain_list_imports_nothing_heavy(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "a\n"})
    names = imported_modules(["pylon", "sessions"], repo)
    assert not {n for n in names if n.split(".")[0] in (*HEAVY, "typer", "json", "tomllib", "datetime")}, sorted(
        n for n in names if n.split(".")[0] in (*HEAVY, "typer", "json", "tomllib", "datetime")
    )
