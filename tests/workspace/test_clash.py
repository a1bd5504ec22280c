"""The write-time check (issue 30 item 3): `pylon ws check` and the PreToolUse answer, against git.

For random line edits in the main checkout, an owned session and the clients' own or plain
worktrees, the check must name exactly the worktrees whose file differs from the base the pair
shares, and call a conflict exactly when `git merge-file` of (base, ours, theirs), run here on
blobs the test reads with git itself, conflicts."""

from __future__ import annotations

import json
import random
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.conftest import MakeRepo, git, sized, write_files
from tests.workspace.helpers import pylon
from tests.workspace.wt_helpers import new

LINES = [f"line {n}\n" for n in range(1, 13)]


def edit(text: str, rng: random.Random, tag: str) -> str:
    lines = text.splitlines(keepends=True)
    for _ in range(rng.randint(1, 2)):
        i = rng.randrange(len(lines))
        lines[i] = f"{lines[i].rstrip()} ({tag})\n"
    return "".join(lines)


def merge_file_conflicts(base: bytes, ours: bytes, theirs: bytes) -> bool:
    with tempfile.TemporaryDirectory() as folder:
        names = []
        for name, data in (("o", ours), ("b", base), ("t", theirs)):
            (Path(folder) / name).write_bytes(data)
            names.append(str(Path(folder) / name))
        return subprocess.run(["git", "merge-file", "-p", "-q", *names], capture_output=True).returncode > 0


def blob(repo: Path, rev: str, path: str) -> bytes:
    return subprocess.run(["git", "show", f"{rev}:{path}"], cwd=repo, capture_output=True, check=True).stdout


@pytest.mark.parametrize("seed", range(sized(3, 6)))
def test_the_check_agrees_with_git_merge_file(make_repo: MakeRepo, seed: int) -> None:
    rng = random.Random(seed)
    files = {f"f{n}.txt": "".join(LINES) for n in range(3)}
    repo: Path = make_repo(files)
    session = Path(str(new(repo, "s")["path"]))
    baseline = git(repo, "rev-parse", "HEAD").strip()
    plain = repo.parent / f"plain-{seed}"
    git(repo, "worktree", "add", "-q", "-b", "side", str(plain))
    git(plain, "commit", "-q", "--allow-empty", "-m", "side")  # a plain worktree with its own history
    for name in files:
        for where, tag in ((repo, "mine"), (session, "session"), (plain, "plain")):
            if rng.random() < 0.6:
                (where / name).write_text(edit((where / name).read_text(), rng, tag))
    res = pylon("ws", "check", *files, "--json", cwd=repo)
    doc = res.json()
    found = {(f["path"], f["other"]["kind"]): f for f in doc["findings"]}
    for name in files:
        ours = (repo / name).read_bytes()
        for where, kind in ((session, "session"), (plain, "other")):
            base = blob(repo, baseline, name)
            theirs = (where / name).read_bytes()
            finding = found.get((name, kind))
            assert (finding is not None) == (theirs != base), (name, kind)
            if finding is not None:
                assert finding["conflict"] == merge_file_conflicts(base, ours, theirs), (name, kind, finding)
    assert res.code == (1 if doc["conflicting"] else 0)


@pytest.fixture
def pair(make_repo: MakeRepo) -> tuple[Path, Path]:
    repo: Path = make_repo({"src/app.py": "".join(LINES), ".gitignore": ".pylon/\n"})
    session = Path(str(new(repo, "other")["path"]))
    (session / "src/app.py").write_text("".join(LINES).replace("line 3\n", "line 3, the session's\n"))
    return repo, session


def hook(repo: Path, agent: str, tool: str, tool_input: dict) -> dict:
    event = {
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "cwd": str(repo),
        "session_id": "t",
    }
    res = pylon("hook", agent, cwd=repo, input=json.dumps(event))
    assert res.code == 0, res
    return json.loads(res.out)


