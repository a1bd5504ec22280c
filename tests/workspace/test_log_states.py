"""`ws log` lists every state pylon keeps, with the command that restores it, whatever made it
(apply, sync, finish, rm --force, a guarded command), with true path counts; and each command it
names works, also when an ignored file now sits where the state has a file (kept aside, never
lost). The reproductions of issue 33 point 4; the oracle is the files on disk and git."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import MakeRepo, git
from tests.workspace.helpers import pylon


def ok(repo: Path | str, *args: str) -> dict[str, Any]:
    result = pylon("ws", *args, "--json", cwd=repo)
    assert result.code == 0, result
    return result.json()


def log(repo: Path) -> list[dict[str, Any]]:
    return ok(repo, "log")["entries"]


def entry(repo: Path, title: str) -> dict[str, Any]:
    return next(e for e in log(repo) if e["kind"] == "op" and e["title"] == title)


def run_named(repo: Path, command: str) -> dict[str, Any]:
    """A command `ws log` names, run as written (it may carry `-C DIR`)."""
    argv = shlex.split(command)
    assert argv[0] == "pylon", command
    result = pylon(*argv[1:], "--json", cwd=repo)
    assert result.code == 0, (command, result)
    return result.json()


def test_finish_rm_sync_and_guard_are_listed_with_commands_that_work(make_repo: MakeRepo) -> None:
    repo = make_repo(
        files={
            "a.txt": "one\ntwo\nthree\n",
            "src/x.py": "x\n",
            "src/y.py": "y\n",
            "src/z.py": "z\n",
            ".gitignore": "*.log\n",
        }
    )
    s1, s2, s3, s4 = (Path(str(ok(repo, "new", w)["path"])) for w in ("s1", "s2", "s3", "s4"))
    # s1: its own empty folder and a version of a.txt the finish merges with the checkout's edit
    (s1 / "kept-empty").mkdir()
    (s1 / "a.txt").write_text("ONE\ntwo\nthree\n")
    (repo / "a.txt").write_text("one\ntwo\nTHREE\n")
    ok(repo, "finish", "s1")
    fin = entry(repo, "finish s1")
    assert fin["restores"]["session"] == f"pylon ws restore {fin['name']}:session"
    # s2 holds nothing new: its finish changes nothing here, and is listed all the same
    ok(repo, "finish", "s2")
    quiet = entry(repo, "finish s2")
    assert quiet["paths"] == 0 and "session" in quiet["restores"]
    # a sync from here is in this checkout's log, its states named with the -C that reaches them
    (repo / "src" / "x.py").write_text("x, changed here\n")
    ok(repo, "sync", "s3")
    synced = entry(repo, "sync s3 from checkout")
    assert synced["restores"]["before"] == f"pylon -C {shlex.quote(str(s3))} ws restore {synced['name']}:before"
    # rm --force: the session's own state, and the trash entry naming what was run
    (s4 / "own.txt").write_text("s4's own\n")
    os.chmod(s4 / "own.txt", 0o600)
    ok(repo, "rm", "s4", "--force")
    removed = entry(repo, "rm s4 --force")
    trash = next(e for e in log(repo) if e["kind"] == "trash")
    assert trash["made_by"] == "pylon ws rm s4 --force" and removed["paths"] == 1
    # a guarded `rm -rf src`: its true size is the three files it keeps
    for name in ("PreToolUse", "PostToolUse"):
        event = json.dumps(
            {
                "hook_event_name": name,
                "tool_name": "Bash",
                "cwd": str(repo),
                "session_id": "s-1",
                "tool_use_id": "toolu_1",
                "tool_input": {"command": "rm -rf src"},
                "tool_response": {},
            }
        )
        assert pylon("guard", "hook", "claude-code", cwd=repo, input=event).code == 0
        if name == "PreToolUse":
            subprocess.run(["rm", "-rf", "src"], cwd=repo, check=True)
    guard = next(e for e in log(repo) if e.get("op_kind") == "shell")
    assert guard["paths"] == 3, guard
    assert run_named(repo, str(guard["restore"]))["op"]
    assert (repo / "src" / "x.py").read_text() == "x, changed here\n"
    # the session's own versions come back by the names ws log gives
    run_named(repo, f"pylon ws restore {fin['name']}:session a.txt")
    assert (repo / "a.txt").read_text() == "ONE\ntwo\nthree\n"
    run_named(repo, f"pylon ws restore {removed['name']}:session own.txt")
    assert (repo / "own.txt").read_text() == "s4's own\n" and os.stat(repo / "own.txt").st_mode & 0o777 == 0o600
    ok(repo, "undo")
    ok(repo, "undo")
    run_named(repo, str(fin["restores"]["session"]))
    assert (repo / "kept-empty").is_dir()
    # every command every entry names works, and the next capture too
    for e in log(repo):
        commands = list(e["restores"].values()) if e["kind"] == "op" else [e["restore"]]
        for command in commands:
            if command and str(command).startswith("pylon ") and "ws undo" not in str(command):
                run_named(repo, str(command))
                ok(repo, "baseline")


def test_a_named_restore_keeps_an_ignored_file_in_the_way_aside(make_repo: MakeRepo) -> None:
    repo = make_repo(files={"a.txt": "a\n", ".gitignore": "build/\n"})
    (repo / "notes.log").write_text("kept by the state\n")  # not ignored yet: part of the state
    ok(repo, "baseline", "then")
    (repo / ".gitignore").write_text("build/\n*.log\n")
    git(repo, "commit", "-qam", "ignore logs")
    (repo / "notes.log").write_text("the person's log, ignored now\n")
    refused = pylon("ws", "restore", "then", "notes.log", cwd=repo)
    assert refused.code == 0, refused
    assert "kept aside" in refused.err and "notes.log" in refused.err, refused.err
    assert (repo / "notes.log").read_text() == "kept by the state\n"
    doc = ok(repo, "log")
    op = next(e for e in doc["entries"] if e["kind"] == "op")
    run_named(repo, f"pylon ws restore {op['name']}:before notes.log")
    assert (repo / "notes.log").read_text() == "the person's log, ignored now\n"
    ok(repo, "undo")
    ok(repo, "undo")
    assert (repo / "notes.log").read_text() == "the person's log, ignored now\n"
