"""`pylon ws fingerprint` and `pylon ws run`."""

from __future__ import annotations

import os
from pathlib import Path

from tests.workspace.helpers import git, pylon, write_files


def _fp(repo: Path) -> str:
    r = pylon("ws", "fingerprint", cwd=repo)
    assert r.code == 0, r
    assert len(r.out.strip()) == 16
    return r.out.strip()


def test_fingerprint_is_stable_and_follows_every_part_of_the_state(repo: Path) -> None:
    a = _fp(repo)
    assert _fp(repo) == a
    write_files(repo, {"ignored.log": "x\n", "build/o": "y\n"})
    assert _fp(repo) == a  # ignored files are not part of the state
    write_files(repo, {"untracked.txt": "u\n"})
    b = _fp(repo)
    assert b != a
    os.chmod(repo / "src/app.py", 0o755)
    c = _fp(repo)
    assert c not in (a, b)
    os.chmod(repo / "src/app.py", 0o644)
    assert _fp(repo) == b
    (repo / "untracked.txt").unlink()
    assert _fp(repo) == a
    git(repo, "commit", "-q", "--allow-empty", "-m", "moves HEAD only")
    assert _fp(repo) != a
    doc = pylon("ws", "fingerprint", "--json", cwd=repo).json()
    assert set(doc) >= {"fingerprint", "head", "branch", "index_tree", "worktree_tree", "notes"}


def test_run_reports_exactly_what_the_command_changed(repo: Path) -> None:
    write_files(repo, {"already-dirty.txt": "before\n"})
    script = (
        "echo made > made.txt && rm docs/guide.txt && echo more >> src/app.py && chmod +x src/util.py "
        "&& touch README.md"
    )
    r = pylon("ws", "run", "--json", "--", "sh", "-c", script, cwd=repo)
    assert r.code == 0, r
    doc = r.json()
    got = {f["path"]: f["status"] for f in doc["files"]}
    assert got == {"made.txt": "added", "docs/guide.txt": "deleted", "src/app.py": "modified", "src/util.py": "mode"}
    assert doc["exit_code"] == 0 and doc["head"]["changed"] is False and doc["index_changed"] is False


def test_run_exit_status_output_streams_and_text_report(repo: Path) -> None:
    r = pylon("ws", "run", "--", "sh", "-c", "echo to-stdout; echo x > f.txt; exit 7", cwd=repo)
    assert r.code == 7
    assert r.out == "to-stdout\n"  # the command's own stdout stays on stdout in text mode
    assert "exited 7 and changed 1 paths" in r.err and "f.txt" in r.err
    j = pylon("ws", "run", "--json", "echo hidden; exit 3", cwd=repo)  # one argument runs through sh -c
    assert j.code == 3
    assert j.json()["exit_code"] == 3 and "hidden" in j.err  # JSON mode keeps stdout for the document
    missing = pylon("ws", "run", "--", "no-such-command-xyz", "arg", cwd=repo)
    assert missing.code == 127 and "error[command-not-found]" in missing.err


def test_run_reports_head_and_index_moves(repo: Path) -> None:
    r = pylon("ws", "run", "--json", "--", "sh", "-c", "echo s > s.txt && git add s.txt && git commit -qm s", cwd=repo)
    doc = r.json()
    assert doc["head"]["changed"] is True and doc["index_changed"] is True
    assert [f["path"] for f in doc["files"]] == ["s.txt"]


def test_text_reports_say_what_json_says_modes_head_and_branch(repo: Path) -> None:
    write_files(repo, {"src/app.py": "print('and a new mode')\n"})
    os.chmod(repo / "src" / "app.py", 0o755)
    os.chmod(repo / "README.md", 0o755)
    changes = pylon("ws", "changes", "--since", "HEAD", cwd=repo)
    lines = {ln.split()[-1]: ln for ln in changes.out.splitlines()}
    assert lines["README.md"].split()[:2] == ["mode", "100644->100755"]
    assert "+1 -1" in lines["src/app.py"] and "100644->100755" in lines["src/app.py"]  # content and mode
    switch = pylon("ws", "run", "--", "git", "switch", "-q", "-c", "feature", cwd=repo)
    assert switch.code == 0, switch
    assert "branch main -> feature" in switch.err  # HEAD's commit did not move, the branch did
    doc = pylon("ws", "run", "--json", "--", "git", "checkout", "-q", "--detach", cwd=repo).json()
    assert doc["branch"]["changed"] is True and doc["head"]["changed"] is False
    moved = pylon("ws", "run", "--", "sh", "-c", "git switch -q main && git commit -q --allow-empty -m e", cwd=repo)
    head = git(repo, "rev-parse", "HEAD").strip()
    assert f"HEAD moved {doc['head']['after'][:12]} -> {head[:12]}" in moved.err
    assert "branch (detached) -> main" in moved.err
