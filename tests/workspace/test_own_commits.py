"""pylon's own commits (commits.write_commit): the bytes `git commit-tree` would write, or git writes them.

git is the oracle: every commit written in-process must have the id `git commit-tree` gives for the
same tree, parents, message and date, pass `git fsck --strict`, and read back through `git cat-file`.
Where the repository's settings change how objects are stored (shared permissions, fsync, another
hash, an include git would follow), git writes them and the ids still agree.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from pylon.workspace import immutable
from pylon.workspace.commits import IDENT, own_objects, write_commit
from pylon.workspace.repo import EMPTY_TREE, locate
from tests.conftest import MakeRepo, git, write_files
from tests.workspace.helpers import git_starts, pylon

MESSAGES = [
    b"",
    b"one line\n",
    b"no newline at the end",
    b'pylon op 00000001 apply: done\n\n{"kind": "apply"}\n',
    b"trailing blank lines\n\n\n",
    "\u00fcn\u00efc\u00f6d\u00e9 \u2713\n".encode(),
    b"not utf-8 \xff\xfe\n",
]
DATES = ["0 +0000", "1700000000 +0530", "1700000000 -0800", "1234567890 -0330"]


def git_commit(repo: Path, tree: str, parents: list[str], message: bytes, date: str, *args: str) -> str:
    env = dict(os.environ, **IDENT, GIT_AUTHOR_DATE=f"@{date}", GIT_COMMITTER_DATE=f"@{date}")
    argv = ["git", "commit-tree", "--no-gpg-sign", tree, *[a for p in parents for a in ("-p", p)], *args]
    done = subprocess.run(argv, cwd=repo, input=message, env=env, capture_output=True, check=True)
    return done.stdout.decode().strip()


@pytest.fixture
def history(make_repo: MakeRepo) -> Path:
    repo = make_repo({"a.txt": "one\n", "src/b.py": "print(1)\n"})
    write_files(repo, {"a.txt": "two\n"})
    git(repo, "commit", "-qam", "second")
    return repo


def test_every_commit_has_the_id_git_commit_tree_gives(history: Path) -> None:
    co = locate(str(history))
    assert own_objects(co) == os.path.join(co.common_dir, "objects")
    head, first = git(history, "rev-parse", "HEAD", "HEAD~1").split()
    tree = git(history, "rev-parse", "HEAD^{tree}").strip()
    for parents in ([], [head], [head, first]):
        for message in MESSAGES:
            for date in DATES:
                ours = write_commit(co, tree, parents, message, date)
                assert ours == git_commit(history, tree, parents, message, date + "", "-F", "-"), (parents, message)
    # the `-m` form pylon used for its scratch commits: git ends the message with one newline
    ours = write_commit(co, tree, [head], b"pylon: conflict check\n", DATES[1])
    assert ours == git_commit(history, tree, [head], b"", DATES[1], "-m", "pylon: conflict check")
    assert subprocess.run(["git", "fsck", "--strict", "--no-dangling"], cwd=history).returncode == 0


def test_the_empty_tree_is_stored_before_a_commit_names_it(make_repo: MakeRepo) -> None:
    """git knows the empty tree without storing it; fsck asks for it once a commit names it."""
    repo = make_repo({"a.txt": "x\n"})
    co = locate(str(repo))
    commit = write_commit(co, EMPTY_TREE, [], b"pylon op\n", DATES[0])
    assert git(repo, "cat-file", "-t", EMPTY_TREE).strip() == "tree"
    git(repo, "update-ref", "refs/pylon/test", commit)  # reachable, so fsck walks it
    assert subprocess.run(["git", "fsck", "--strict"], cwd=repo, capture_output=True).returncode == 0


def test_now_is_written_as_git_writes_it_in_the_local_zone(history: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No date: now, with the local zone's offset (a negative half hour here), as `git var` says it."""
    co = locate(str(history))
    tree = git(history, "rev-parse", "HEAD^{tree}").strip()
    monkeypatch.setenv("TZ", "America/St_Johns")
    time.tzset()
    try:
        commit = write_commit(co, tree, [], b"now\n")
        env = dict(os.environ, **IDENT)
        ident = subprocess.run(["git", "var", "GIT_COMMITTER_IDENT"], cwd=history, env=env, capture_output=True)
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    theirs = ident.stdout.decode().split()
    committer = [
        line for line in git(history, "cat-file", "commit", commit).splitlines() if line.startswith("committer ")
    ]
    ours = committer[0].split()[1:]
    assert ours[:2] == theirs[:2]
    assert ours[3] == theirs[3] and ours[3] in ("-0330", "-0230")  # Newfoundland: standard or summer time
    assert abs(int(ours[2]) - int(theirs[2])) <= 2


