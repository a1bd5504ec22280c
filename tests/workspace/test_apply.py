"""`pylon ws apply`: the merged result, the untouched index and HEAD, conflicts, refusals.

The merged working tree is compared with what git itself does for the same three-way merge
(`git cherry-pick --no-commit` in a scratch clone, apply_oracle.py); the index, HEAD and every
file (ignored ones included) are compared as raw bytes (states.snapshot).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from tests.conftest import git, sized, write_files
from tests.workspace.apply_oracle import Oracle, ignored, visible
from tests.workspace.helpers import index_snapshot, pylon
from tests.workspace.states import build, differences, files, mutate, snapshot
from tests.workspace.wt_helpers import new


def session(repo: Path, wid: str = "a") -> tuple[Path, str]:
    made = new(repo, wid)
    return Path(str(made["path"])), str(made["baseline"])


def test_apply_merges_session_work_as_unstaged_changes_and_keeps_the_index(repo: Path, tmp_path: Path) -> None:
    write_files(repo, {"src/app.py": "print('hello')\n", "staged.txt": "one\ntwo\nthree\n"})
    git(repo, "add", "staged.txt")
    write_files(repo, {"untracked.txt": "mine\n"})
    path, baseline = session(repo)
    write_files(path, {"staged.txt": "one\ntwo\nTHREE\n", "agent.txt": "new\n", "src/app.py": "print('agent')\n"})
    git(path, "add", "agent.txt")
    git(path, "commit", "-qm", "agent work")
    (path / "README.md").unlink()
    write_files(repo, {"staged.txt": "ONE\ntwo\nthree\n"})  # the person keeps working: unstaged edit of a staged file
    git_index = git(repo, "ls-files", "-s")
    raw_index = index_snapshot(repo)
    head = git(repo, "rev-parse", "HEAD")
    conflicted, expected = Oracle(tmp_path / "oracle", repo).merge(repo, path, baseline)
    assert not conflicted
    result = pylon("ws", "apply", "a", "--json", cwd=repo)
    assert result.code == 0, result
    doc = result.json()
    assert doc["applied"] is True and doc["staged_kept"] is True
    assert {f["path"]: f["status"] for f in doc["files"]} == {
        "staged.txt": "modified",
        "agent.txt": "added",
        "src/app.py": "modified",
        "README.md": "deleted",
    }
    assert index_snapshot(repo) == raw_index and git(repo, "ls-files", "-s") == git_index
    assert git(repo, "rev-parse", "HEAD") == head
    assert visible(files(repo)) == expected
    assert (repo / "staged.txt").read_text() == "ONE\ntwo\nTHREE\n"
    assert git(repo, "show", ":staged.txt") == "one\ntwo\nthree\n"  # the staged version is as it was
    assert git(repo, "status", "--porcelain").splitlines() == [
        " D README.md",
        " M src/app.py",
        "AM staged.txt",
        "?? agent.txt",
        "?? untracked.txt",
    ]


def test_apply_text_output_names_the_paths_and_the_undo(repo: Path) -> None:
    path, _ = session(repo)
    write_files(path, {"agent.txt": "new\n"})
    result = pylon("ws", "apply", "a", cwd=repo)
    assert result.code == 0, result
    assert result.out == "applied a: 1 path(s) changed in the working tree\n  added     agent.txt\n"
    assert "staged index is as it was" in result.err and "pylon ws undo" in result.err
    again = pylon("ws", "apply", "a", cwd=repo)
    assert again.code == 0 and again.out.startswith("nothing to apply from a")


def test_conflicts_are_reported_with_context_and_nothing_changes(repo: Path) -> None:
    write_files(repo, {"f.txt": "a\nb\nc\n", "g.txt": "g\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "files")
    path, _ = session(repo)
    write_files(path, {"f.txt": "a\nSESSION\nc\n", "g.txt": "g\nsession only\n", "h.txt": "h\n"})
    write_files(repo, {"f.txt": "a\nPERSON\nc\n"})
    git(repo, "add", "f.txt")
    before = snapshot(repo)
    raw_index = index_snapshot(repo)
    result = pylon("ws", "apply", "a", cwd=repo)
    assert result.code == 1, result
    assert "error[apply-conflicts]" in result.err and "f.txt" in result.err and "nothing was changed" in result.err
    assert "<<<<<<< checkout" in result.err and ">>>>>>> session a" in result.err and "PERSON" in result.err
    assert "g.txt" not in result.err.split("error[")[0]
    doc = pylon("ws", "apply", "a", "--json", cwd=repo).json()
    assert doc["ok"] is False and doc["error"]["code"] == "apply-conflicts" and doc["error"]["total"] == 1
    (conflict,) = doc["error"]["conflicts"]
    assert conflict["path"] == "f.txt" and conflict["hunks"][0]["line"] == 2
    assert differences(before, snapshot(repo)) == [] and index_snapshot(repo) == raw_index


@pytest.mark.parametrize("kind", ["merge", "rebase", "cherry-pick", "bisect"])
def test_refused_while_git_is_in_the_middle_of_something(repo: Path, kind: str) -> None:
    path, _ = session(repo)
    write_files(path, {"agent.txt": "new\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-qb", "other")
    write_files(repo, {"README.md": "other\n"})
    git(repo, "commit", "-qam", "other")
    git(repo, "checkout", "-q", "main")
    write_files(repo, {"README.md": "main\n"})
    git(repo, "commit", "-qam", "main")
    way_out = {
        "merge": "git merge --abort",
        "rebase": "git rebase --abort",
        "cherry-pick": "git cherry-pick --abort",
        "bisect": "git bisect reset",
    }[kind]
    if kind == "merge":
        git(repo, "merge", "other", check=False)
    elif kind == "rebase":
        git(repo, "rebase", "other", check=False)
    elif kind == "cherry-pick":
        git(repo, "cherry-pick", "other", check=False)
    else:
        git(repo, "bisect", "start", "HEAD", base)
    before = snapshot(repo)
    result = pylon("ws", "apply", "a", cwd=repo)
    assert result.code == 1 and "error[operation-in-progress]" in result.err, result
    assert way_out in result.err
    assert pylon("ws", "apply", "a", "--json", cwd=repo).json()["error"]["code"] == "operation-in-progress"
    assert differences(before, snapshot(repo)) == []


def test_only_owned_worktrees_are_applied(repo: Path, tmp_path: Path) -> None:
    foreign = tmp_path / "plain"
    git(repo, "worktree", "add", "-q", str(foreign))
    write_files(foreign, {"x.txt": "x\n"})
    before = snapshot(repo)
    unknown = pylon("ws", "apply", "plain", cwd=repo)
    assert unknown.code == 1 and "error[unknown-worktree]" in unknown.err
    bad = pylon("ws", "apply", "../x", "--json", cwd=repo)
    assert bad.code == 2 and bad.json()["error"]["code"] == "bad-worktree-id"
    path, _ = session(repo)
    record = Path(git(repo, "rev-parse", "--git-common-dir").strip())
    record = (record if record.is_absolute() else repo / record) / "pylon" / "owned" / "a.json"
    record.write_text(record.read_text().replace("pylon-session-a", "pylon-session-b"))
    edited = pylon("ws", "apply", "a", "--json", cwd=repo)
    assert edited.code == 1 and edited.json()["error"]["code"] == "foreign-worktree"
    assert differences(before, snapshot(repo)) == []


def test_apply_into_the_session_itself_is_refused(repo: Path) -> None:
    path, _ = session(repo)
    result = pylon("ws", "apply", "a", cwd=path)
    assert result.code == 1 and "error[apply-into-itself]" in result.err and "ws apply a" in result.err


def test_an_ignored_file_in_the_way_is_never_overwritten(repo: Path) -> None:
    write_files(repo, {".gitignore": "*.log\n"})
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-qm", "ignore")
    path, _ = session(repo)
    write_files(path, {".gitignore": "", "build.log": "agent's log, now tracked\n"})
    write_files(repo, {"build.log": "the person's ignored log\n"})
    before = snapshot(repo)
    result = pylon("ws", "apply", "a", "--json", cwd=repo)
    assert result.code == 1 and result.json()["error"]["code"] == "apply-would-overwrite", result
    assert "build.log" in result.json()["error"]["message"]
    assert differences(before, snapshot(repo)) == []


@pytest.mark.parametrize("case", ["folder-where-ignored-file-is", "file-where-folder-holds-ignored"])
def test_ignored_files_in_the_way_of_a_folder_swap_are_never_deleted(repo: Path, case: str) -> None:
    write_files(repo, {".gitignore": "*.log\n", "tool/main.txt": "m\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "tool")
    path, _ = session(repo)
    if case == "folder-where-ignored-file-is":
        write_files(path, {".gitignore": "", "out.log/result.txt": "the agent made a folder\n"})
        write_files(repo, {"out.log": "ignored\n"})
    else:
        git(path, "rm", "-q", "tool/main.txt")
        write_files(path, {"tool": "now a file\n"})
        write_files(repo, {"tool/debug.log": "ignored, inside the folder\n"})
    before = snapshot(repo)
    result = pylon("ws", "apply", "a", "--json", cwd=repo)
    assert result.code == 1 and result.json()["error"]["code"] == "apply-would-overwrite", result
    assert differences(before, snapshot(repo)) == []


def user_paths(conflicted: set[bytes]) -> set[bytes]:
    """git's conflicted paths as `ws conflicts` names them: where two types meet (file and folder,
    file and symlink), git's merge puts one side aside as `PATH~HEAD` or `PATH~<abbrev> (<subject>)`;
    pylon reports that conflict under PATH, the name the person knows."""
    return {re.sub(rb"~(?:HEAD|[0-9a-f]{7,40}(?: \(.*\))?)$", b"", p) for p in conflicted}


def differential_round(tmp_path: Path, seed: int) -> str:
    """One random three-way merge: pylon's result must be git's, and nothing else may change."""
    rng = random.Random(seed)
    repo = build(tmp_path / f"r{seed}", rng)
    mutate(repo, rng, rng.randint(0, 6))  # the person's dirty state, carried into the baseline
    made = new(repo, "s")
    path = Path(str(made["path"]))
    log = mutate(path, rng, rng.randint(1, 8), commit=True)
    log += ["--- checkout"] + mutate(repo, rng, rng.randint(0, 6))
    before = snapshot(repo)
    raw_index = index_snapshot(repo)
    conflicted, expected = Oracle(tmp_path / f"o{seed}", repo).merge(repo, path, str(made["baseline"]))
    result = pylon("ws", "apply", "s", "--json", cwd=repo)
    after = snapshot(repo)
    where = f"seed {seed}: {log}"
    if conflicted:
        assert result.code == 1 and result.json()["error"]["code"] == "apply-conflicts", (where, result)
        paths = {c["path"].encode() for c in result.json()["error"]["conflicts"]}
        assert paths == user_paths(conflicted), (where, paths, conflicted)
        assert differences(before, after) == [], where
        return "conflict"
    assert result.code == 0, (where, result)
    assert index_snapshot(repo) == raw_index and after["index"] == before["index"], where
    assert after["head"] == before["head"] and after["branch"] == before["branch"], where
    assert visible(after["files"]) == expected, where
    kept = {p: v for p, v in before["files"].items() if ignored(p)}
    assert {p: v for p, v in after["files"].items() if ignored(p)} == kept, where
    return "applied"


# 125: the person's 0750 file, edited to 644 by the session, must come back 644 (the merged tree's
# mode decides the x bit, not the checkout's recorded odd bits); 139: a file against a symlink, which
# git's merge also names PATH~<commit> (user_paths)
@pytest.mark.parametrize("seed", [*range(sized(3, 12)), 125, 139])
def test_random_merges_match_git(tmp_path: Path, seed: int) -> None:
    differential_round(tmp_path, seed)


@pytest.mark.slow
def test_random_merges_match_git_many(tmp_path: Path) -> None:
    outcomes = [differential_round(tmp_path, seed) for seed in range(100, 160)]
    assert "applied" in outcomes and "conflict" in outcomes


def test_a_sparse_checkout_is_refused(repo: Path) -> None:
    write_files(repo, {"keep/a.txt": "a\n", "out/b.txt": "b\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "two folders")
    path, _ = session(repo)
    write_files(path, {"out/b.txt": "agent\n"})
    git(repo, "sparse-checkout", "set", "keep")
    before = snapshot(repo)
    result = pylon("ws", "apply", "a", "--json", cwd=repo)
    assert result.code == 1 and result.json()["error"]["code"] == "apply-sparse-checkout", result
    assert differences(before, snapshot(repo)) == []
