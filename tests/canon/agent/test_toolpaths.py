"""Which paths a tool call names and which it changes (pylon.canon.agent.toolpaths)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pylon.agents.events import ToolCall
from pylon.canon.agent.toolpaths import call_paths, canon_verbs, command_paths, counts, input_paths


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for rel in ("src/app.py", "src/core/config.py", "README.md", "notes"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    return tmp_path


def rel(paths: list[str], root: Path) -> list[str]:
    return [str(Path(p).relative_to(root)) for p in paths]


def test_a_path_counts_when_it_or_its_parent_exists(tree: Path) -> None:
    assert counts("src/app.py", str(tree)) == str(tree / "src/app.py")
    assert counts("src/new.py", str(tree)) == str(tree / "src/new.py")  # about to be created
    assert counts("nowhere/new.py", str(tree)) is None
    assert counts("flags", str(tree)) is None  # a bare word that names nothing is not a path
    assert counts("notes", str(tree)) == str(tree / "notes")  # ...unless it exists


@pytest.mark.parametrize(
    ("command", "named", "written"),
    [
        ("cat src/app.py | grep x", ["src/app.py"], []),
        ("sed -i 's/a/b/' src/core/config.py", ["src/core/config.py"], ["src/core/config.py"]),
        ("echo hi > src/new.py && cat README.md", ["src/new.py", "README.md"], ["src/new.py"]),
        ("python -m tool --out=src/gen.py src/app.py", ["src/gen.py", "src/app.py"], []),
        ("mv src/app.py src/main.py", ["src/app.py", "src/main.py"], ["src/main.py", "src/app.py"]),
        ("cp README.md src/", ["README.md", "src"], ["src"]),
        ("rm -f src/core/config.py; touch notes", ["src/core/config.py", "notes"], ["src/core/config.py", "notes"]),
        ("git diff -- 'src/app.py'", ["src/app.py"], []),
        ("echo 'unclosed src/app.py", ["src/app.py"], []),  # best effort past a broken quote
        # git's writing commands: both sides of mv, rm, checkout -- PATHS, restore (not --staged alone)
        ("git mv src/app.py src/main.py", ["src/app.py", "src/main.py"], ["src/app.py", "src/main.py"]),
        ("git rm -q src/app.py", ["src/app.py"], ["src/app.py"]),
        ("git -C src checkout HEAD~1 -- app.py", ["src", "app.py"], ["src/app.py"]),  # paths below -C DIR
        ("git checkout HEAD~1 -- src/app.py README.md", ["src/app.py", "README.md"], ["src/app.py", "README.md"]),
        ("git checkout main", [], []),
        ("git restore -s HEAD src/app.py", ["src/app.py"], ["src/app.py"]),
        ("git restore --staged src/app.py", ["src/app.py"], []),
        ("git restore --staged --worktree src/app.py", ["src/app.py"], ["src/app.py"]),
        # perl in place, with the program given by -e or as a script file
        ("perl -pi -e 's/a/b/' src/app.py", ["src/app.py"], ["src/app.py"]),
        ("perl -i.bak -ne print src/app.py", ["src/app.py"], ["src/app.py", "src/app.py.bak"]),  # and its backup
        ("perl -pi fix.pl src/app.py", ["fix.pl", "src/app.py"], ["src/app.py"]),
        ("perl -ne print src/app.py", ["src/app.py"], []),
        (
            "cat README.md | tee -a src/log.txt >> notes",
            ["README.md", "src/log.txt", "notes"],
            ["src/log.txt", "notes"],
        ),
    ],
)
def test_command_paths(tree: Path, command: str, named: list[str], written: list[str]) -> None:
    got, wrote = command_paths(command, str(tree))
    assert rel(got, tree) == named and rel(wrote, tree) == written


def test_input_paths_skip_content_and_find_nested_values(tree: Path) -> None:
    named, written = input_paths(
        {"file_path": "src/app.py", "content": "see README.md", "nested": [{"path": "src/core"}], "pattern": "TODO"},
        str(tree),
    )
    assert rel(named, tree) == ["src/app.py", "src/core"] and written == []


def test_call_paths_per_tool(tree: Path) -> None:
    write = ToolCall("Write", {"file_path": str(tree / "src/new.py"), "content": "x"})
    assert rel(call_paths(write, str(tree))[1], tree) == ["src/new.py"]
    read = ToolCall("Read", {"file_path": str(tree / "src/app.py")})
    assert call_paths(read, str(tree))[1] == []
    patch = ToolCall("apply_patch", {"command": "*** Begin Patch\n*** Update File: src/app.py\n*** End Patch\n"})
    named, changed = call_paths(patch, str(tree))
    assert rel(named, tree) == ["src/app.py"] and rel(changed, tree) == ["src/app.py"]
    bash = ToolCall("Bash", {"command": "tee notes < README.md"})
    assert rel(call_paths(bash, str(tree))[1], tree) == ["notes"]


@pytest.mark.parametrize(
    ("command", "verbs"),
    [
        ("canon read src/app.py", [("read", "src/app.py")]),
        ("pylon canon write src/app --capsule 'x y' --body-file n.md", [("write", "src/app")]),
        ("canon write --capsule 'Entry point.' src/app", [("write", "src/app")]),
        ("PYLON_SESSION=a /opt/bin/canon -C sub read x && canon map", [("read", "x")]),
        ("echo canon read x", []),
        ("canon search read x", []),
    ],
)
def test_canon_verbs(command: str, verbs: list[tuple[str, str]]) -> None:
    assert canon_verbs(command) == verbs


def test_patch_and_git_apply_write_the_files_their_diff_names(tree: Path) -> None:
    (tree / "fix.diff").write_text(
        "--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-x\n+y\n"
        "--- /dev/null\n+++ b/src/core/new.py\n@@ -0,0 +1 @@\n+z\n"
    )
    for command in (
        "patch -p1 < fix.diff",
        "patch -p1 -i fix.diff",
        "patch --input=fix.diff -p1",
        "git apply fix.diff",
        "git apply --index fix.diff",
    ):
        assert rel(command_paths(command, str(tree))[1], tree) == ["src/app.py", "src/core/new.py"], command
    assert command_paths("git apply --cached fix.diff", str(tree))[1] == []  # the index only
    assert rel(command_paths("patch README.md fix.diff", str(tree))[1], tree) == ["README.md"]