@pytest.mark.parametrize(
    "setting",
    [
        ("core.sharedRepository", "group"),
        ("core.fsync", "loose-object"),
        ("i18n.commitEncoding", "ISO-8859-1"),
        ("include.path", "../other.config"),
    ],
    ids=lambda s: s[0],
)
def test_settings_that_change_how_objects_are_written_leave_it_to_git(
    history: Path, tmp_path: Path, setting: tuple[str, str]
) -> None:
    git(history, "config", *setting)
    co = locate(str(history))
    assert own_objects(co) is None
    tree = git(history, "rev-parse", "HEAD^{tree}").strip()
    head = git(history, "rev-parse", "HEAD").strip()
    assert write_commit(co, tree, [head], b"by git\n", DATES[2]) == git_commit(
        history, tree, [head], b"by git\n", DATES[2], "-F", "-"
    )
    git(history, "config", "--unset", setting[0])
    assert own_objects(locate(str(history))) is not None  # the config file changed: asked again


def test_a_sha256_repository_is_left_to_git(tmp_path: Path) -> None:
    repo = tmp_path / "sha256"
    done = subprocess.run(["git", "init", "-q", "--object-format=sha256", str(repo)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"this git cannot make a SHA-256 repository: {done.stderr.decode().strip()}")
    write_files(repo, {"a.txt": "x\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    co = locate(str(repo))
    assert own_objects(co) is None
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    assert len(tree) == 64
    assert write_commit(co, tree, [], b"x\n", DATES[0]) == git_commit(repo, tree, [], b"x\n", DATES[0], "-F", "-")


def test_commits_are_read_from_loose_objects_as_git_prints_them(history: Path) -> None:
    co = locate(str(history))
    tree = git(history, "rev-parse", "HEAD^{tree}").strip()
    loose = [write_commit(co, tree, [], m, DATES[3]) for m in MESSAGES]
    packed = git(history, "rev-parse", "HEAD~1").strip()
    git(history, "pack-refs", "--all")
    git(history, "repack", "-q", "-d")  # HEAD~1 packed; the unreachable ones stay loose
    got = immutable.commits(co, [*loose, packed])
    for name, body in zip([*loose, packed], got, strict=True):
        assert body == subprocess.run(["git", "cat-file", "commit", name], cwd=history, capture_output=True).stdout


def test_an_op_and_its_undo_write_and_read_their_commits_without_git(history: Path, tmp_path: Path) -> None:
    """`ws new`'s baseline, the op log's records, the undo's states and their reads: no
    `commit-tree`, no `cat-file commit` (git still writes the trees and moves the refs)."""
    write_files(history, {"src/b.py": "print('dirty')\n"})  # ws new carries it: a baseline commit
    starts = []
    made = None
    for args in (("ws", "new", "a", "--json"), ("ws", "apply", "a"), ("ws", "undo"), ("ws", "redo")):
        if made is not None and args[1] == "apply":
            write_files(Path(made["path"]), {"a.txt": "from a\n"})
        log = tmp_path / f"trace-{args[1]}.json"
        r = pylon(*args, cwd=history, env={"GIT_TRACE2_EVENT": str(log)})
        assert r.code == 0, r
        made = r.json() if args[1] == "new" else made
        starts += git_starts(log)
    assert [a for a in starts if a[:1] == ["commit-tree"] or a[:2] == ["cat-file", "commit"]] == []
    assert (history / "a.txt").read_text() == "from a\n"  # the redo applied it again
    assert subprocess.run(["git", "fsck", "--strict", "--no-dangling"], cwd=history).returncode == 0


def test_threads_writing_the_same_commit_at_once_all_get_it_whole(history: Path) -> None:
    """`ws conflicts` merges in threads, and two pairs can make the very same commit: each write has
    a temporary file of its own, so none fails and the object is whole (git reads it back)."""
    import threading

    co = locate(str(history))
    tree = git(history, "rev-parse", "HEAD^{tree}").strip()
    head = git(history, "rev-parse", "HEAD").strip()
    got: list[str] = []
    errors: list[BaseException] = []
    rounds = 60
    start = threading.Barrier(8)

    def write() -> None:
        try:
            for n in range(rounds):  # every thread writes round n's new commit at the same moment
                start.wait()
                got.append(write_commit(co, tree, [head], f"pylon conflict check {n}\n".encode(), DATES[0]))
        except BaseException as exc:
            start.abort()
            errors.append(exc)

    threads = [threading.Thread(target=write) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(set(got)) == rounds and len(got) == 8 * rounds
    for oid in set(got):
        assert git(history, "cat-file", "-t", oid).strip() == "commit"
    assert list((history / ".git" / "objects").rglob("tmp_obj_*")) == []