def test_the_hook_names_the_session_the_path_and_the_lines(pair: tuple[Path, Path]) -> None:
    repo, _ = pair
    clashing = {"file_path": str(repo / "src/app.py"), "old_string": "line 3\n", "new_string": "line three\n"}
    said = hook(repo, "claude-code", "Edit", clashing)
    text = said["hookSpecificOutput"]["additionalContext"]
    assert "this Edit would conflict: pylon session other" in text and "changed line 3 of src/app.py" in text
    assert "where this Edit changes line 3" in text and "pylon ws conflicts other" in text
    assert said["systemMessage"] == text and "permissionDecision" not in said["hookSpecificOutput"]
    # an edit elsewhere in the file merges cleanly: nothing said
    apart = {"file_path": str(repo / "src/app.py"), "old_string": "line 9\n", "new_string": "line nine\n"}
    assert hook(repo, "claude-code", "Edit", apart) == {}
    # a Write of the whole file: its content is merged
    write = {"file_path": str(repo / "src/app.py"), "content": "".join(LINES).replace("line 3\n", "3!\n")}
    assert "would conflict" in hook(repo, "claude-code", "Write", write)["hookSpecificOutput"]["additionalContext"]
    # a shell write cannot be merged: the file is named as touched
    shell = hook(repo, "claude-code", "Bash", {"command": "echo x >> src/app.py"})
    assert "touches a file another worktree changed" in shell["hookSpecificOutput"]["additionalContext"]


def test_ask_and_off_are_read_from_the_project(pair: tuple[Path, Path]) -> None:
    repo, _ = pair
    clashing = {"file_path": str(repo / "src/app.py"), "old_string": "line 3\n", "new_string": "line three\n"}
    write_files(repo, {".pylon/worktrees.toml": '[writes]\non_conflict = "ask"\n'})
    asked = hook(repo, "claude-code", "Edit", clashing)["hookSpecificOutput"]
    assert asked["permissionDecision"] == "ask" and "would conflict" in asked["permissionDecisionReason"]
    patch = {"command": "*** Begin Patch\n*** Update File: src/app.py\n@@\n-line 3\n+line three\n*** End Patch\n"}
    codex = hook(repo, "codex", "apply_patch", patch)["hookSpecificOutput"]
    assert codex.get("permissionDecision") != "ask"  # Codex does not enforce ask; a patch's result is not merged
    write_files(repo, {".pylon/worktrees.toml": '[writes]\non_conflict = "off"\n'})
    assert hook(repo, "claude-code", "Edit", clashing) == {}
    write_files(repo, {".pylon/worktrees.toml": '[writes]\non_conflict = "never"\n'})
    said = hook(repo, "claude-code", "Edit", clashing)["hookSpecificOutput"]["additionalContext"]
    assert "on_conflict = 'never'; use one of context, ask, off" in said


def test_an_applied_session_is_judged_from_its_apply(pair: tuple[Path, Path]) -> None:
    repo, _ = pair
    assert pylon("ws", "apply", "other", cwd=repo).code == 0
    # the person reworks the applied line: against the session's state at the apply, not a conflict
    rework = {"file_path": str(repo / "src/app.py"), "old_string": "line 3, the session's\n", "new_string": "3 again\n"}
    said = json.dumps(hook(repo, "claude-code", "Edit", rework))  # (the guard's snapshot note only: the file is dirty)
    assert "pylon session other" not in said and "guard-1" in said


def test_the_clients_worktrees_are_named_by_who_made_them(pair: tuple[Path, Path]) -> None:
    repo, _ = pair
    claude = repo / ".claude" / "worktrees" / "feat"
    git(repo, "worktree", "add", "-q", "-b", "worktree-feat", str(claude))
    (claude / "src/app.py").write_text("".join(LINES).replace("line 5\n", "line 5, claude's\n"))
    doc = pylon("ws", "check", "src/app.py", "--json", cwd=repo).json()
    labels = sorted(f["other"]["label"] for f in doc["findings"])
    assert labels == ["Claude Code worktree feat", "pylon session other"]
    listed = pylon("ws", "list", "--json", cwd=repo).json()
    assert [(o["made_by"]["client"], o["made_by"]["name"]) for o in listed["others"]] == [("claude-code", "feat")]
    conflicts = pylon("ws", "conflicts", "--json", cwd=repo).json()
    assert any("claude-code:feat" in (p["a"], p["b"]) for p in conflicts["pairs"])  # in the forecast, touching


def test_check_refuses_a_path_outside(pair: tuple[Path, Path]) -> None:
    repo, _ = pair
    res = pylon("ws", "check", "../elsewhere.txt", cwd=repo)
    assert res.code == 2 and "error[path-outside]" in res.err
