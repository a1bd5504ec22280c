"""The reading the guard's PreToolUse keeps for canon's hook after the same call (guard/readout.py):
the same reading either process would make, taken once, never a stale or foreign one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from pylon.guard import readout
from pylon.guard.judge.reading import read
from tests.canon.agent.test_shell_writes_bash import COMMANDS, FILES
from tests.conftest import git, run_cmd, write_files


def _plain(reading: readout.Reading) -> tuple[object, ...]:
    return ([(c.argv, c.cwd, c.redirs) for c in reading.commands], reading.unread)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write_files(root, FILES)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "initial")
    assert run_cmd("canon", "write", "src", "--capsule", "The sources.", "--body", "Body.", cwd=root).code == 0
    return root


EXTRA = ['cd "$(mktemp -d)" && echo x > a', "echo $((1 + 2)) > 'odd name.txt'", "if then fi (", "ls src/*.py | wc -l"]


def test_a_kept_reading_is_the_reading(checkout: Path) -> None:
    """Every command of the bash-oracle suite, and a few the parser cannot read: kept and taken,
    the reading is the one read() makes, field for field."""
    for n, command in enumerate(COMMANDS + EXTRA):
        readout._MEMO.clear()
        direct = read(command, str(checkout))
        readout.keep(f"s{n}", command, str(checkout), direct)
        readout._MEMO.clear()
        taken = readout.take(f"s{n}", command, str(checkout))
        assert taken is not None, command
        assert _plain(taken) == _plain(direct), command
        assert readout.take(f"s{n}", command, str(checkout)) is None  # taken once: the file is gone


def test_a_stale_foreign_or_broken_reading_is_not_taken(checkout: Path) -> None:
    here = str(checkout)
    reading = read("echo x > out.txt", here)
    readout.keep("s", "echo x > out.txt", here, reading)
    path = readout._path("s", "echo x > out.txt", here)
    old = time.time() - readout.MAX_AGE - 5
    os.utime(path, (old, old))
    assert readout.take("s", "echo x > out.txt", here) is None and not os.path.exists(path)
    readout.keep("s", "echo x > out.txt", here, reading)
    assert readout.take("other-session", "echo x > out.txt", here) is None
    assert readout.take("s", "echo x > out.txt", here + "/src") is None
    for broken in (b"{not json", b'{"v": 2, "commands": [], "unread": []}', b"\xff\xfe"):
        Path(path).write_bytes(broken)
        assert readout.take("s", "echo x > out.txt", here) is None
    doc = {**reading.to_json(), "text": "echo y > out.txt", "cwd": here}  # a file for another text
    Path(path).write_text(json.dumps(doc))
    assert readout.take("s", "echo x > out.txt", here) is None


def _event(name: str, command: str, root: Path, session: str) -> str:
    if name == "PreToolUse":
        return json.dumps(
            {
                "hook_event_name": name,
                "session_id": session,
                "cwd": str(root),
                "tool_name": "Bash",
                "tool_input": {"command": command},
                "tool_use_id": "toolu_1",
            }
        )
    return json.dumps(
        {
            "hook_event_name": name,
            "session_id": session,
            "cwd": str(root),
            "tool_calls": [{"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "toolu_1"}],
        }
    )


def _kept(home: Path) -> list[str]:
    folder = home / "pylon" / "guard" / "readings"
    return sorted(str(p) for p in folder.rglob("*.json")) if folder.exists() else []


@pytest.mark.parametrize(
    "command", ["sed -i 's/alpha/beta/' src/app.py", "cat src/util.py | tail -1", "cd src && echo y >> app.py"]
)
def test_the_hooks_answer_the_same_with_and_without_the_kept_reading(
    checkout: Path, tmp_path: Path, isolated_env: dict[str, str], command: str
) -> None:
    """The real hooks, twice on twin checkouts: PreToolUse then PostToolBatch (the reading kept and
    taken), and PostToolBatch alone (read afresh). The answers and the session's state agree."""
    state = Path(isolated_env["XDG_STATE_HOME"])
    twin = tmp_path / "twin"
    shutil.copytree(checkout, twin, symlinks=True)
    pre = run_cmd("pylon", "hook", "claude-code", cwd=checkout, input=_event("PreToolUse", command, checkout, "a"))
    assert pre.code == 0, pre
    assert len(_kept(state)) == 1
    answers = []
    for root, session in ((checkout, "a"), (twin, "b")):
        subprocess.run(["bash", "-c", command], cwd=root, capture_output=True, check=True)
        post = run_cmd("pylon", "hook", "claude-code", cwd=root, input=_event("PostToolBatch", command, root, session))
        assert post.code == 0, post
        answers.append(post.out.replace(str(root), "ROOT"))
    assert _kept(state) == []  # taken
    assert answers[0] == answers[1] and "The sources." in answers[0]
    sessions = sorted((state / "pylon" / "canon" / "sessions").rglob("*.json"))
    docs = [json.loads(p.read_text()) for p in sessions]
    for doc in docs:
        doc.pop("session"), doc.pop("project")
    assert docs[0] == docs[1]
    if ">" in command or "-i" in command:
        assert docs[0]["changed"], docs[0]  # the write was seen through the kept reading


def test_no_store_keeps_nothing(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    git(root, "init", "-q")
    pre = run_cmd("pylon", "hook", "claude-code", cwd=root, input=_event("PreToolUse", "echo x > a.txt", root, "a"))
    assert pre.code == 0 and _kept(Path(isolated_env["XDG_STATE_HOME"])) == []
