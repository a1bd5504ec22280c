"""A second `ws apply` of a session that kept working merges only what it changed since the first
(the base moves to the session state of that apply, applied.py), and `ws conflicts` against the
checkout judges the same merge. git is the oracle: the same three-way merge by `git cherry-pick`
in a scratch clone, with the session's state at the first apply as the base."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import write_files
from tests.workspace.apply_oracle import Oracle, visible
from tests.workspace.helpers import pylon
from tests.workspace.states import differences, files, snapshot
from tests.workspace.wt_helpers import new


def started(repo: Path, tmp_path: Path) -> tuple[Path, str, Oracle]:
    write_files(repo, {"notes.txt": "one\ntwo\nthree\n"})
    made = new(repo, "a")
    path = Path(str(made["path"]))
    write_files(
        path, {"feature.py": "def f():\n    return 1\n\n\ndef g():\n    return 2\n", "README.md": "# by the agent\n"}
    )
    return path, str(made["baseline"]), Oracle(tmp_path / "oracle", repo)


def test_a_second_apply_merges_from_the_first(repo: Path, tmp_path: Path) -> None:
    path, baseline, oracle = started(repo, tmp_path)
    first = pylon("ws", "apply", "a", "--json", cwd=repo)
    assert first.code == 0, first
    assert first.json()["base"]["kind"] == "baseline"
    applied = oracle.commit(oracle.tree_of(path), baseline)  # the oracle's copy of the session then
    # the agent keeps going; the person edits another part of the file the agent added
    write_files(path, {"feature.py": "def f():\n    return 10\n\n\ndef g():\n    return 2\n", "more.txt": "more\n"})
    text = (repo / "feature.py").read_text().replace("return 2", "return 2  # reviewed")
    write_files(repo, {"feature.py": text})
    checked = pylon("ws", "conflicts", "a", "--json", cwd=repo)
    assert checked.code == 0, checked  # touching, not conflicting: the same merge apply will do
    assert [p["conflicts"] for p in checked.json()["pairs"]] == [[]]
    conflicted, expected = oracle.merge(repo, path, applied)
    assert not conflicted
    before = snapshot(repo)
    second = pylon("ws", "apply", "a", "--json", cwd=repo)
    assert second.code == 0, second
    doc = second.json()
    assert doc["base"]["kind"] == "last-apply" and doc["base"]["op"] == first.json()["op"]
    assert visible(files(repo)) == expected
    assert (repo / "feature.py").read_text() == "def f():\n    return 10\n\n\ndef g():\n    return 2  # reviewed\n"
    assert pylon("ws", "undo", cwd=repo).code == 0
    assert differences(before, snapshot(repo)) == []


def test_from_the_baseline_again_once_the_first_apply_is_undone(repo: Path, tmp_path: Path) -> None:
    path, baseline, oracle = started(repo, tmp_path)
    before = snapshot(repo)
    assert pylon("ws", "apply", "a", cwd=repo).code == 0
    assert pylon("ws", "undo", cwd=repo).code == 0
    assert differences(before, snapshot(repo)) == []
    write_files(path, {"feature.py": "changed again\n"})
    conflicted, expected = oracle.merge(repo, path, baseline)
    again = pylon("ws", "apply", "a", "--json", cwd=repo)
    assert again.code == 0, again
    assert again.json()["base"]["kind"] == "baseline"
    assert not conflicted and visible(files(repo)) == expected


def test_with_the_baseline_as_base_the_agents_own_file_would_conflict(repo: Path, tmp_path: Path) -> None:
    """Why the base moves: merging from the baseline, git calls the agent's second version of its
    own new file an add/add conflict with the first; from the first apply it is a plain edit."""
    path, baseline, oracle = started(repo, tmp_path)
    assert pylon("ws", "apply", "a", cwd=repo).code == 0
    applied = oracle.commit(oracle.tree_of(path), baseline)
    write_files(path, {"feature.py": "def f():\n    return 10\n"})
    assert oracle.merge(repo, path, baseline)[0] == {b"feature.py"}
    conflicted, expected = oracle.merge(repo, path, applied)
    assert not conflicted
    again = pylon("ws", "apply", "a", "--json", cwd=repo)
    assert again.code == 0, again
    assert visible(files(repo)) == expected and (repo / "feature.py").read_text() == "def f():\n    return 10\n"
