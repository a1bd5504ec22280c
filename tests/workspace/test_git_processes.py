"""The git processes one ws command starts: the op log listed once, an object asked about once.

Counted from git's own trace (GIT_TRACE2_EVENT: every git process the real `pylon` starts writes
its argv there) on real repositories, so a repeated listing or read coming back fails here. The
in-process tests check the rules that make the reuse safe: the op log's listing is kept only while
the op lock is held (every writer holds it) and follows this process's own writes; what is kept
about objects is keyed by full object ids and gives git's bytes.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeRepo, git, write_files
from tests.workspace.helpers import git_starts, pylon
from tests.workspace.wt_helpers import new

OPS = "refs/pylon/ops/"


def traced(repo: Path, tmp_path: Path, *args: str) -> list[list[str]]:
    """The argv (after `git`, global options dropped) of every git process `pylon *args` started."""
    log = tmp_path / f"trace-{len(list(tmp_path.glob('trace-*')))}.json"
    r = pylon(*args, cwd=repo, env={"GIT_TRACE2_EVENT": str(log)})
    assert r.code == 0, r
    return git_starts(log)


def op_listings(argvs: list[list[str]]) -> int:
    return sum(1 for a in argvs if a[:1] == ["for-each-ref"] and OPS in a)


def repeated(argvs: list[list[str]], *subcommands: str) -> list[list[str]]:
    """The argvs of `subcommands` run more than once with the same arguments (object ids: the same
    answer again). A `--batch` query is on stdin, which the trace does not show: left out."""
    seen = Counter(tuple(a) for a in argvs if a[:1] and a[0] in subcommands and not a[1].startswith("--batch"))
    return [list(a) for a, n in seen.items() if n > 1]


@pytest.fixture
def moved_log(repo: Path) -> Path:
    """A log with a few ops: a session applied, undone and redone."""
    made = new(repo, "a")
    write_files(Path(str(made["path"])), {"src/app.py": "print('agent')\n", "agent.txt": "new\n"})
    write_files(repo, {"mine.txt": "mine\n"})
    for args in (("ws", "apply", "a"), ("ws", "undo"), ("ws", "redo")):
        assert pylon(*args, cwd=repo).code == 0
    return repo


def test_each_op_command_lists_the_op_log_once(moved_log: Path, tmp_path: Path) -> None:
    repo = moved_log
    write_files(repo, {"later.txt": "later\n"})
    for args in (
        ("ws", "undo"),
        ("ws", "redo"),
        ("ws", "status"),
        ("ws", "log"),
        ("ws", "undo", "--list"),
        ("ws", "move", "a"),
        ("ws", "move", "a", "--back"),
        ("ws", "apply", "a"),
        ("ws", "rm", "a", "--force"),
    ):
        argvs = traced(repo, tmp_path, *args)
        assert op_listings(argvs) == 1, (args, [a for a in argvs if a[:1] == ["for-each-ref"]])


def test_undo_and_redo_read_each_state_and_diff_once(moved_log: Path, tmp_path: Path) -> None:
    repo = moved_log
    write_files(repo, {"mine.txt": "mine, edited after the apply\n"})  # later work: carried, not lost
    for args in (("ws", "undo"), ("ws", "redo"), ("ws", "move", "a"), ("ws", "undo")):
        argvs = traced(repo, tmp_path, *args)
        assert not repeated(argvs, "cat-file", "diff-tree"), (args, repeated(argvs, "cat-file", "diff-tree"))
    assert (repo / "mine.txt").read_text() == "mine, edited after the apply\n"


def _record(repo: Path) -> Any:
    """The newest op's JSON record."""
    return json.loads(git(repo, "log", "-1", "--format=%B", f"{OPS}{_newest(repo):08d}").split("\n\n", 1)[1])


