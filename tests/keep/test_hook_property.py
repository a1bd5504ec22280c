"""Property (issue 29, item 8): any shell command an agent runs, through the hook path exactly as a
client runs it (PreToolUse into `pylon hook claude-code`, then bash, then PostToolUse, Claude Code's
PostToolBatch or no hook at all, drawn), is undone by
`pylon ws undo` right after, whatever the classifier thinks of it: the whole tree (bytes, permission
bits, symlinks, empty folders), the index (`git ls-files -s`), HEAD, every ref (`git for-each-ref`)
and the stash (`git stash list` with its commits) equal what git and the file system showed before.

hypothesis draws the checkout (tracked, modified, staged, untracked and ignored files with odd
bits, symlinks, empty folders, branches, tags, stash entries) and the command: forms the classifier
calls safe, forms it cannot read (`x='rm -rf src'; $x`, `script -qc`, `python3 -c`, loops, `ed`,
`sort -o F F`), ref plumbing, `rm -rf .[^.]*`, brace ranges, compounds of two. The oracle is git and
os.lstat, nothing pylon computes. Default tier: a few examples; `-m slow` (PYLON_TEST_TIER=full)
runs many more.
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import git, run_cmd
from tests.keep.hookpath import run_through_hooks, whole_state

DIRS = ["src", "src/lib", "docs", "data x"]
FILES = ["a.txt", "b.py", "run.sh", "notes.md"]


def build(root: Path, data: st.DataObject) -> dict[str, list[str]]:
    """A checkout drawn by hypothesis; its paths by kind."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text(".env\nbuild/\n*.log\n")
    tracked = []
    for i in range(data.draw(st.integers(2, 6), label="tracked")):
        rel = f"{data.draw(st.sampled_from(DIRS))}/{data.draw(st.sampled_from(FILES)).replace('.', f'{i}.')}"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"line one {i}\nline two\n")
        tracked.append(rel)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "one")
    (root / tracked[0]).write_text("line one changed\nline two\n")
    git(root, "commit", "-qam", "two")
    git(root, "branch", "feat", "HEAD~1")
    git(root, "tag", "v1", "HEAD~1")
    git(root, "tag", "-a", "v2", "-m", "annotated")
    for rel in data.draw(st.lists(st.sampled_from(tracked), max_size=2, unique=True), label="modified"):
        (root / rel).write_text("modified, not committed\n")
        if data.draw(st.booleans(), label="staged"):
            git(root, "add", rel)
            (root / rel).write_text("modified again after staging\n")
    for mode, rel in zip(data.draw(st.lists(st.sampled_from([0o600, 0o640, 0o700, 0o755]), max_size=2)), tracked):
        os.chmod(root / rel, mode)
    if data.draw(st.booleans(), label="stash"):
        (root / tracked[-1]).write_text("stashed work\n")
        git(root, "stash", "push", "-q", "-m", "kept in the stash")
    untracked = ["new.txt", "src/untracked.py"]
    for rel in untracked:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("untracked\n")
    (root / ".env").write_text("SECRET=1\n")
    os.chmod(root / ".env", 0o600)
    (root / "build" / "out").mkdir(parents=True)
    (root / "build" / "out" / "app.o").write_bytes(b"\x00obj")
    (root / "build" / "empty").mkdir()
    (root / "run.log").write_text("log\n")
    (root / "empty" / "deeper").mkdir(parents=True)
    os.symlink(os.path.basename(tracked[0]), root / (tracked[0] + ".link"))
    return {
        "tracked": tracked,
        "untracked": untracked,
        "ignored": [".env", "build", "run.log"],
        "dirs": sorted({os.path.dirname(t) for t in tracked}) + ["empty", "build"],
    }


