"""`ws new --copy` / `.worktreeinclude`: the patterns mean what git says they mean.

The oracle is git's own `check-ignore --no-index` in a second repository holding the same files,
with the patterns as its only ignore rules (core.excludesFile): a different entry into git's
matcher than the `ls-files --exclude-from` walk pylon uses, on the cases a hand-written converter
got wrong (an anchored folder, escapes, negation under an excluded folder, `**`, trailing slash
and trailing spaces).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import git, write_files
from tests.workspace.helpers import pylon
from tests.workspace.wt_helpers import new

FILES = [
    "build/out.log",
    "build/keep.txt",
    "src/build/gen.c",
    "src/build",
    "src/builder/x.o",
    "#notes",
    "!bang",
    "a*b",
    "axb",
    "sp ",
    "sp",
    "tab\tname",
    ".env",
    "conf/.env",
    "conf/local.toml",
    "conf/deep/er/local.toml",
    "deep/a/b/c.env",
    "logs/2024/x.log",
    "logs/y.log",
    "docs/private/x.md",
    "x/y/z/private/q.md",
    "weird [1].txt",
    "w1.txt",
]

CASES = [
    ["/build/"],
    ["build/"],
    ["build"],
    ["/src/build"],
    ["src/build/"],
    ["\\#notes"],
    ["#notes"],
    ["\\!bang"],
    ["!bang"],
    ["a\\*b"],
    ["a*b"],
    ["sp\\ "],
    ["sp "],
    ["sp"],
    ["build/", "!build/keep.txt"],
    ["build/*", "!build/keep.txt"],
    ["*.env", "!conf/.env"],
    ["**/private/"],
    ["docs/**"],
    ["logs/**/*.log"],
    ["**/local.toml"],
    ["conf/**/local.toml"],
    ["deep/**/c.env"],
    ["*.log", "!logs/"],
    ["weird [1].txt"],
    ["w[0-9].txt"],
    ["w[!0-9].txt"],
    ["tab\tname"],
    ["*"],
    ["conf/", "!conf/local.toml"],
    ["/*.env"],
    ["?.env", "conf"],
]


def _files(root: Path) -> None:
    for rel in FILES:
        if any(other.startswith(rel + "/") for other in FILES):
            continue  # `src/build` is a folder in one case and stays one
        write_files(root, {rel: f"{rel}\n"})


def oracle(tmp: Path, patterns: list[str]) -> set[str]:
    """The files git's check-ignore says the patterns match (only those patterns in force)."""
    root = tmp / "oracle"
    if not root.exists():
        root.mkdir()
        git(root, "init", "-q")
        _files(root)
    rules = tmp / "oracle-rules"
    rules.write_bytes(b"".join(os.fsencode(p) + b"\n" for p in patterns))
    listed = [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and ".git" not in p.parts]
    import subprocess

    proc = subprocess.run(
        ["git", "-c", f"core.excludesFile={rules}", "check-ignore", "--no-index", "--stdin", "-z"],
        cwd=root,
        input="\0".join(listed).encode() + b"\0",
        capture_output=True,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return {p for p in proc.stdout.decode().split("\0") if p}


@pytest.fixture
def ignoring(repo: Path) -> Path:
    """The repository with the files on disk, every untracked file ignored by its own rules."""
    _files(repo)
    (repo / ".git" / "info" / "exclude").write_text("*\n")
    return repo


def test_selection_matches_gits_own_answers(ignoring: Path, tmp_path: Path) -> None:
    from pylon.workspace.worktrees.copying import select

    for patterns in CASES:
        assert set(select(str(ignoring), patterns)) == oracle(tmp_path, patterns), patterns


def test_only_files_the_checkout_ignores_are_selected(repo: Path, tmp_path: Path) -> None:
    from pylon.workspace.worktrees.copying import select

    _files(repo)  # the checkout ignores build/ and *.log only (tests/workspace/conftest.py)
    chosen = set(select(str(repo), ["*.log", "*.env", "build/"]))
    assert chosen == {"build/out.log", "build/keep.txt", "src/build/gen.c", "logs/2024/x.log", "logs/y.log"}


def test_the_checkouts_own_rules_decide_what_is_ignored(repo: Path, tmp_path: Path) -> None:
    # negations in the checkout's rules, one beneath an ignored folder (which git does not re-include)
    from pylon.workspace.worktrees.copying import select

    _files(repo)
    write_files(repo, {".gitignore": "*.log\n!logs/y.log\nbuild/\n!build/keep.txt\nconf/*\n!conf/local.toml\n*.env\n"})
    listed = [str(p.relative_to(repo)) for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts]
    import subprocess

    proc = subprocess.run(
        ["git", "check-ignore", "--stdin", "-z"],
        cwd=repo,
        input="\0".join(listed).encode() + b"\0",
        capture_output=True,
    )
    ignored = {p for p in proc.stdout.decode().split("\0") if p}
    for patterns in (["*"], ["logs/", "conf/"], ["build/", "*.env", "!conf/.env"]):
        assert set(select(str(repo), patterns)) == oracle(tmp_path, patterns) & ignored, patterns


def test_an_anchored_folder_and_escapes_reach_ws_new(repo: Path) -> None:
    write_files(
        repo,
        {
            "build/out.log": "top\n",
            "src/build/gen.c": "nested\n",
            "#notes": "n\n",
            "!bang": "b\n",
            ".worktreeinclude": "/build/\n\\#notes\n",
        },
    )
    (repo / ".git" / "info" / "exclude").write_text("#notes\n!bang\n\\#notes\n\\!bang\n")
    made = new(repo, "cp", "--copy", "\\!bang")
    path = Path(str(made["path"]))
    assert made["copied"]["files"] == 3
    assert (path / "!bang").exists() and (path / "#notes").exists() and (path / "build/out.log").exists()
    assert not (path / "src/build/gen.c").exists()  # `/build/` is anchored to the root, as in git


def test_a_fifo_include_file_is_refused_before_anything_is_made(repo: Path) -> None:
    os.mkfifo(repo / ".worktreeinclude")
    before = git(repo, "for-each-ref")
    result = pylon("ws", "new", "f1", "--json", cwd=repo)
    assert result.json()["error"]["code"] == "not-regular"
    assert git(repo, "for-each-ref") == before and git(repo, "worktree", "list").count("\n") == 1


def test_a_line_break_in_a_copy_glob_is_a_usage_error(repo: Path) -> None:
    result = pylon("ws", "new", "n1", "--copy", "a\nb", "--json", cwd=repo)
    assert result.json()["error"]["code"] == "usage" and result.code == 2