def test_undo_and_redo_read_the_states_in_one_batch(moved_log: Path, tmp_path: Path) -> None:
    repo = moved_log
    argvs = traced(repo, tmp_path, "ws", "undo")
    op = _record(repo)
    states = {s[k] for s in op["steps"] for k in ("before", "after")}
    singles = [a for a in argvs if a[:2] == ["cat-file", "commit"] and a[2] in states]
    assert len(states) >= 2 and not singles, singles
    argvs = traced(repo, tmp_path, "ws", "redo")  # carries the recorded undo back: undo_to -> undo_from
    states = {*op["undo_from"].values(), *op["undo_to"].values()}
    singles = [a for a in argvs if a[:2] == ["cat-file", "commit"] and a[2] in states]
    assert len(states) >= 2 and not singles, singles


def test_log_lists_the_kept_refs_in_one_process(moved_log: Path, tmp_path: Path) -> None:
    repo = moved_log
    assert pylon("ws", "baseline", "b1", cwd=repo).code == 0
    argvs = traced(repo, tmp_path, "ws", "log")
    listings = [a for a in argvs if a[:1] == ["for-each-ref"]]
    assert len(listings) == 2, listings  # the op log's and one for baselines, guard snapshots and trash
    both = next(a for a in listings if OPS not in a)
    assert {"refs/pylon/baselines/", "refs/pylon/guard/", "refs/pylon/guard-refs/", "refs/pylon/trash/"} <= set(both)
    shown = pylon("ws", "log", "--json", cwd=repo).json()
    assert "b1" in {e["name"] for e in shown["entries"] if e["kind"] == "baseline"}


def _newest(repo: Path) -> int:
    names = git(repo, "for-each-ref", "--format=%(refname)", OPS).split()
    return max(int(n.rsplit("/", 1)[1]) for n in names)


# The rules that make the reuse safe, in process (real git, real refs).


def test_the_listing_is_kept_only_while_the_op_lock_is_held(moved_log: Path) -> None:
    from pylon.workspace.ops import oplog
    from pylon.workspace.repo import locate

    repo = moved_log
    co = locate(str(repo))
    newest = _newest(repo)
    commit = git(repo, "rev-parse", f"{OPS}{newest:08d}").strip()
    git(repo, "update-ref", f"{OPS}{newest + 5:08d}", commit)  # a writer outside this process
    assert oplog.entries(co)[0].seq == newest + 5  # without the lock: git is asked every time
    git(repo, "update-ref", "-d", f"{OPS}{newest + 5:08d}")
    assert oplog.entries(co)[0].seq == newest
    with oplog.op_lock(co):
        first = oplog.entries(co)
        git(repo, "update-ref", f"{OPS}{newest + 7:08d}", commit)  # (only a writer ignoring the lock does this)
        assert [o.seq for o in oplog.entries(co)] == [o.seq for o in first]  # listed once under the lock
        op = oplog.begin(co, "test", [], title="kept listing follows our own writes")
        assert op.seq == newest + 1
        assert [o.seq for o in oplog.entries(co)][:2] == [op.seq, newest]
        oplog.complete(co, op)
        assert oplog.entries(co)[0].status == "done" and oplog.entries(co)[0].commit == op.commit
        git(repo, "update-ref", "-d", f"{OPS}{op.seq:08d}")
        oplog.forget(co)  # what gc calls after deleting op refs
        assert [o.seq for o in oplog.entries(co)][:2] == [newest + 7, newest]
    git(repo, "update-ref", "-d", f"{OPS}{newest + 7:08d}")
    assert oplog.entries(co)[0].seq == newest  # the lock released: asked again


def test_commits_read_in_one_batch_are_gits_bytes(moved_log: Path) -> None:
    from pylon.errors import PylonError
    from pylon.workspace import immutable
    from pylon.workspace.repo import EMPTY_TREE, locate

    repo = moved_log
    co = locate(str(repo))
    names = git(repo, "for-each-ref", "--format=%(objectname)", OPS).split()
    names += [git(repo, "rev-parse", "HEAD").strip()]
    got = immutable.commits(co, [*names, names[0]])
    for name, raw in zip([*names, names[0]], got):
        assert raw.decode() == git(repo, "cat-file", "commit", name)  # git's own bytes
    assert immutable.commit(co, "HEAD").decode() == git(repo, "cat-file", "commit", "HEAD")
    trees = [git(repo, "rev-parse", "HEAD^{tree}").strip(), EMPTY_TREE]
    with pytest.raises(PylonError) as raised:
        immutable.commits(co, [names[0], *trees])  # trees, not commits: git's refusal, as before
    assert raised.value.code == "git-failed" and raised.value.details["git_args"] == ["cat-file", "commit", trees[0]]


