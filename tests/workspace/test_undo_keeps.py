"""`ws undo` reverses the op's own changes, not the world; `ws redo` reverses the undo; every state
of the op log is reachable with `ws restore op-N[:SIDE]`.

Each expected file is what git itself makes of the same three-way revert (`git merge-file`), or
plain bytes written by the test.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import MakeRepo, git, write_files
from tests.workspace.helpers import pylon
from tests.workspace.ops_helpers import diff_snapshots, snapshot
from tests.workspace.wt_helpers import new

TEN = "".join(f"line {n}\n" for n in range(1, 11))


def applied(repo: Path, files: dict[str, str]) -> Path:
    """An owned session that wrote `files`, applied onto the checkout."""
    path = Path(str(new(repo, "a")["path"]))
    write_files(path, files)
    result = pylon("ws", "apply", "a", cwd=repo)
    assert result.code == 0, result
    return path


def test_undo_of_an_apply_keeps_later_edits_to_other_paths_and_new_files(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": TEN, "b.txt": TEN})
    applied(repo, {"a.txt": TEN.replace("line 2\n", "agent 2\n"), "agent.txt": "new\n"})
    write_files(repo, {"b.txt": TEN + "mine\n", "later.txt": "made after the apply\n"})
    result = pylon("ws", "undo", cwd=repo)
    assert result.code == 0, result
    assert (repo / "a.txt").read_text() == TEN
    assert not (repo / "agent.txt").exists()
    assert (repo / "b.txt").read_text() == TEN + "mine\n"
    assert (repo / "later.txt").read_text() == "made after the apply\n"
    assert "kept 2 path(s) changed since: b.txt, later.txt" in result.err


def test_undo_merges_later_edits_to_other_lines_of_the_same_file(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = make_repo({"a.txt": TEN})
    agent = TEN.replace("line 2\n", "agent 2\n")
    applied(repo, {"a.txt": agent})
    mine = agent.replace("line 9\n", "mine 9\n")
    write_files(repo, {"a.txt": mine})
    result = pylon("ws", "undo", "--json", cwd=repo)
    assert result.code == 0, result
    assert (repo / "a.txt").read_text() == git_revert(tmp_path, agent, mine, TEN) == TEN.replace("line 9\n", "mine 9\n")
    later = next(iter(result.json()["later"].values()))
    assert later["merged"] == ["a.txt"] and later["kept"] == ["a.txt"]


def test_undo_conflict_writes_nothing_and_markers_write_both_sides_reversibly(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": TEN, "b.txt": TEN})
    agent = TEN.replace("line 2\n", "agent 2\n")
    applied(repo, {"a.txt": agent, "b.txt": TEN + "agent\n"})
    write_files(repo, {"a.txt": TEN.replace("line 2\n", "mine 2\n").replace("line 1\n", "mine 1\n")})
    before = snapshot(repo)
    refused = pylon("ws", "undo", "--json", cwd=repo)
    assert refused.code != 0
    error = refused.json()["error"]
    assert error["code"] == "undo-conflicts" and [c["path"] for c in error["conflicts"]] == ["a.txt"]
    assert "pylon ws undo --markers" in error["hint"]
    assert diff_snapshots(before, snapshot(repo)) == []
    assert pylon("ws", "undo", "--list", "--json", cwd=repo).json()["ops"][0]["status"] == "done"
    marked = pylon("ws", "undo", "--markers", cwd=repo)
    assert marked.code == 0, marked
    text = (repo / "a.txt").read_text()
    assert "<<<<<<< now\n" in text and ">>>>>>> before op 1\n" in text and "mine 2\n" in text
    assert (repo / "b.txt").read_text() == TEN  # the rest of the op is reversed
    assert "wrote conflict markers in 1 path(s): a.txt" in marked.err
    redone = pylon("ws", "redo", cwd=repo)
    assert redone.code == 0, redone
    assert diff_snapshots(before, snapshot(repo)) == []


def test_undo_then_redo_round_trips_exactly_and_redo_keeps_work_done_after_the_undo(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": TEN, "b.txt": TEN})
    applied(repo, {"a.txt": TEN.replace("line 2\n", "agent 2\n")})
    write_files(repo, {"b.txt": TEN + "later\n"})
    after_apply = snapshot(repo)
    assert pylon("ws", "undo", cwd=repo).code == 0
    write_files(repo, {"c.txt": "after the undo\n"})
    result = pylon("ws", "redo", cwd=repo)
    assert result.code == 0, result
    assert (repo / "a.txt").read_text() == TEN.replace("line 2\n", "agent 2\n")
    assert (repo / "c.txt").read_text() == "after the undo\n"
    (repo / "c.txt").unlink()
    assert diff_snapshots(after_apply, snapshot(repo)) == []
    assert pylon("ws", "redo", "--json", cwd=repo).json()["error"]["code"] == "nothing-to-redo"
    assert pylon("ws", "undo", cwd=repo).code == 0  # the redone op is undone again
    assert (repo / "a.txt").read_text() == TEN


def test_redo_walks_forward_in_the_order_undo_walked_back(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": TEN})
    git(repo, "tag", "t0")
    assert pylon("ws", "baseline", "b0", cwd=repo).code == 0
    write_files(repo, {"a.txt": "one\n"})
    assert pylon("ws", "baseline", "b1", cwd=repo).code == 0
    write_files(repo, {"a.txt": "two\n"})
    assert pylon("ws", "restore", "b0", cwd=repo).code == 0  # op 1: two -> TEN
    assert pylon("ws", "restore", "b1", cwd=repo).code == 0  # op 2: TEN -> one
    assert pylon("ws", "undo", cwd=repo).code == 0
    assert pylon("ws", "undo", cwd=repo).code == 0
    assert (repo / "a.txt").read_text() == "two\n"
    assert pylon("ws", "redo", cwd=repo).code == 0
    assert (repo / "a.txt").read_text() == TEN
    assert pylon("ws", "redo", cwd=repo).code == 0
    assert (repo / "a.txt").read_text() == "one\n"


def test_restore_reaches_every_state_of_an_op(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": TEN, "b.txt": TEN})
    applied(repo, {"a.txt": "agent\n"})
    write_files(repo, {"b.txt": "later\n"})
    assert pylon("ws", "undo", cwd=repo).code == 0  # op 1 undone; b.txt kept
    assert (repo / "a.txt").read_text() == TEN and (repo / "b.txt").read_text() == "later\n"
    result = pylon("ws", "restore", "op-1:after", "a.txt", cwd=repo)
    assert result.code == 0, result
    assert (repo / "a.txt").read_text() == "agent\n" and (repo / "b.txt").read_text() == "later\n"
    assert pylon("ws", "restore", "op-1", cwd=repo).code == 0  # :before is the default
    assert (repo / "a.txt").read_text() == TEN and (repo / "b.txt").read_text() == TEN
    assert pylon("ws", "restore", "op-1:before-undo", cwd=repo).code == 0
    assert (repo / "a.txt").read_text() == "agent\n" and (repo / "b.txt").read_text() == "later\n"
    for bad in ("op-9", "op-1:sideways", "op-x"):
        refused = pylon("ws", "restore", bad, "--json", cwd=repo)
        assert refused.json()["error"]["code"] == "unknown-snapshot", bad
        assert "pylon ws log" in refused.json()["error"]["hint"]


def git_revert(tmp: Path, after: str, now: str, before: str) -> str:
    """git's own three-way merge of the change after -> before onto `now`."""
    tmp.mkdir(parents=True, exist_ok=True)
    for name, text in (("now", now), ("after", after), ("before", before)):
        (tmp / name).write_text(text)
    with open(tmp / "out", "wb") as out:
        subprocess.run(["git", "merge-file", "-p", "now", "after", "before"], cwd=tmp, check=False, stdout=out)
    return (tmp / "out").read_text()


