"""`pylon ws log` lists every kept state with the command that restores it (and that command
works); `pylon ws gc` prunes by age, never the newest of a kind without --all."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from tests.conftest import MakeRepo, git, write_files
from tests.workspace.helpers import pylon
from tests.workspace.wt_helpers import new


def age_refs(repo: Path, prefix: str, seconds: int) -> None:
    """Pretend every state under prefix is `seconds` old (a baseline's time is its commit time)."""
    for line in git(repo, "for-each-ref", "--format=%(refname) %(objectname)", prefix).splitlines():
        ref, oid = line.split()
        body = git(repo, "cat-file", "commit", oid)
        stamp = int(time.time()) - seconds
        fixed = (
            "\n".join(
                f"{ln.rsplit(' ', 2)[0]} {stamp} +0000" if ln.startswith(("author ", "committer ")) else ln
                for ln in body.split("\n\n", 1)[0].splitlines()
            )
            + "\n\n"
            + body.split("\n\n", 1)[1]
        )
        import subprocess

        new_oid = (
            subprocess.run(
                ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
                cwd=repo,
                input=fixed.encode(),
                capture_output=True,
                check=True,
            )
            .stdout.decode()
            .strip()
        )
        git(repo, "update-ref", ref, new_oid)


def test_log_lists_every_kind_newest_first_with_working_restore_commands(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "one\n", "b.txt": "two\n"})
    assert pylon("ws", "baseline", "start", cwd=repo).code == 0
    path = Path(str(new(repo, "agent")["path"]))
    write_files(path, {"a.txt": "agent\n"})
    assert pylon("ws", "apply", "agent", cwd=repo).code == 0
    write_files(repo, {"b.txt": "later\n"})
    assert pylon("ws", "undo", cwd=repo).code == 0
    gone = Path(str(new(repo, "gone")["path"]))
    write_files(gone, {"unsaved.txt": "work\n"})
    assert pylon("ws", "rm", "gone", "--force", cwd=repo).code == 0
    doc = pylon("ws", "log", "--json", cwd=repo).json()
    kinds = [(e["kind"], e["name"]) for e in doc["entries"]]
    assert ("baseline", "start") in kinds and ("op", "op-1") in kinds and ("op", "op-2") in kinds
    assert any(kind == "trash" and name.startswith("gone-") for kind, name in kinds)
    times = [e["time"] for e in doc["entries"]]
    assert times == sorted(times, reverse=True)
    apply_op = next(e for e in doc["entries"] if e["name"] == "op-1")
    assert apply_op["made_by"] == "pylon ws apply agent" and apply_op["status"] == "undone"
    assert apply_op["paths"] == 1 and set(apply_op["restores"]) == {"before", "after", "before-undo"}
    words = apply_op["restores"]["before-undo"].split()
    assert pylon(*words[1:], cwd=repo).code == 0  # the command as printed brings the state back
    assert (repo / "a.txt").read_text() == "agent\n" and (repo / "b.txt").read_text() == "later\n"
    trash = next(e for e in doc["entries"] if e["kind"] == "trash")
    assert trash["made_by"] == "pylon ws rm gone --force" and "read-tree -u --reset" in trash["restore"]
    text = pylon("ws", "log", cwd=repo)
    assert "pylon ws restore op-1:before-undo" in text.out and "pylon ws restore start" in text.out


def test_shell_ops_and_guard_snapshots_are_listed_with_the_command_that_made_them(make_repo: MakeRepo) -> None:
    from tests.keep.hookpath import run_through_hooks

    repo = make_repo({"src/a.txt": "one\n", "b.txt": "b\n"})
    run_through_hooks(repo, "rm -rf src")
    assert pylon("ws", "log", cwd=repo).code == 0  # waits for the capture after the command (a change
    (repo / "b.txt").write_text("edited, not committed\n")  # in the milliseconds before it is the command's)
    event = json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "cwd": str(repo),
            "tool_input": {"file_path": str(repo / "b.txt"), "content": "x"},
        }
    )
    assert pylon("hook", "claude-code", cwd=repo, input=event).code == 0
    doc = pylon("ws", "log", "--json", cwd=repo).json()
    (shell,) = (e for e in doc["entries"] if e["kind"] == "op")
    assert doc["unrecorded"]["paths"] == ["b.txt"]  # no hook saw the edit: later work, not an op yet
    assert shell["op_kind"] == "shell" and shell["made_by"] == "rm -rf src" and shell["paths"] == 1
    assert shell["restore"] == f"pylon ws restore {shell['name']}:before" and shell["undo"] == "pylon ws undo"
    guard = next(e for e in doc["entries"] if e["kind"] == "guard")
    assert guard["name"] == "guard-1" and "Write b.txt" in guard["made_by"]
    assert guard["restore"] == "pylon ws restore guard-1"


def test_gc_prunes_by_age_and_keeps_the_newest_of_each_kind(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "one\n"})
    for name in ("old1", "old2", "new"):
        assert pylon("ws", "baseline", name, cwd=repo).code == 0
        if name == "old2":
            age_refs(repo, "refs/pylon/baselines/old*", 40 * 86400)
    dry = pylon("ws", "gc", "--older-than", "30d", "--dry-run", "--json", cwd=repo).json()
    assert sorted(p["name"] for p in dry["pruned"]) == ["old1", "old2"]
    assert pylon("ws", "log", "--json", cwd=repo).json()["total"] == 3  # dry run changed nothing
    assert pylon("ws", "gc", "--older-than", "30d", cwd=repo).code == 0
    names = [e["name"] for e in pylon("ws", "log", "--json", cwd=repo).json()["entries"]]
    assert names == ["new"]
    assert pylon("ws", "gc", "--older-than", "0s", "--json", cwd=repo).json()["pruned"] == []  # the newest stays
    assert [
        p["name"] for p in pylon("ws", "gc", "--older-than", "0s", "--all", "--json", cwd=repo).json()["pruned"]
    ] == ["new"]
    bad = pylon("ws", "gc", "--older-than", "soon", "--json", cwd=repo)
    assert bad.code == 2 and bad.json()["error"]["code"] == "bad-duration"
    missing = pylon("ws", "gc", "--json", cwd=repo)
    assert missing.code == 2 and missing.json()["error"]["code"] == "missing-older-than"
    assert os.path.isdir(repo)


def test_gc_never_prunes_an_active_move_or_the_apply_a_session_merges_from(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "one\n"})
    path = Path(str(new(repo, "agent")["path"]))
    write_files(path, {"b.txt": "agent\n"})
    assert pylon("ws", "apply", "agent", cwd=repo).code == 0
    git(repo, "add", "b.txt")
    git(repo, "commit", "-qm", "took it")
    assert pylon("ws", "move", "agent", cwd=repo).code == 0
    time.sleep(1.1)
    assert pylon("ws", "move", "agent", "--back", cwd=repo).code == 0  # op 3
    assert pylon("ws", "move", "agent", cwd=repo).code == 0  # op 4: active
    result = pylon("ws", "gc", "--older-than", "0s", "--all", "--json", cwd=repo).json()
    pruned = {p["name"] for p in result["pruned"]}
    assert pruned == {"op-2", "op-3"}, result
    assert pylon("ws", "move", "agent", "--back", cwd=repo).code == 0