def test_a_name_that_is_not_an_object_id_is_asked_every_time(moved_log: Path) -> None:
    from pylon.workspace import immutable
    from pylon.workspace.repo import locate

    repo = moved_log
    co = locate(str(repo))
    before = immutable.commit(co, "HEAD")
    git(repo, "commit", "-q", "--allow-empty", "-m", "moved on")
    assert immutable.commit(co, "HEAD") != before
    assert immutable.commit(co, "HEAD").decode() == git(repo, "cat-file", "commit", "HEAD")
    one, two = git(repo, "rev-parse", "HEAD^{tree}", "HEAD~1^{tree}").split()  # the commit made just now
    args = ["diff-tree", "-r", "-z", "--name-only", one, two]
    assert immutable.diff(co, args) == git(repo, *args).encode() and immutable.diff(co, args[:-1] + [one]) == b""


def test_what_is_kept_stays_bounded(moved_log: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pylon.workspace import immutable
    from pylon.workspace.repo import locate

    co = locate(str(moved_log))
    names = git(moved_log, "rev-list", "--max-count=4", f"{OPS}{_newest(moved_log):08d}").split()  # op, states, HEAD
    assert len(names) == 4
    monkeypatch.setattr(immutable, "LIMIT", 2)
    monkeypatch.setattr(immutable, "_KEPT", {})
    got = immutable.commits(co, names)
    assert len(immutable._KEPT) <= 2  # started over when full, the answers whole
    assert [g.decode() for g in got] == [git(moved_log, "cat-file", "commit", n) for n in names]
    monkeypatch.setattr(immutable, "LIMIT_BYTES", 40)  # every commit is larger than a quarter of it
    monkeypatch.setattr(immutable, "_KEPT", {})
    assert immutable.commits(co, names) == got and not immutable._KEPT


def test_a_state_this_process_wrote_reads_as_git_has_it(repo: Path) -> None:
    from pylon.workspace import immutable
    from pylon.workspace.commits import parse_state, read_state
    from pylon.workspace.ops.restore_state import make_state
    from pylon.workspace.repo import locate
    from pylon.workspace.state import capture

    write_files(repo, {"ünï côdé.txt": "x\n", "src/app.py": "changed\n"})
    git(repo, "add", "src/app.py")
    co = locate(str(repo))
    now = capture(co, label="a label: with ünïcödé")
    made = make_state(
        co,
        worktree=now.worktree,
        index_tree=now.index_tree,
        head=now.head,
        branch=now.branch,
        label="made: ünï",
        notes=[{"kind": "k", "message": "a note: here"}],
        meta_raw=now.meta_raw,
        head_tree=now.head_tree,
    )
    for commit in (str(now.commit), made):
        mine = read_state(co, commit)  # from what this process wrote: no git process
        theirs = parse_state(git(repo, "cat-file", "commit", commit).encode(), commit)
        fields = ("commit", "head", "branch", "index_tree", "worktree", "notes", "captured_at", "label", "meta_raw")
        assert [getattr(mine, f) for f in fields] == [getattr(theirs, f) for f in fields]
    assert immutable.commits(co, [made])[0].decode() == git(repo, "cat-file", "commit", made)  # whole bytes: git's


def test_new_from_a_clean_checkout_takes_heads_tree_from_the_capture(repo: Path, tmp_path: Path) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    argvs = traced(repo, tmp_path, "ws", "new", "clean", "--json")
    assert ["cat-file", "commit", head] not in argvs  # clean: the baseline is HEAD, no date needed
    assert json.loads(pylon("ws", "list", "--json", cwd=repo).out)["worktrees"][0]["baseline"] == head
    write_files(repo, {"src/app.py": "dirty\n"})
    argvs = traced(repo, tmp_path, "ws", "new", "dirty", "--json")
    assert ["cat-file", "commit", head] not in argvs  # HEAD's commit is loose: read without git
    made = [w for w in json.loads(pylon("ws", "list", "--json", cwd=repo).out)["worktrees"] if w["id"] == "dirty"]
    baseline = made[0]["baseline"]
    assert baseline != head
    # HEAD's committer date dates the baseline commit, as before
    assert git(repo, "log", "-1", "--format=%ct %cz", baseline) == git(repo, "log", "-1", "--format=%ct %cz", head)


def test_batch_objects_reads_what_git_answers_names_with_spaces_and_missing_ones_included(make_repo: MakeRepo) -> None:
    """git.batch_objects against git's own `cat-file --batch` output: blobs, a tree, and `missing`
    answers for names that hold spaces (`<tree>:<path>`), in order."""
    from pylon.workspace import git as pgit

    repo = make_repo(files={"a b.txt": "spaced\n", "dir/x.txt": "x\n"})
    names = ["HEAD:a b.txt", "HEAD:not here.txt", "HEAD:dir", "HEAD:dir/x.txt", "HEAD:gone"]
    out = pgit.run(["cat-file", "--batch"], cwd=str(repo), input="".join(f"{n}\n" for n in names).encode())
    got = pgit.batch_objects(out, len(names))
    assert [g[0] if g else None for g in got] == [b"blob", None, b"tree", b"blob", None]
    assert got[0] is not None and got[0][1] == b"spaced\n"
    assert got[3] is not None and got[3][1] == b"x\n"


# The cuts of the keep (the hooks' state before and after every shell command) and of a few commands.


def _hooked(repo: Path, tmp_path: Path, command: str, n: int) -> tuple[list[list[str]], list[list[str]]]:
    """A shell command as Codex runs it (PreToolUse, bash, PostToolUse) with the op written in the
    hook's own process: the git argvs of each hook."""
    import subprocess

    from tests.keep.hookpath import event

    argvs = []
    for name in ("PreToolUse", "PostToolUse"):
        log = tmp_path / f"hook-{n}-{name}.json"
        env = {"GIT_TRACE2_EVENT": str(log), "PYLON_KEEP_DETACH": "0"}
        r = pylon("hook", "codex", cwd=repo, input=event(name, command, repo, f"call_{n}"), env=env)
        assert r.code == 0, r
        argvs.append(git_starts(log))
        if name == "PreToolUse":
            subprocess.run(["bash", "-c", command], cwd=repo, check=True)
    return argvs[0], argvs[1]


def _name_only_pairs(argvs: list[list[str]]) -> list[frozenset[str]]:
    """The tree pairs of every `diff-tree --name-only` without a filter (either order: the same paths)."""
    return [
        frozenset(a[-2:])
        for a in argvs
        if a[:1] == ["diff-tree"] and "--name-only" in a and not any(w.startswith("--diff-filter") for w in a)
    ]


def test_the_op_after_a_shell_command_reads_the_kept_state_without_git(repo: Path, tmp_path: Path) -> None:
    _hooked(repo, tmp_path, "echo one >> src/app.py", 1)  # the first keep: the store is made
    before, after = _hooked(repo, tmp_path, "echo two >> docs/guide.txt && rm src/util.py", 2)
    assert before and after
    # the last kept state's commit and record: pylon wrote them, pylon reads them (hash-checked)
    assert not [a for a in after if a[:1] == ["cat-file"]], after
    # the capture's check of the ignore rules and the op's summary diff the same two trees: once
    pairs = _name_only_pairs(after)
    assert len(pairs) == len(set(pairs)) == 1, after
    shown = pylon("ws", "log", "--json", cwd=repo).json()
    op = next(e for e in shown["entries"] if e["kind"] == "op" and "docs/guide.txt" in e["title"])
    assert "2 path(s)" in pylon("ws", "log", cwd=repo).out and op["name"].startswith("op-")
    assert pylon("ws", "undo", cwd=repo).code == 0
    assert (repo / "src/util.py").read_text() == "def f():\n    return 1\n"
    assert (repo / "docs/guide.txt").read_text() == "one\ntwo\nthree\n"


def test_each_command_diffs_a_pair_of_trees_once(moved_log: Path, tmp_path: Path) -> None:
    repo = moved_log
    _hooked(repo, tmp_path, "echo x > hooked.txt", 1)  # the keep in use: its captures and summaries too
    write_files(repo, {"mine.txt": "mine, edited\n"})
    for args in (("ws", "undo"), ("ws", "redo"), ("ws", "move", "a"), ("ws", "move", "a", "--back")):
        pairs = _name_only_pairs(traced(repo, tmp_path, *args))
        assert len(pairs) == len(set(pairs)), (args, pairs)
    assert (repo / "mine.txt").read_text() == "mine, edited\n"


def test_a_restore_peels_a_commit_to_its_tree_once(repo: Path, tmp_path: Path) -> None:
    _hooked(repo, tmp_path, "echo changed > src/app.py && echo new > src/new.py", 1)
    shown = pylon("ws", "log", "--json", cwd=repo).json()
    op = next(e["name"] for e in shown["entries"] if e["kind"] == "op" and "src/app.py" in e["title"])
    argvs = traced(repo, tmp_path, "ws", "restore", f"{op}:before", "src")
    assert not repeated(argvs, "rev-parse"), repeated(argvs, "rev-parse")
    assert (repo / "src/app.py").read_text() == "print('hello')\n" and not (repo / "src/new.py").exists()


def test_status_takes_head_from_its_default_since(repo: Path, tmp_path: Path) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    argvs = traced(repo, tmp_path, "ws", "status")
    assert len([a for a in argvs if a[:1] == ["cat-file"]]) == 1, argvs  # HEAD and HEAD^{tree}, once
    assert pylon("ws", "status", "--json", cwd=repo).json()["head"] == head
    assert pylon("ws", "baseline", "last", cwd=repo).code == 0  # the default is the baseline: git says HEAD
    git(repo, "commit", "-q", "--allow-empty", "-m", "later")
    shown = pylon("ws", "status", "--json", cwd=repo).json()
    assert shown["head"] == git(repo, "rev-parse", "HEAD").strip() != head and shown["default_since"] == "last"


def test_git_version_is_asked_once_per_git_binary(moved_log: Path, tmp_path: Path) -> None:
    import os
    import shutil

    repo = moved_log
    assert pylon("ws", "conflicts", cwd=repo).code in (0, 1)  # asked by now (the apply of the fixture asked too)
    assert ["version"] not in traced(repo, tmp_path, "ws", "conflicts")
    real = shutil.which("git")
    assert real is not None
    other = tmp_path / "bin"
    other.mkdir()
    (other / "git").write_text(f'#!/bin/sh\nexec {real} "$@"\n')
    (other / "git").chmod(0o755)
    log = tmp_path / "other-git.json"
    env = {"PATH": f"{other}{os.pathsep}{os.environ['PATH']}", "GIT_TRACE2_EVENT": str(log)}
    assert pylon("ws", "conflicts", cwd=repo, env=env).code in (0, 1)
    assert ["version"] in git_starts(log)  # another git binary: asked again


def test_a_loose_object_is_read_as_git_reads_it_or_not_at_all(repo: Path, tmp_path: Path) -> None:
    """loose.read against `git cat-file`: pylon's own writes come back as git's bytes; an
    object of another type, a packed one, or one whose bytes do not hash to its id gives None (git
    is asked then)."""
    import os
    import zlib

    from pylon.workspace import loose

    objects = str(repo / ".git" / "objects")
    blob = loose.blob(objects, b"kept \xff bytes\n")
    tree = loose.tree(objects, {b"a b.txt": ("100644", blob)})
    commit = loose.commit(objects, tree, [], "pylon-keep: x\n\u00fcn\u00efc\u00f6d\u00e9\n", 1)
    for kind, oid in (("blob", blob), ("tree", tree), ("commit", commit)):
        assert loose.read([objects], oid, kind) == subprocess_bytes(repo, "cat-file", kind, oid)
    assert loose.read([objects], blob, "commit") is None  # another type: git's refusal, not ours
    head = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "gc", "-q")  # HEAD's commit is packed now
    assert loose.read([objects], head, "commit") is None
    path = os.path.join(objects, commit[:2], commit[2:])
    os.chmod(path, 0o644)
    with open(path, "wb") as fh:  # same name, other bytes: never taken for the object
        fh.write(zlib.compress(b"commit 4\0tree"))
    assert loose.read([objects], commit, "commit") is None


