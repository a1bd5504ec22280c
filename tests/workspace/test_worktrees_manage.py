"""`pylon ws list`, `rm`, `prune` on owned worktrees, with git itself as the oracle."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from tests.conftest import MakeRepo, git, write_files
from tests.workspace.helpers import pylon
from tests.workspace.wt_helpers import new, porcelain, status, tree_files, world


def test_list_is_one_versioned_document_that_agrees_with_git(repo: Path) -> None:
    a = Path(str(new(repo, "a")["path"]))
    b = Path(str(new(repo, "b")["path"]))
    write_files(a, {"src/app.py": "print('a')\n", "a-new.txt": "n\n", "more/x.txt": "x\n"})
    (a / "README.md").unlink()
    write_files(b, {"b.txt": "b\n"})
    git(b, "add", "b.txt")
    git(b, "commit", "-qm", "b work")
    write_files(b, {"docs/guide.txt": "staged\n"})
    git(b, "add", "docs/guide.txt")
    doc = pylon("ws", "list", "--json", cwd=repo).json()
    assert doc["ok"] is True and doc["version"] == 1 and doc["foreign"] == 0
    rows = {w["id"]: w for w in doc["worktrees"]}
    assert set(rows) == {"a", "b"}
    assert set(rows["a"]) >= {
        "id",
        "path",
        "branch",
        "baseline",
        "head",
        "dirty",
        "commits_since_baseline",
        "created",
        "last_change",
        "overlaps",
    }
    for wid, path in (("a", a), ("b", b)):
        lines = git(path, "status", "--porcelain", "-uall").splitlines()
        tracked = sum(1 for ln in lines if not ln.startswith("??"))
        untracked = sum(1 for ln in lines if ln.startswith("??"))
        assert rows[wid]["dirty"] == {"tracked": tracked, "untracked": untracked}, (wid, lines)
        assert rows[wid]["head"] == git(path, "rev-parse", "HEAD").strip()
        count = git(repo, "rev-list", "--count", f"{rows[wid]['baseline']}..{rows[wid]['head']}").strip()
        assert rows[wid]["commits_since_baseline"] == int(count)
    assert rows["a"]["dirty"] == {"tracked": 2, "untracked": 2} and rows["b"]["commits_since_baseline"] == 1
    text = pylon("ws", "list", cwd=repo)
    assert text.code == 0 and "a " in text.out and "2M 2?" in text.out


def test_list_reads_without_touching_the_worktree_indexes(repo: Path) -> None:
    a = Path(str(new(repo, "a")["path"]))
    write_files(a, {"src/app.py": "print('a')\n"})
    index = Path(git(a, "rev-parse", "--git-path", "index").strip())
    before = (index.read_bytes(), index.stat().st_mtime_ns)
    assert pylon("ws", "list", "--json", cwd=repo).code == 0
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before


def test_rm_refuses_uncommitted_work_and_names_paths_and_counts(repo: Path) -> None:
    a = Path(str(new(repo, "a")["path"]))
    write_files(a, {f"new/{i:02d}.txt": f"{i}\n" for i in range(25)})
    result = pylon("ws", "rm", "a", "--json", cwd=repo)
    assert result.code == 1
    error = result.json()["error"]
    assert error["code"] == "worktree-has-work" and error["paths_total"] == 25 and len(error["paths"]) == 20
    assert "25 uncommitted paths" in error["message"] and "and 5 more" in error["message"]
    assert a.exists() and len(porcelain(repo)) == 2


def test_rm_refuses_commits_on_no_other_branch_until_they_are_merged(repo: Path) -> None:
    a = Path(str(new(repo, "a")["path"]))
    write_files(a, {"feature.txt": "f\n"})
    git(a, "add", "feature.txt")
    git(a, "commit", "-qm", "feature")
    result = pylon("ws", "rm", "a", cwd=repo)
    assert result.code == 1 and "1 commit on no other branch" in result.err and "feature.txt" in result.err
    git(repo, "branch", "keep", "pylon-session-a")
    ok = pylon("ws", "rm", "a", "--json", cwd=repo).json()
    assert ok["commits"] == 0 and not a.exists()
    assert git(repo, "branch", "--list", "pylon-session-a") == ""
    assert git(repo, "for-each-ref", "refs/pylon/sessions/") == ""


def test_rm_keep_branch_keeps_the_branch(repo: Path) -> None:
    new(repo, "a")
    assert pylon("ws", "rm", "a", "--keep-branch", cwd=repo).code == 0
    assert git(repo, "branch", "--list", "pylon-session-a").strip()
    assert "pylon-session-a" not in json.dumps(pylon("ws", "list", "--json", cwd=repo).json()["worktrees"])


def test_rm_force_snapshots_and_the_printed_commands_restore_it_exactly(repo: Path) -> None:
    a = Path(str(new(repo, "a")["path"]))
    write_files(a, {"committed.txt": "c\n"})
    git(a, "add", "committed.txt")
    git(a, "commit", "-qm", "work")
    write_files(a, {"src/app.py": "print('unstaged')\n", "staged.txt": "s\n", "untracked dir/u.txt": "u\n"})
    git(a, "add", "staged.txt")
    (a / "docs" / "guide.txt").unlink()
    before_files, before_status = tree_files(a), status(a)
    result = pylon("ws", "rm", "a", "--force", "--json", cwd=repo).json()
    assert result["forced"] is True and str(result["trash"]).startswith("refs/pylon/trash/a-")
    assert not a.exists() and git(repo, "branch", "--list", "pylon-session-a") == ""
    subprocess.run(["git", "gc", "-q", "--prune=now"], cwd=repo, check=True)
    for command in result["restore"]:
        subprocess.run(command, shell=True, cwd=repo, check=True, capture_output=True)
    assert tree_files(a) == before_files
    assert status(a) == before_status


def test_prune_cleans_owned_leftovers_only(repo: Path, tmp_path: Path) -> None:
    a = Path(str(new(repo, "gone")["path"]))
    new(repo, "kept")
    root = a.parent
    shutil.rmtree(a)  # the folder deleted by hand: git's admin entry, the branch and the record remain
    git(repo, "worktree", "add", "-q", str(tmp_path / "plain"))  # foreign, and prunable once deleted
    shutil.rmtree(tmp_path / "plain")
    before = world(repo, root)
    dry = pylon("ws", "prune", "--dry-run", "--json", cwd=repo).json()
    assert [x["id"] for x in dry["actions"]] == ["gone"] and world(repo, root) == before
    assert any("delete branch pylon-session-gone" in step for step in dry["actions"][0]["done"])
    done = pylon("ws", "prune", cwd=repo)
    assert done.code == 0 and "gone" in done.out
    paths = [e["worktree"] for e in porcelain(repo)]
    assert str(a) not in paths and str(tmp_path / "plain") in paths  # the foreign one is still git's to prune
    assert git(repo, "branch", "--list", "pylon-session-gone") == ""
    assert [w["id"] for w in pylon("ws", "list", "--json", cwd=repo).json()["worktrees"]] == ["kept"]
    assert pylon("ws", "prune", "--json", cwd=repo).json()["actions"] == []


def test_prune_removes_an_interrupted_new(repo: Path) -> None:
    made = new(repo, "half")
    common = Path(git(repo, "rev-parse", "--git-common-dir").strip())
    record_path = (repo / common if not common.is_absolute() else common) / "pylon" / "owned" / "half.json"
    record = json.loads(record_path.read_text())
    record["state"] = "creating"  # what a `new` killed before its last step leaves
    record_path.write_text(json.dumps(record))
    listed = pylon("ws", "list", "--json", cwd=repo).json()
    assert listed["worktrees"] == [] and listed["leftovers"] == 1
    assert pylon("ws", "prune", cwd=repo).code == 0
    assert not Path(str(made["path"])).exists() and len(porcelain(repo)) == 1
    assert git(repo, "branch", "--list", "pylon-session-half") == "" and not record_path.exists()


def test_a_new_killed_at_any_moment_is_undone_by_prune(make_repo: MakeRepo) -> None:
    """SIGKILL (pylon and its git together) at several moments; then `prune` (or, when the kill came
    after the end, `rm`) leaves exactly what was there before."""
    import os
    import signal
    import time

    from tests.conftest import script

    repo = make_repo(files={f"d{i // 100}/f{i}.txt": f"{i}\n" * 50 for i in range(3000)})
    write_files(repo, {"dirty.txt": "dirty\n"})
    root = Path(str(new(repo, "probe")["path"])).parent
    assert pylon("ws", "rm", "probe", cwd=repo).code == 0
    before = world(repo, root)
    for n, delay in enumerate((0.05, 0.15, 0.3, 0.5, 0.8)):
        proc = subprocess.Popen(
            [script("pylon"), "ws", "new", f"k{n}"],
            cwd=repo,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(delay)
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        listed = [w["id"] for w in pylon("ws", "list", "--json", cwd=repo).json()["worktrees"]]
        # it finished first (or the kill came between its record turning "ready" and its exit)
        if proc.returncode == 0 or f"k{n}" in listed:
            assert pylon("ws", "rm", f"k{n}", cwd=repo).code == 0
        else:
            assert pylon("ws", "prune", cwd=repo).code == 0
        assert world(repo, root) == before, delay


def test_prune_removes_the_record_temp_of_a_new_killed_while_writing_it(repo: Path) -> None:
    """A `new` killed inside the atomic write of its record leaves `.ID.json.pylon-tmp-PID-HEX` in
    the registry; prune removes it once its owner is dead (seen under load in the kill test above)."""
    from tests.workspace.test_leftovers import dead_pid

    new(repo, "k0")
    assert pylon("ws", "rm", "k0", cwd=repo).code == 0
    registry = Path(git(repo, "rev-parse", "--git-common-dir").strip())
    registry = (registry if registry.is_absolute() else repo / registry) / "pylon" / "owned"
    temp = registry / f".k1.json.pylon-tmp-{dead_pid()}-4aa329"
    temp.write_text('{"id": "k1"', encoding="utf-8")
    assert pylon("ws", "prune", "--dry-run", cwd=repo).code == 0 and temp.exists()  # a dry run changes nothing
    assert pylon("ws", "prune", cwd=repo).code == 0
    assert not temp.exists()


def test_new_prints_the_path_alone_and_status_counts_owned_worktrees(repo: Path) -> None:
    made = pylon("ws", "new", "t1", cwd=repo)
    assert made.code == 0 and made.out.count("\n") == 1 and Path(made.out.strip()).is_dir()
    assert "created worktree t1" in made.err
    git(repo, "worktree", "add", "-q", str(repo.parent / "plain"))
    doc = pylon("ws", "status", "--json", cwd=repo).json()
    assert [w["id"] for w in doc["worktrees"]] == ["t1"]
    assert "owned worktrees: 1" in pylon("ws", "status", cwd=repo).out
