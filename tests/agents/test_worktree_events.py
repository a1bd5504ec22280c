"""WorktreeCreate / WorktreeRemove (Claude Code's events, as 2.1.332 sends them: the common envelope
plus `name`, or `worktree_path`) answered by `pylon hook claude-code` through `ws new` and `ws rm`,
and the SessionStart note in a worktree pylon did not make."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.conftest import MakeRepo, Result, git, run_cmd, write_files


def create(repo: Path, name: str, **extra: str) -> Result:
    event = {
        "session_id": "sess-1",
        "transcript_path": "/t",
        "cwd": str(repo),
        "hook_event_name": "WorktreeCreate",
        "name": name,
        **extra,
    }
    return run_cmd("pylon", "hook", "claude-code", cwd=repo, input=json.dumps(event))


def remove(repo: Path, path: str) -> Result:
    event = {"session_id": "sess-1", "cwd": str(repo), "hook_event_name": "WorktreeRemove", "worktree_path": path}
    return run_cmd("pylon", "hook", "claude-code", cwd=repo, input=json.dumps(event))


def listed(repo: Path) -> dict[str, dict]:
    return {w["id"]: w for w in run_cmd("pylon", "ws", "list", "--json", cwd=repo).json()["worktrees"]}


def test_create_prints_the_real_path_of_an_owned_worktree_from_the_current_state(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "a\n", ".gitignore": ".env\n"})
    write_files(repo, {"a.txt": "dirty\n", "new.txt": "untracked\n", ".env": "SECRET\n", ".worktreeinclude": ".env\n"})
    res = create(repo, "feature/login")
    assert res.code == 0, res
    path = Path(res.out.strip())
    assert res.out == f"{path}\n" and path.is_absolute() and str(path) == os.path.realpath(path)  # one line, real
    assert (path / "a.txt").read_text() == "dirty\n" and (path / "new.txt").read_text() == "untracked\n"
    assert (path / ".env").read_text() == "SECRET\n"  # .worktreeinclude
    row = listed(repo)["feature-login"]
    assert row["made_by"] == {
        "client": "claude-code",
        "name": "feature/login",
        "purpose": "session",
        "session": "sess-1",
    }
    assert "made worktree feature-login" in res.err
    # the same name again resumes it; a subagent's name is told apart
    again = create(repo, "feature/login")
    assert again.code == 0 and again.out == res.out and "resumed" in again.err
    sub = create(repo, "agent-a1b2c3d4e5f6a7b8c")
    assert sub.code == 0 and listed(repo)["agent-a1b2c3d4e5f6a7b8c"]["made_by"]["purpose"] == "subagent"


def test_create_honours_a_base_the_event_names(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "one\n"})
    first = git(repo, "rev-parse", "HEAD").strip()
    write_files(repo, {"a.txt": "two\n"})
    git(repo, "commit", "-qam", "two")
    write_files(repo, {"a.txt": "dirty\n"})
    res = create(repo, "old", base_commit=first)
    assert res.code == 0, res
    assert (Path(res.out.strip()) / "a.txt").read_text() == "one\n"


def test_create_fails_with_the_reason_outside_a_repository(tmp_path: Path) -> None:
    res = create(tmp_path, "x")
    assert res.code == 1 and res.out == "" and res.err.startswith("pylon: ") and "not inside a git checkout" in res.err


def test_create_without_a_name_is_refused(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "a\n"})
    nameless = run_cmd(
        "pylon",
        "hook",
        "claude-code",
        cwd=repo,
        input=json.dumps({"hook_event_name": "WorktreeCreate", "cwd": str(repo)}),
    )
    assert nameless.code == 1 and nameless.out == "" and "names no worktree" in nameless.err


def test_remove_goes_through_ws_rm_and_undo_brings_it_back(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "a\n"})
    path = create(repo, "tmp").out.strip()
    write_files(Path(path), {"work.txt": "unapplied\n"})
    refused = remove(repo, path)
    assert refused.code == 1 and "worktree-has-work" not in refused.out and "work.txt" in refused.err, refused
    assert Path(path, "work.txt").exists()
    os.unlink(Path(path, "work.txt"))
    done = remove(repo, path)
    assert done.code == 0 and done.out == "" and not Path(path).exists(), done
    assert run_cmd("pylon", "ws", "undo", cwd=repo).code == 0
    assert Path(path).is_dir() and "tmp" in listed(repo)


def test_remove_leaves_a_worktree_pylon_did_not_make(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "a\n"})
    plain = repo.parent / "plain"
    git(repo, "worktree", "add", "-q", str(plain))
    res = remove(repo, str(plain))
    assert res.code == 1 and "not a worktree pylon made" in res.err and "git worktree remove" in res.err
    assert plain.is_dir()


def test_undo_of_a_creation_removes_it_unless_it_holds_work(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "a\n"})
    path = Path(create(repo, "scratch").out.strip())
    write_files(path, {"kept.txt": "work\n"})
    refused = run_cmd("pylon", "ws", "undo", cwd=repo)
    assert refused.code == 1 and "error[worktree-has-work]" in refused.err and path.exists()
    os.unlink(path / "kept.txt")
    assert run_cmd("pylon", "ws", "undo", cwd=repo).code == 0
    assert not path.exists() and listed(repo) == {}


def test_session_start_in_a_plain_worktree_names_what_it_lacks(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "a\n"})
    claude = repo / ".claude" / "worktrees" / "feat"
    git(repo, "worktree", "add", "-q", "--detach", str(claude))
    write_files(repo, {"a.txt": "the person's edit\n", "b.txt": "untracked\n"})
    event = {"hook_event_name": "SessionStart", "cwd": str(claude), "session_id": "s", "source": "startup"}
    res = run_cmd("pylon", "hook", "claude-code", cwd=claude, input=json.dumps(event))
    text = res.json()["hookSpecificOutput"]["additionalContext"]
    assert "a Claude Code worktree" in text and "2 uncommitted path(s) of the main checkout" in text, text
    baseline = text.split("git merge --ff-only ")[1].split("`")[0]
    git(claude, "merge", "-q", "--ff-only", baseline)  # the note's command brings the person's state in
    assert (claude / "a.txt").read_text() == "the person's edit\n" and (claude / "b.txt").exists()
    # in the main checkout and in an owned worktree: nothing to say
    main = {**event, "cwd": str(repo)}
    assert "additionalContext" not in run_cmd("pylon", "hook", "claude-code", cwd=repo, input=json.dumps(main)).out
