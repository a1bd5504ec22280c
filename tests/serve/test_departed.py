"""Worktrees that left pylon's ownership stay on the board: `ws list` only counts them (the spec),
the board lists each as such and compares it with the others. The oracle for the comparison is
`ws conflicts` itself, taken while the session was still owned: switching its branch changes no
file, so the conflict it reports must be the same afterwards."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import MakeRepo, git, run_cmd
from tests.serve.conftest import Board, wait_for


def _scene(make_repo: MakeRepo) -> tuple[Path, dict[str, Path]]:
    repo = make_repo({"app.py": "def main():\n    return 1\n", "util.py": "U = 1\n", "notes.txt": "n\n"})
    paths = {}
    for wid, line in (("s1", "    return 2\n"), ("s2", "    return 3\n"), ("s3", "    return 1  # s3\n")):
        paths[wid] = Path(run_cmd("pylon", "ws", "new", wid, "--json", cwd=repo).json()["path"])
        (paths[wid] / "app.py").write_text("def main():\n" + line, encoding="utf-8")
    return repo, paths


def _pair(doc: dict[str, Any], a: str, b: str | None) -> dict[str, Any]:
    pairs = doc["pairs"]
    assert isinstance(pairs, list)
    found = [p for p in pairs if {p["a"], p["b"]} == {a, b}]
    assert len(found) == 1, pairs
    return dict(found[0])


def test_a_switched_or_unlocked_session_and_a_plain_worktree_stay_on_the_board(
    make_repo: MakeRepo, board_factory: Callable[..., Board]
) -> None:
    repo, paths = _scene(make_repo)
    before = run_cmd("pylon", "ws", "conflicts", "--json", cwd=repo).json()
    owned_pair = _pair(before, "s1", "s2")
    assert [c["path"] for c in owned_pair["conflicts"]] == ["app.py"]
    git(paths["s2"], "switch", "-q", "-c", "feature")  # the agent switched branches: no longer pylon's
    git(repo, "worktree", "unlock", str(paths["s3"]))  # the registry and git disagree about the lock
    plain = repo.parent / "plain"
    git(repo, "worktree", "add", "-q", str(plain))  # an agent's own worktree, never pylon's
    (plain / "util.py").write_text("U = 2\n", encoding="utf-8")
    (repo / "util.py").write_text("U = 3\n", encoding="utf-8")  # the person, in the checkout
    listed = run_cmd("pylon", "ws", "list", "--json", cwd=repo).json()
    assert [w["id"] for w in listed["worktrees"]] == ["s1"] and listed["foreign"] == 3  # owned: s1 only

    board: Board = board_factory(repo)
    agents = board.api("agents")
    assert [w["id"] for w in agents["worktrees"]] == ["s1"] and agents["foreign"] == 3
    rows = {d["label"]: d for d in agents["departed"]}  # labelled as `ws list --json` labels them in `others`
    assert set(rows) == {"pylon:s2", "pylon:s3", f"git:{plain}"}
    assert {o["label"] for o in agents["others"]} == set(rows)
    s2 = rows["pylon:s2"]
    assert s2["id"] == "s2" and s2["branch"] == "feature" and s2["compared"] is True
    assert "not on its branch" in s2["why"] and s2["resolve"] == f"git -C {paths['s2']} switch pylon-session-s2"
    assert s2["dirty"] == {"tracked": 1, "untracked": 0} and s2["path"] == str(paths["s2"])
    s3, other = rows["pylon:s3"], rows[f"git:{plain}"]
    assert "not locked with pylon's reason" in s3["why"] and "git worktree lock" in s3["resolve"]
    assert other["id"] == "" and other["why"] == "not created by pylon" and other["made_by"]["client"] == "git"
    assert other["compared"] is True and other["dirty"] == {"tracked": 1, "untracked": 0}

    conflicts = board.api("conflicts")
    assert sorted(conflicts["departed"]) == sorted(["pylon:s2", "pylon:s3", f"git:{plain}"])
    assert conflicts["worktrees"] == ["s1"]  # the owned ones, as `ws conflicts` names them
    same = _pair(conflicts, "s1", "pylon:s2")
    # as when s2 was still owned: the same merge (its markers name it by its new label)
    assert json.dumps(same["conflicts"]).replace("pylon:s2", "s2") == json.dumps(owned_pair["conflicts"])
    assert [c["path"] for c in _pair(conflicts, f"git:{plain}", None)["conflicts"]] == ["util.py"]  # with the checkout
    assert _pair(conflicts, "pylon:s2", "pylon:s3")["conflicts"]  # two departed ones collide with each other too


def test_a_change_in_a_departed_worktree_reaches_the_board(
    make_repo: MakeRepo, board_factory: Callable[..., Board]
) -> None:
    repo, paths = _scene(make_repo)
    git(paths["s2"], "switch", "-q", "-c", "feature")
    board: Board = board_factory(repo)
    wait_for(lambda: board.api("meta")["watching"], what="the board watching")

    def s2() -> dict[str, Any]:
        return next(d for d in board.api("agents")["departed"] if d["label"] == "pylon:s2")

    assert s2()["dirty"] == {"tracked": 1, "untracked": 0}
    assert board.api("agents")["survey"]["kept"] is True  # watched like an owned worktree: kept
    (paths["s2"] / "new.txt").write_text("x\n", encoding="utf-8")
    wait_for(lambda: s2()["dirty"] == {"tracked": 1, "untracked": 1}, what="the departed worktree read again")


def test_the_cli_documents_are_unchanged_without_the_boards_flag(make_repo: MakeRepo) -> None:
    """`departed` is the board's: `ws list`/`ws conflicts` list such worktrees in `others`, not as owned."""
    repo, paths = _scene(make_repo)
    git(paths["s2"], "switch", "-q", "-c", "feature")
    for argv in (("ws", "list", "--json"), ("ws", "conflicts", "--json")):
        doc = json.loads(run_cmd("pylon", *argv, cwd=repo).out)
        assert "departed" not in doc and "s2" not in [w if isinstance(w, str) else w["id"] for w in doc["worktrees"]]
        assert "pylon:s2" in json.dumps(doc["others"])
