"""`ws status` names, for an interrupted op, the command that completes it and the one that reverses
it, and they are different commands that do what they say: an undo or a redo killed half-way
included (an interrupted redo used to name `ws undo` both ways, and both reversed it).

The kill lands right after the op's record turned `undoing`/`redoing` (the test waits for the ref
to change), so it is always interrupted; the oracle is os.lstat of every entry, `git ls-files -s`."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.conftest import MakeRepo, git
from tests.workspace.crash_helpers import killed
from tests.workspace.helpers import pylon
from tests.workspace.ops_helpers import entries
from tests.workspace.test_apply_crash import prepared


def view(repo: Path) -> tuple[object, ...]:
    return entries(repo), git(repo, "ls-files", "-s")


def interrupt(repo: Path, verb: str, seq: int = 1, done: tuple[object, ...] | None = None) -> dict[str, str] | None:
    """`ws VERB` killed as soon as the record of op `seq` changed; `ws status`'s interrupted op (None
    when the command finished before the kill could land). Under load the kill can land after the
    command's last write and before it exited: then nothing is interrupted, and the checkout must be
    exactly `done` (what the finished command leaves)."""
    ref = repo / ".git" / "refs" / "pylon" / "ops" / f"{seq:08d}"
    first = ref.read_bytes()
    code, _ = killed(["ws", verb], repo, 0.0, group=True, after=lambda: ref.read_bytes() != first)
    if code is not None:
        return None
    stuck = pylon("ws", "status", "--json", cwd=repo).json()["interrupted"]
    if not stuck and done is not None:
        assert view(repo) == done, "the kill landed, ws status names nothing, and the command is not complete"
        return None
    assert stuck, "the kill landed but ws status names nothing"
    return stuck


@pytest.mark.parametrize("verb,way", [("undo", "finish"), ("undo", "reverse"), ("redo", "finish"), ("redo", "reverse")])
def test_each_way_out_does_what_status_says(tmp_path: Path, verb: str, way: str) -> None:
    repo, _rng = prepared(tmp_path, 7, edits_after=False)
    before = view(repo)
    assert pylon("ws", "apply", "s", cwd=repo).code == 0
    applied = view(repo)
    if verb == "redo":
        assert pylon("ws", "undo", cwd=repo).code == 0
    stuck = None
    for _ in range(5):
        stuck = interrupt(repo, verb, done=before if verb == "undo" else applied)
        if stuck is not None:
            break
        again = "redo" if verb == "undo" else "undo"  # it finished: step back and try again
        assert pylon("ws", again, cwd=repo).code == 0
    if stuck is None:
        pytest.skip("the command finished before every kill")
    assert stuck["status"] == ("undoing" if verb == "undo" else "redoing"), stuck
    assert stuck["finish"] != stuck["reverse"], stuck
    text = pylon("ws", "status", cwd=repo).out
    assert f"reverse it with `{stuck['reverse']}`, or complete it with `{stuck['finish']}`" in text, text
    assert f"the {verb} of `apply s`" in text, text
    command = stuck[way].split()[1:]  # "pylon ws undo [--finish]"
    done = pylon(*command, cwd=repo)
    assert done.code == 0, done
    # completing an undo, or reversing a redo, leaves the op undone; the other two leave it in effect
    undone = (verb == "undo") == (way == "finish")
    assert view(repo) == (before if undone else applied)
    assert pylon("ws", "status", "--json", cwd=repo).json()["interrupted"] is None
    rng = random.Random(1)  # the log goes on: one more step each way
    step = ["redo", "undo"] if undone else ["undo", "redo"]
    for verb_next in step[: 1 + rng.randint(0, 1)]:
        assert pylon("ws", verb_next, cwd=repo).code == 0


def test_a_killed_undo_of_rm_is_reversed_by_finish_and_undone_again_exactly(make_repo: MakeRepo) -> None:
    """The undo of `ws rm --force` makes the worktree again; killed half-way, `ws undo --finish`
    removes what it made (the op is in effect again) and a later `ws undo` brings it back whole."""
    from tests.workspace.ops_helpers import snapshot
    from tests.workspace.wt_helpers import new

    repo = make_repo(files={f"f{n}.txt": f"{n}\n" for n in range(400)})
    wt = Path(str(new(repo, "s1")["path"]))
    for n in range(400):
        (wt / f"f{n}.txt").write_text(f"{n}, the session's\n")
    (wt / "own").mkdir()
    (wt / "own" / "key.txt").write_text("key\n")
    before = snapshot(wt)
    assert pylon("ws", "rm", "s1", "--force", cwd=repo).code == 0
    for seq in range(1, 6):
        stuck = interrupt(repo, "undo", seq)
        if stuck is not None:
            break
        assert snapshot(wt) == before  # the undo finished: remove it again and try once more
        assert pylon("ws", "rm", "s1", "--force", cwd=repo).code == 0
    if stuck is None:
        pytest.skip("the undo finished before every kill")
    assert stuck["status"] == "undoing" and stuck["reverse"] == "pylon ws undo --finish", stuck
    assert pylon("ws", "undo", "--finish", cwd=repo).code == 0
    assert not wt.exists()
    assert pylon("ws", "status", "--json", cwd=repo).json()["interrupted"] is None
    assert pylon("ws", "undo", cwd=repo).code == 0
    assert snapshot(wt) == before
