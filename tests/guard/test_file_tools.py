"""The agents' own file tools through `pylon hook AGENT`: Claude Code's Write/Edit/MultiEdit/
NotebookEdit and Codex's apply_patch get a snapshot of what they overwrite or delete when git
cannot give it back (modified, staged, untracked, ignored), and `pylon ws restore guard-<n> PATH`
from the note brings it back byte for byte. Clean, absent and outside paths cost no snapshot."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import MakeRepo, git
from tests.conftest import run_cmd as run

FILES = {"src/app.py": "def main():\n    return 1\n", "src/util.py": "X = 1\n", ".gitignore": ".env\n"}


def pre(agent: str, tool: str, tool_input: dict[str, object], cwd: Path, session: str = "s-1") -> str:
    return json.dumps(
        {
            "session_id": session,
            "cwd": str(cwd),
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_use_id": "t1",
        }
    )


def hook(agent: str, tool: str, tool_input: dict[str, object], cwd: Path, session: str = "s-1") -> dict:
    r = run("pylon", "hook", agent, cwd=cwd, input=pre(agent, tool, tool_input, cwd, session))
    assert r.code == 0, r
    return json.loads(r.out)


def guard_refs(root: Path) -> list[str]:
    return git(root, "for-each-ref", "--format=%(refname)", "refs/pylon/guard/").split()


@pytest.fixture
def root(make_repo: MakeRepo) -> Path:
    return make_repo(FILES)


@pytest.mark.parametrize("tool,key", [("Write", "file_path"), ("Edit", "file_path"), ("MultiEdit", "file_path")])
def test_a_modified_file_is_kept_before_the_tool_overwrites_it(root: Path, tool: str, key: str) -> None:
    (root / "src" / "app.py").write_bytes(b"def main():\n    return 2  # work in progress\n")
    answer = hook("claude-code", tool, {key: str(root / "src" / "app.py"), "content": "x"}, root)
    note = answer["hookSpecificOutput"]["additionalContext"]
    assert "permissionDecision" not in answer["hookSpecificOutput"]  # never grants more than the agent's rules
    assert answer["systemMessage"] == note and "pylon ws restore guard-1 src/app.py" in note
    (root / "src" / "app.py").write_text("overwritten by the tool\n")  # the tool runs
    back = run("pylon", "ws", "restore", "guard-1", "src/app.py", cwd=root)
    assert back.code == 0, back
    assert (root / "src" / "app.py").read_bytes() == b"def main():\n    return 2  # work in progress\n"


def test_clean_absent_and_outside_paths_take_no_snapshot(root: Path, tmp_path: Path) -> None:
    for path in (root / "src" / "app.py", root / "src" / "new.py", tmp_path / "elsewhere.txt"):
        assert hook("claude-code", "Write", {"file_path": str(path), "content": "x"}, root) == {}
    assert guard_refs(root) == []


def test_untracked_ignored_and_staged_files_are_kept(root: Path) -> None:
    (root / "notes.txt").write_text("untracked notes\n")
    (root / ".env").write_text("SECRET=1\n")
    (root / "src" / "util.py").write_text("X = 2\n")
    git(root, "add", "src/util.py")
    for rel in ("notes.txt", ".env", "src/util.py"):
        answer = hook("claude-code", "Edit", {"file_path": rel, "old_string": "a", "new_string": "b"}, root)
        assert f" {rel}`" in answer["hookSpecificOutput"]["additionalContext"], (rel, answer)
    assert len(guard_refs(root)) == 3


def test_notebook_edit_reads_notebook_path(root: Path) -> None:
    (root / "nb.ipynb").write_text('{"cells": []}\n')
    answer = hook("claude-code", "NotebookEdit", {"notebook_path": str(root / "nb.ipynb"), "new_source": "x"}, root)
    assert "nb.ipynb" in answer["hookSpecificOutput"]["additionalContext"]


PATCH = """*** Begin Patch
*** Update File: src/app.py
@@
-def main():
+def main(x):
*** Delete File: notes.txt
*** Update File: src/util.py
*** Move to: src/moved.py
@@
-X = 1
+X = 3
*** Add File: src/brand_new.py
+print(1)
*** End Patch
"""


def test_codex_apply_patch_keeps_only_the_paths_at_risk(root: Path) -> None:
    (root / "src" / "app.py").write_text("def main():\n    return 5\n")  # modified: at risk
    (root / "notes.txt").write_text("mine\n")  # untracked, deleted by the patch: at risk
    (root / "src" / "moved.py").write_text("in the way\n")  # untracked, overwritten by the move: at risk
    answer = hook("codex", "apply_patch", {"command": PATCH}, root)  # src/util.py is clean: not at risk
    note = answer["hookSpecificOutput"]["additionalContext"]
    named = re.search(r"pylon ws restore guard-1 ([^`]+)`", note)
    assert named and sorted(named.group(1).split()) == ["notes.txt", "src/app.py", "src/moved.py"], note
    for rel in ("notes.txt", "src/moved.py"):
        (root / rel).unlink()
    (root / "src" / "app.py").write_text("patched\n")
    assert run("pylon", "ws", "restore", "guard-1", *named.group(1).split(), cwd=root).code == 0
    assert (root / "notes.txt").read_text() == "mine\n" and (root / "src" / "moved.py").read_text() == "in the way\n"
    assert (root / "src" / "app.py").read_text() == "def main():\n    return 5\n"


@pytest.mark.parametrize(
    "agent,tool,tool_input,decision",
    [
        ("claude-code", "Write", {"content": "x"}, "ask"),
        ("codex", "apply_patch", {"patch_text": 1}, "deny"),
        ("claude-code", "Edit", None, "ask"),
    ],
)
def test_a_file_tool_event_missing_its_path_is_refused_with_the_reason(
    root: Path, agent: str, tool: str, tool_input: object, decision: str
) -> None:
    doc = json.loads(pre(agent, tool, {}, root))
    if tool_input is None:
        del doc["tool_input"]
    else:
        doc["tool_input"] = tool_input
    r = run("pylon", "hook", agent, cwd=root, input=json.dumps(doc))
    out = json.loads(r.out)["hookSpecificOutput"]
    assert r.code == 0 and out["permissionDecision"] == decision and "not checked" in out["permissionDecisionReason"]


def test_a_sessions_snapshots_are_pruned_but_never_the_last_copy_of_a_path(root: Path) -> None:
    from pylon.hooks.files import prune
    from pylon.workspace.repo import locate

    for n in range(4):
        (root / "src" / "app.py").write_text(f"v{n}\n")
        hook("claude-code", "Write", {"file_path": "src/app.py", "content": "x"}, root)
    (root / "notes.txt").write_text("once\n")
    hook("claude-code", "Write", {"file_path": "notes.txt", "content": "x"}, root)
    record = next((root / ".git" / "pylon" / "hook-snapshots").glob("*.json"))
    items = json.loads(record.read_text())
    assert [i["name"] for i in items] == [f"guard-{n}" for n in range(1, 6)]
    kept = prune(locate(str(root)), items, now=items[-1]["time"], count=1)
    # notes.txt's only copy (guard-5) and app.py's newest (guard-4) stay; the older app.py copies go
    assert [i["name"] for i in kept] == ["guard-4", "guard-5"]
    assert sorted(guard_refs(root)) == ["refs/pylon/guard/4", "refs/pylon/guard/5"]
    old = prune(locate(str(root)), [{**i, "time": 0} for i in kept], now=items[-1]["time"], count=10)
    assert [i["name"] for i in old] == ["guard-4", "guard-5"]  # too old, but each is a path's last copy


def test_a_write_through_a_symlink_keeps_the_file_it_leads_to(root: Path) -> None:
    (root / "src" / "app.py").write_text("work in progress\n")
    (root / "link.py").symlink_to("src/app.py")
    git(root, "add", "link.py")
    git(root, "commit", "-q", "-m", "link")
    note = hook("claude-code", "Write", {"file_path": str(root / "link.py"), "content": "x"}, root)[
        "hookSpecificOutput"
    ]["additionalContext"]
    assert "src/app.py" in note, note
    (root / "src" / "app.py").write_text("x")  # written through the link
    assert run("pylon", "ws", "restore", "guard-1", "src/app.py", cwd=root).code == 0
    assert (root / "src" / "app.py").read_text() == "work in progress\n"