def test_undo_right_after_a_guarded_rm_rf_brings_the_files_back_and_keeps_later_work(make_repo: MakeRepo) -> None:
    from tests.keep.hookpath import run_through_hooks

    repo = make_repo({"src/a.txt": "one\n", "src/deep/b.txt": "two\n", "other.txt": "three\n"})
    write_files(repo, {"src/untracked.txt": "not committed\n"})
    answer, _ = run_through_hooks(repo, "rm -rf src")  # as the agent's client runs it
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert "`pylon ws restore op-1 src`" in context and "`pylon ws undo` right after" in context
    assert pylon("ws", "log", cwd=repo).code == 0  # the capture after the command is done
    write_files(repo, {"other.txt": "edited later\n", "src/a.txt": "made again later\n"})
    refused = pylon("ws", "undo", cwd=repo)  # src/a.txt made again since, other than it was: a conflict
    assert refused.code != 0 and "Since `shell: rm -rf src` (op 1)" in refused.err and "src/a.txt" in refused.err
    assert not (repo / "src/deep").exists()  # nothing written
    result = pylon("ws", "undo", "--markers", cwd=repo)
    assert result.code == 0, result
    assert (repo / "src/deep/b.txt").read_text() == "two\n"
    assert (repo / "src/untracked.txt").read_text() == "not committed\n"
    assert "made again later\n" in (repo / "src/a.txt").read_text() and "one\n" in (repo / "src/a.txt").read_text()
    assert (repo / "other.txt").read_text() == "edited later\n"
    assert "conflict markers in 1 path(s): src/a.txt" in result.err and "other.txt" in result.err, result
    assert pylon("ws", "restore", "op-1:before", "src/a.txt", cwd=repo).code == 0
    assert (repo / "src/a.txt").read_text() == "one\n"


def test_undo_of_a_path_restore_merges_text_and_keeps_a_binary_edited_since(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "a\nb\nc\n", "b.bin": b"\x00\x01bin", "c.txt": "c\n"})
    assert pylon("ws", "baseline", "b0", cwd=repo).code == 0
    write_files(repo, {"a.txt": "A\nb\nc\n", "b.bin": b"\x00\x02bin"})
    assert pylon("ws", "restore", "b0", "a.txt", "b.bin", cwd=repo).code == 0
    write_files(repo, {"a.txt": "a\nb\nC\n", "b.bin": b"\x00\x03bin", "c.txt": "later\n"})
    refused = pylon("ws", "undo", "--json", cwd=repo)
    assert refused.json()["error"]["code"] == "undo-conflicts"
    assert [c["path"] for c in refused.json()["error"]["conflicts"]] == ["b.bin"]
    marked = pylon("ws", "undo", "--markers", cwd=repo)
    assert marked.code == 0, marked
    assert (repo / "a.txt").read_text() == "A\nb\nC\n"  # the restore's own change reversed, the later one kept
    assert (repo / "b.bin").read_bytes() == b"\x00\x03bin" and (repo / "c.txt").read_text() == "later\n"
    assert "kept 3 path(s) changed since: a.txt, b.bin, c.txt" in marked.err and "conflict markers" not in marked.err
    assert pylon("ws", "restore", "op-1:after", "a.txt", cwd=repo).code == 0  # after = before with a.txt restored
    assert (repo / "a.txt").read_text() == "a\nb\nc\n"
