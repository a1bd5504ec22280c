"""`pylon ws sync ID [--from checkout|ID2] [--markers]`: the checkout's state merged into a session.

Oracle: git itself (apply_oracle.Oracle) doing the same three-way merge the other way round: the
checkout's change since the baseline cherry-picked (`--no-commit`) onto the session's state.
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest

from tests.conftest import git, sized, write_files
from tests.workspace.apply_oracle import Oracle, ignored, visible
from tests.workspace.helpers import index_snapshot, pylon
from tests.workspace.states import build, differences, mutate, snapshot
from tests.workspace.wt_helpers import new


def _session(repo: Path, wid: str = "a") -> tuple[Path, str]:
    made = new(repo, wid)
    return Path(str(made["path"])), str(made["baseline"])


def test_sync_brings_committed_and_uncommitted_checkout_work_and_keeps_the_sessions(repo: Path, tmp_path: Path) -> None:
    write_files(repo, {"shared.txt": "1\n2\n3\n4\n5\n6\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "shared")
    path, baseline = _session(repo)
    write_files(path, {"shared.txt": "1\n2\n3\n4\n5\nSESSION\n", "mine.txt": "session\n"})
    git(path, "add", "mine.txt")  # staged in the session: its index must stay as it is
    write_files(repo, {"src/app.py": "print('committed')\n"})
    git(repo, "commit", "-qam", "person commits")
    write_files(repo, {"shared.txt": "PERSON\n2\n3\n4\n5\n6\n", "new.txt": "untracked\n"})
    conflicted, expected = Oracle(tmp_path / "oracle", repo).merge(path, repo, baseline)
    assert not conflicted
    before = snapshot(path)
    raw_index = index_snapshot(path)
    checkout_before = snapshot(repo)
    res = pylon("ws", "sync", "a", cwd=repo)
    assert res.code == 0, res
    assert res.out.startswith("synced a from the checkout: 3 path(s) changed in its worktree\n"), res
    assert "pylon ws undo" in res.err
    after = snapshot(path)
    assert visible(after["files"]) == expected
    assert (path / "shared.txt").read_text() == "PERSON\n2\n3\n4\n5\nSESSION\n"
    assert index_snapshot(path) == raw_index and after["head"] == before["head"]
    assert differences(checkout_before, snapshot(repo)) == []  # the source is only read
    again = pylon("ws", "sync", "a", cwd=repo)
    assert again.code == 0 and again.out.startswith("nothing to sync into a"), again
    undo = pylon("ws", "undo", cwd=repo)
    assert undo.code == 0, undo
    assert differences(before, snapshot(path)) == []


def test_sync_then_apply_then_sync_merges_only_what_is_new(repo: Path) -> None:
    """After a sync, apply and the next sync start from where the two last agreed (no false conflicts)."""
    write_files(repo, {"f.txt": "a\nb\nc\nd\ne\nf\ng\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "f")
    path, _ = _session(repo)
    write_files(repo, {"f.txt": "A\nb\nc\nd\ne\nf\ng\n"})
    assert pylon("ws", "sync", "a", cwd=repo).code == 0
    write_files(repo, {"f.txt": "A2\nb\nc\nd\ne\nf\ng\n"})  # the person edits the synced line again
    write_files(path, {"f.txt": "A\nb\nc\nd\ne\nf\nG\n"})
    applied = pylon("ws", "apply", "a", cwd=repo)
    assert applied.code == 0, applied  # from the baseline this would be a conflict on line 1
    assert "since its last sync from this checkout" in applied.err
    assert (repo / "f.txt").read_text() == "A2\nb\nc\nd\ne\nf\nG\n"
    write_files(repo, {"f.txt": "A3\nb\nc\nd\ne\nf\nG\n"})
    synced = pylon("ws", "sync", "a", cwd=repo)
    assert synced.code == 0, synced
    assert (path / "f.txt").read_text() == "A3\nb\nc\nd\ne\nf\nG\n"


def test_conflicts_change_nothing_or_are_written_as_markers(repo: Path, tmp_path: Path) -> None:
    write_files(repo, {"f.txt": "a\nb\nc\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "f")
    path, _ = _session(repo)
    write_files(path, {"f.txt": "a\nSESSION\nc\n"})
    write_files(repo, {"f.txt": "a\nPERSON\nc\n", "other.txt": "o\n"})
    before = snapshot(path)
    refused = pylon("ws", "sync", "a", cwd=repo)
    assert refused.code == 1 and "error[sync-conflicts]" in refused.err, refused
    assert "pylon ws sync a --markers" in refused.err
    assert "<<<<<<< session a" in refused.err and ">>>>>>> checkout" in refused.err
    assert differences(before, snapshot(path)) == []
    marked = pylon("ws", "sync", "a", "--markers", "--diff3", "--json", cwd=repo)
    assert marked.code == 0, marked
    assert marked.json()["markers"] == ["f.txt"]
    # git merge-file with the same labels is the oracle for the file's bytes
    for name, data in (("ours", "a\nSESSION\nc\n"), ("base", "a\nb\nc\n"), ("theirs", "a\nPERSON\nc\n")):
        (tmp_path / name).write_text(data)
    oracle = subprocess.run(
        [
            "git",
            "merge-file",
            "-p",
            "--diff3",
            "-L",
            "session a",
            "-L",
            "base",
            "-L",
            "checkout",
            "ours",
            "base",
            "theirs",
        ],
        cwd=tmp_path,
        capture_output=True,
    ).stdout
    assert (path / "f.txt").read_bytes() == oracle
    assert (path / "other.txt").read_text() == "o\n"
    assert pylon("ws", "undo", cwd=path).code == 0  # the op log is shared: undo works from the session too
    assert differences(before, snapshot(path)) == []


def test_sync_from_another_session(repo: Path) -> None:
    one, _ = _session(repo, "one")
    two, _ = _session(repo, "two")
    write_files(one, {"from-one.txt": "1\n", "README.md": "# demo\none\n"})
    write_files(two, {"from-two.txt": "2\n"})
    res = pylon("ws", "sync", "two", "--from", "one", cwd=repo)
    assert res.code == 0, res
    assert "synced two from session one" in res.out
    assert (two / "from-one.txt").read_text() == "1\n" and (two / "from-two.txt").read_text() == "2\n"
    assert (two / "README.md").read_text() == "# demo\none\n"
    bad = pylon("ws", "sync", "two", "--from", "two", "--json", cwd=repo)
    assert bad.code == 2 and bad.json()["error"]["code"] == "sync-from-itself"


def test_ws_list_shows_how_far_behind_the_checkout(repo: Path) -> None:
    path, _ = _session(repo)
    doc = pylon("ws", "list", "--json", cwd=repo).json()
    assert doc["worktrees"][0]["behind_checkout"] == 0
    write_files(repo, {"src/app.py": "print('x')\n", "new.txt": "n\n"})
    write_files(path, {"new.txt": "n\n"})  # the same content on both sides is not behind
    doc = pylon("ws", "list", "--json", cwd=repo).json()
    assert doc["worktrees"][0]["behind_checkout"] == 1
    table = pylon("ws", "list", cwd=repo).out
    assert "BEHIND" in table.splitlines()[0]
    assert pylon("ws", "sync", "a", cwd=repo).code == 0
    assert pylon("ws", "list", "--json", cwd=repo).json()["worktrees"][0]["behind_checkout"] == 0


def differential_round(tmp_path: Path, seed: int) -> str:
    rng = random.Random(seed)
    repo = build(tmp_path / f"r{seed}", rng)
    mutate(repo, rng, rng.randint(0, 6))
    made = new(repo, "s")
    path = Path(str(made["path"]))
    log = mutate(path, rng, rng.randint(0, 6), commit=rng.random() < 0.5)
    log += ["--- checkout"] + mutate(repo, rng, rng.randint(1, 8), commit=True)
    before = snapshot(path)
    raw_index = index_snapshot(path)
    conflicted, expected = Oracle(tmp_path / f"o{seed}", repo).merge(path, repo, str(made["baseline"]))
    result = pylon("ws", "sync", "s", "--json", cwd=repo)
    after = snapshot(path)
    where = f"seed {seed}: {log}"
    if conflicted:
        assert result.code == 1 and result.json()["error"]["code"] == "sync-conflicts", (where, result)
        found = {c["path"].encode() for c in result.json()["error"]["conflicts"]}
        # a file moved aside by a file/folder clash is named after each side's label: `~<id>`
        assert {p.split(b"~")[0] for p in found} == {p.split(b"~")[0] for p in conflicted}, where
        assert differences(before, after) == [], where
        return "conflict"
    assert result.code == 0, (where, result)
    assert index_snapshot(path) == raw_index and after["head"] == before["head"], where
    assert visible(after["files"]) == expected, where
    kept = {p: v for p, v in before["files"].items() if ignored(p)}
    assert {p: v for p, v in after["files"].items() if ignored(p)} == kept, where
    return "synced"


# 125: the checkout's 0750 file that the session rewrote as 644 stays 644 (the merged tree's mode decides
# the x bit of a file the sync does not write)
@pytest.mark.parametrize("seed", [*range(sized(4, 8)), 125])
def test_random_syncs_match_git(tmp_path: Path, seed: int) -> None:
    differential_round(tmp_path, seed)


@pytest.mark.slow
def test_random_syncs_match_git_many(tmp_path: Path) -> None:
    outcomes = [differential_round(tmp_path, seed) for seed in range(100, 140)]
    assert "synced" in outcomes and "conflict" in outcomes


def test_times_are_the_sessions_own(repo: Path) -> None:
    """A new session's last change is its creation, not the date of the commit it started from."""
    old = "2001-02-03T04:05:06"
    write_files(repo, {"old.txt": "old\n"})
    git(repo, "add", "-A")
    subprocess.run(
        ["git", "commit", "-qm", "old"],
        cwd=repo,
        check=True,
        env={**os.environ, "GIT_AUTHOR_DATE": old, "GIT_COMMITTER_DATE": old},
    )
    path, _ = _session(repo)  # made now, from a commit dated 2001
    row = pylon("ws", "list", "--json", cwd=repo).json()["worktrees"][0]
    assert row["last_change"] == row["created"] and not row["last_change"].startswith("2001"), row
    since = pylon("ws", "changes", cwd=path).err
    assert since.startswith("pylon: since session:a (session, ") and "2001" not in since, since


def test_the_since_line_names_the_named_baselines_when_it_falls_back_to_head(repo: Path) -> None:
    assert pylon("ws", "baseline", "start", cwd=repo).code == 0
    write_files(repo, {"README.md": "changed\n"})
    since = pylon("ws", "changes", cwd=repo).err
    assert "there is no `last` baseline; named: start, e.g. --since start" in since, since
    assert "no baseline," not in since
