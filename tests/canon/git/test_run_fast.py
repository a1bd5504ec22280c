"""What the git-aware commands' speed work must not change: `open_repo`'s one-call path agrees
with git's own answers everywhere it is taken (and falls back where it cannot be), the shell
quoting of messages agrees with `shlex.quote`, and the value classes behave as dataclasses did."""

from __future__ import annotations

import copy
import inspect
import pickle
import random
import shlex
import subprocess
from pathlib import Path

import pytest

from pylon.canon import lint, record
from pylon.canon.git import changes, check, history, run
from pylon.canon.git.check import shell_word
from pylon.canon.git.run import Change, Repo, open_repo
from pylon.canon.lint import findings
from pylon.canon.lint.findings import Finding
from tests.canon.git.conftest import GitStore
from tests.conftest import MakeRepo


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def _truth(cwd: Path) -> Repo:
    head = (
        subprocess.run(
            ["git", "rev-parse", "--verify", "-q", "HEAD^{commit}"], cwd=cwd, capture_output=True, text=True
        ).stdout.strip()
        or None
    )
    return Repo(
        str(Path(_git(cwd, "rev-parse", "--show-toplevel")).resolve()),
        _git(cwd, "rev-parse", "--absolute-git-dir"),
        head,
        _git(cwd, "rev-parse", "--is-shallow-repository") == "true",
    )


def test_open_repo_agrees_with_git(make_repo: MakeRepo, tmp_path: Path) -> None:
    unborn = make_repo(name="unborn")
    assert open_repo(str(unborn)) == _truth(unborn) and open_repo(str(unborn)).head is None
    root = make_repo({"src/a.py": "x\n", "HEAD^{commit}": "a file named like the revision\n"}, name="main")
    repo = GitStore(root)
    places = [root, root / "src"]
    repo.git("worktree", "add", "-q", str(tmp_path / "linked"))
    places += [tmp_path / "linked", tmp_path / "linked" / "src"]
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{root}", str(tmp_path / "shallow")], check=True)
    places.append(tmp_path / "shallow")
    for place in places:
        assert open_repo(str(place)) == _truth(place), place
    assert open_repo(str(tmp_path / "shallow")).shallow


def test_shell_word_is_shlex_quote() -> None:
    rng = random.Random(7)
    alphabet = "aZ09_@%+=:,./- '\"$\\\t\n*?[]{}~!#&;|<>()`é\u00a0"
    words = ["", "src/core", "it's", "a b", "-x", "é"]
    words += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(8))) for _ in range(5000)]
    for word in words:
        assert shell_word(word) == shlex.quote(word), word


def test_value_classes_compare_hash_and_replace_like_dataclasses() -> None:
    a = Finding("dead-link", "error", "m", "p.md", 3)
    assert a == Finding("dead-link", "error", "m", "p.md", 3, False)
    assert hash(a) == hash(Finding("dead-link", "error", "m", "p.md", 3))
    assert a != Finding("dead-link", "error", "m", "p.md", 4)
    assert a.replace(severity="warning") == Finding("dead-link", "warning", "m", "p.md", 3)
    assert a.severity == "error"  # replace copies
    with pytest.raises(AttributeError):
        a.severity = "note"
    with pytest.raises(TypeError):
        a.replace(colour="red")
    assert repr(Change("R", "a", "b", 90)) == "Change(status='R', old='a', new='b', score=90)"
    assert len({Change("M", "a", "a"), Change("M", "a", "a", 100)}) == 1
    repo = Repo("/t", "/t/.git", None, False)
    with pytest.raises(TypeError):
        hash(repo)  # mutable: unhashable, as a plain dataclass


def test_every_value_class_takes_its_fields_in_order_and_survives_pickling() -> None:
    # lint's forked workers pickle findings back; replace() and pickling both call __init__ with
    # the fields (by name, in __slots__ order).
    classes = [
        c
        for m in (lint, findings, run, changes, check, history)
        for c in vars(m).values()
        if isinstance(c, type) and issubclass(c, record.Record) and c not in (record.Record, record.Frozen)
    ]
    assert len(classes) >= 14
    for cls in classes:
        params = list(inspect.signature(cls.__init__).parameters)[1:]
        assert params == list(cls.__slots__), cls
        value = cls(*(f"v{i}" for i in range(len(params))))
        for copied in (pickle.loads(pickle.dumps(value)), copy.deepcopy(value), copy.copy(value)):
            assert type(copied) is cls and copied == value, cls


def test_a_git_started_beside_others_is_reaped_when_abandoned(make_repo: MakeRepo) -> None:
    import os

    root = make_repo({"a.py": "x\n"})
    repo = open_repo(str(root))
    running = repo.start("log", "--name-only")
    running.abandon()
    with pytest.raises(ChildProcessError):
        os.waitpid(running.proc.pid, os.WNOHANG)  # reaped: no zombie left behind
    assert repo.start("rev-parse", "HEAD").finish().strip().decode() == repo.head