def subprocess_bytes(repo: Path, *args: str) -> bytes:
    import subprocess

    return subprocess.run(["git", *args], cwd=repo, capture_output=True, check=True).stdout


def test_restore_of_an_op_reads_the_log_before_the_lock_once(moved_log: Path, tmp_path: Path) -> None:
    repo = moved_log
    write_files(repo, {"src/app.py": "edited again\n"})
    seq = _newest(repo)
    argvs = traced(repo, tmp_path, "ws", "restore", f"op-{seq}:before", "src")
    assert op_listings(argvs) == 2, argvs  # which op the name is, then again under the op lock
    assert (repo / "src/app.py").read_text() == "print('hello')\n"
    gone = pylon("ws", "restore", f"op-{seq + 50}", cwd=repo)
    assert gone.code != 0 and "unknown-snapshot" in gone.err and f"no op {seq + 50}" in gone.err


def test_claude_codes_next_command_records_the_last_one_without_reading_it_back(repo: Path, tmp_path: Path) -> None:
    """Claude Code sends no PostToolUse (install.py): the stream's next PreToolUse ends the last command,
    on the client's critical path. It reads the kept state it wrote, not git's copy of it."""
    import subprocess

    from tests.keep.hookpath import event

    argvs = []
    for n, command in enumerate(("echo one >> src/app.py", "rm docs/guide.txt", "true")):
        log = tmp_path / f"pre-{n}.json"
        payload = event("PreToolUse", command, repo, f"toolu_{n}")
        r = pylon("hook", "claude-code", cwd=repo, input=payload, env={"GIT_TRACE2_EVENT": str(log)})
        assert r.code == 0, r
        argvs.append(git_starts(log))
        subprocess.run(["bash", "-c", command], cwd=repo, check=True)
    for later in argvs[1:]:
        assert not [a for a in later if a[:1] == ["cat-file"]], later
        pairs = _name_only_pairs(later)
        assert len(pairs) == len(set(pairs)), later
    titles = [e["title"] for e in pylon("ws", "log", "--json", cwd=repo).json()["entries"] if e["kind"] == "op"]
    assert any("echo one >> src/app.py" in t for t in titles) and any("rm docs/guide.txt" in t for t in titles)


def test_packed_refs_reads_what_git_lists(repo: Path) -> None:
    """repo.packed_refs (the one packed-refs reader: HEAD by files, the keep's op numbers, every
    worktree's HEAD) against `git for-each-ref` once git packed them: annotated tags' peeled lines
    and the header left out, names with non-ASCII bytes kept."""
    from pylon.workspace.keep.records import repo_last
    from pylon.workspace.repo import locate, packed_refs

    head = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "tag", "-a", "-m", "annotated", "v1")
    git(repo, "branch", "bränch")
    git(repo, "update-ref", f"{OPS}00000007", head)
    git(repo, "pack-refs", "--all")
    listed = git(repo, "for-each-ref", "--format=%(refname) %(objectname)").splitlines()
    theirs = {name: oid for name, _, oid in (line.rpartition(" ") for line in listed)}
    assert packed_refs(str(repo / ".git")) == theirs and "refs/tags/v1" in theirs
    assert locate(str(repo)).head_by_files() == head and repo_last(locate(str(repo))) == 7
    git(repo, "update-ref", f"{OPS}00000009", head)  # loose beside the packed ones
    assert repo_last(locate(str(repo))) == 9