def one_command(data: st.DataObject, paths: dict[str, list[str]]) -> str:
    q = shlex.quote
    f = data.draw(st.sampled_from(paths["tracked"] + paths["untracked"] + paths["ignored"][:1]), label="file")
    g = data.draw(st.sampled_from(paths["tracked"]), label="other")
    d = data.draw(st.sampled_from(paths["dirs"]), label="dir")
    forms = [
        f"rm -rf {q(d)}",
        f"rm -f {q(f)}",
        "rm -rf .[^.]*",
        "rm -rf {b..d}uild",
        f"rm -rf {q(d)}/*",
        f"x={q('rm -rf ' + q(d))}; $x",
        f"script -qc {q('rm -rf ' + q(d))} /dev/null",
        f"python3 -c {q(f'import shutil; shutil.rmtree({d!r})')}",
        f"python3 -c {q(f'import os; os.rename({f!r}, {g!r})')}" if f != g else f"rm -f {q(g)}",
        f'for x in {q(d)}/*; do : > "$x"; done',
        f"printf ',d\\nw\\nq\\n' | ed -s {q(g)}",
        f"sort -o {q(g)} {q(g)}",
        f"chmod 600 {q(g)}",
        f"chmod 755 {q(g)}",
        f"mkdir -p {q(d)}/made/empty",
        f"ln -sf {q(g)} {q(d)}/alink",
        "echo changed > .env",
        "echo more >> run.log",
        "git branch -f feat HEAD",
        "git tag -f v1 HEAD",
        "git update-ref refs/heads/feat HEAD",
        "git update-ref -d refs/tags/v2",
        "git branch -D feat",
        "git clean -fdx -e .env",
        "git clean -fd",
        "git stash -u && git stash drop",
        "git stash clear",
        "git reset --hard HEAD~1",
        "git checkout -- .",
        "git switch -f -c other",
        f"git restore --staged {q(g)}",
        "git add -A",
        "git add -A && git commit -qm c",
        f"mv {q(f)} {q(g)}" if f != g else f"cp {q(g)} copied",
        "echo --force | xargs git clean -d",
        f"zip -qm archive.zip {q(g)}",
        f"perl -pi -e 's/line/LINE/' {q(g)}",
        "find . -name '*.log' -delete",
        f"git rm -q --cached {q(g)}",
        "git checkout -q feat",
        f"truncate -s 0 {q(g)}",
    ]
    return data.draw(st.sampled_from(forms), label="form")


def command(data: st.DataObject, paths: dict[str, list[str]]) -> str:
    first = one_command(data, paths)
    shape = data.draw(st.integers(0, 3), label="shape")
    if shape == 1:
        return f"{first} && {one_command(data, paths)}"
    if shape == 2:
        return f"bash -c {shlex.quote(first)}"
    return first


def round_trip(root: Path, line: str, end: str = "post") -> None:
    before = whole_state(root)
    _reply, ran = run_through_hooks(root, line, end=end)
    assert ran is not None
    changed = not (root / ".git" / "HEAD").exists() or whole_state(root) != before
    undone = run_cmd("pylon", "ws", "undo", cwd=root)
    assert undone.code == 0 or (not changed and "nothing-to-undo" in undone.err), (line, undone)
    after = whole_state(root)
    assert after == before, (line, [k for k in before if after[k] != before[k]])


def _check(tmp_path: Path, data: st.DataObject) -> None:
    root = tmp_path / f"r{len(os.listdir(tmp_path))}"
    paths = build(root, data)
    try:
        # how the client says the command ended: a PostToolUse, Claude Code's batch end, or nothing
        round_trip(root, command(data, paths), data.draw(st.sampled_from(["post", "batch", "none"]), label="end"))
    finally:
        shutil.rmtree(root, ignore_errors=True)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=st.data())
def test_any_command_through_the_hooks_is_undone_exactly(tmp_path: Path, data: st.DataObject) -> None:
    _check(tmp_path, data)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_any_command_through_the_hooks_is_undone_exactly_full(tmp_path: Path, data: st.DataObject) -> None:
    _check(tmp_path, data)
