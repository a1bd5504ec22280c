"""Issue 28, point 3: no kept state crosses worktrees. A snapshot taken in one checkout (a plain
`git worktree add`, or a client's own worktree) is never listed or applied as another checkout's:
`ws log` in the main checkout does not name it, and `ws restore` of that name there refuses and
names the `pylon -C DIR` command that reaches it, leaving the main checkout's work as it was."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import MakeRepo, git
from tests.conftest import run_cmd as run

FILES = {"src/app.py": "def main():\n    return 1\n", ".gitignore": ".env\n"}


def _file_tool(cwd: Path, path: Path) -> dict:
    event = {
        "session_id": "s-1",
        "cwd": str(cwd),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(path), "content": "x"},
        "tool_use_id": "t1",
    }
    r = run("pylon", "hook", "claude-code", cwd=cwd, input=json.dumps(event))
    assert r.code == 0, r
    return json.loads(r.out)


def test_a_snapshot_of_another_worktree_is_neither_listed_nor_restored_here(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    main = make_repo(FILES)
    other = tmp_path / "other"
    git(main, "worktree", "add", "-q", "-b", "other", str(other))
    (other / "src" / "app.py").write_text("def main():\n    return 2  # the worktree's work\n")
    answer = _file_tool(other, other / "src" / "app.py")
    assert "guard-1" in answer["hookSpecificOutput"]["additionalContext"]
    # the main checkout's own uncommitted work
    (main / "src" / "app.py").write_text("def main():\n    return 3  # main's work\n")
    (main / "notes.txt").write_text("main's untracked notes\n")
    listed = run("pylon", "ws", "log", "--json", cwd=main)
    assert listed.code == 0, listed
    assert not [e for e in listed.json()["entries"] if e["kind"] == "guard"], listed.out
    refused = run("pylon", "ws", "restore", "guard-1", cwd=main)
    assert refused.code != 0, refused
    assert (main / "src" / "app.py").read_text() == "def main():\n    return 3  # main's work\n"
    assert (main / "notes.txt").read_text() == "main's untracked notes\n"
    # in its own checkout it is listed and restores
    mine = run("pylon", "ws", "log", "--json", cwd=other)
    assert [e["name"] for e in mine.json()["entries"] if e["kind"] == "guard"] == ["guard-1"], mine.out
    (other / "src" / "app.py").write_text("overwritten\n")
    back = run("pylon", "ws", "restore", "guard-1", "src/app.py", cwd=other)
    assert back.code == 0, back
    assert (other / "src" / "app.py").read_text() == "def main():\n    return 2  # the worktree's work\n"
