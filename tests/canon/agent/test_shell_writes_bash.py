"""Which files a shell command writes, as canon's agent hook reads it, against what bash itself
changes: each command runs for real in a scratch checkout, and the files that differ afterwards
are the oracle. Canon reads the command with the guard's reader (pylon.guard.judge.reading), so this
also checks that one reading: `cd`, `bash -c`, wrappers, variables, globs and the redirection
at the end of a pipeline or list."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pylon.canon.agent.toolpaths import canon_verbs, command_paths
from tests.conftest import git, write_files

FILES = {
    "README.md": "alpha readme\n",
    "src/app.py": "alpha = 1\n",
    "src/util.py": "alpha = 2\n",
    "src/core/config.py": "alpha = 3\n",
    "notes/todo.txt": "alpha todo\n",
    "fix.diff": "--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-alpha = 1\n+beta = 1\n"
    "--- /dev/null\n+++ b/src/core/new.py\n@@ -0,0 +1 @@\n+gamma = 1\n",
}

COMMANDS = [
    "echo hi > out.txt",
    "echo hi >> src/app.py",
    "cat README.md | tee notes/log.txt > /dev/null",
    "cat README.md | sort > sorted.txt",  # the redirection belongs to `sort` alone
    "true && echo z > src/z.txt",
    "sed -i 's/alpha/beta/' src/app.py",
    "sed -i.bak 's/alpha/beta/' src/app.py",
    "sed -i -e 's/alpha/beta/' src/*.py",
    "cd src && sed -i 's/alpha/beta/' app.py",
    "cd src/core; echo x > made.py; cd ..; echo y > made2.py",
    "(cd src; echo x > sub.py); echo y > top.py",
    "bash -c 'cd src && echo y >> app.py'",
    "sh -ec 'echo q > src/q.txt'",
    "eval 'echo e > src/e.txt'",
    "echo $(echo q > src/q.txt) > /dev/null",
    "f=src/util.py; sed -i 's/alpha/beta/' \"$f\"",
    "for f in src/app.py README.md; do echo >> $f; done",
    "perl -pi -e 's/alpha/beta/' src/util.py",
    "sed -Ei 's/alpha/beta/' src/app.py",
    "sed -ie 's/alpha/beta/' src/app.py",  # GNU sed: -i with suffix `e`, then the script
    "sed -n -i 's/alpha/beta/p' -- src/app.py",
    "sed --in-place=.orig -e 's/alpha/beta/' -e 's/beta/gamma/' src/app.py src/util.py",
    "perl -pi.bak -e 's/alpha/beta/' src/app.py",
    "perl -i.orig -pe 's/alpha/beta/' README.md",
    "cp README.md src/copy.md",
    "mv README.md src/moved.md",
    "mv src/app.py src/util.py",
    "rm src/core/config.py",
    "rm -r notes",
    "touch src/new.py",
    "mkdir -p src/newdir",
    "env -C src touch new2.py",
    "timeout 5 tee src/t.txt < README.md > /dev/null",
    "nohup truncate -s 0 README.md > /dev/null 2>&1",
    "git mv src/app.py src/main.py",
    "git rm -q src/app.py",
    "git -C src rm -q app.py",
    "git checkout HEAD -- src/core/config.py",
    "git restore src/core/config.py",
    "git restore -s HEAD -- src/core/config.py",
    "git apply fix.diff",
    "patch -s -p1 < fix.diff",
    "patch -s -p1 -i fix.diff",
    "{ echo a; echo b; } > grouped.txt",
    "echo x | tee -a notes/todo.txt src/app.py > /dev/null",
]


def _tree(root: Path) -> dict[str, tuple[str, bytes]]:
    """Every path below root except .git, as (kind, content)."""
    out: dict[str, tuple[str, bytes]] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in dirs:
            out[os.path.relpath(os.path.join(folder, name), root)] = ("dir", b"")
        for name in files:
            path = os.path.join(folder, name)
            out[os.path.relpath(path, root)] = ("file", Path(path).read_bytes())
    return out


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("shell-writes") / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write_files(root, FILES)
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "initial")
    (root / "src/core/config.py").write_text("local change\n")  # something for checkout/restore to undo
    return root


@pytest.mark.parametrize("command", COMMANDS)
def test_written_paths_are_what_bash_changes(template: Path, tmp_path: Path, command: str) -> None:
    root = tmp_path / "repo"
    shutil.copytree(template, root, symlinks=True)
    _, written = command_paths(command, str(root))
    before = _tree(root)
    proc = subprocess.run(["bash", "-c", command], cwd=root, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    after = _tree(root)
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    assert changed, f"the case changes nothing: {command}"
    got = {os.path.relpath(p, root) for p in written}
    # nothing missed: every changed path is written or lies in a folder written (rm -r, mkdir -p)
    missed = {c for c in changed if not any(c == w or c.startswith(w + "/") for w in got)}
    # nothing invented: every written path changed (a folder: something below it changed)
    invented = {w for w in got if not any(c == w or c.startswith(w + "/") for c in changed)}
    assert not missed and not invented, f"{command}: missed {sorted(missed)}, invented {sorted(invented)}"


def test_a_folder_known_only_at_run_time_places_no_relative_path(template: Path) -> None:
    named, written = command_paths('cd "$(mktemp -d)" && echo x > README.md && rm src/app.py', str(template))
    assert written == [] and named == []


@pytest.mark.parametrize(
    ("command", "verbs"),
    [
        ("bash -c 'canon read src/app'", [("read", "src/app")]),
        ("cd sub && timeout 9 canon read x", [("read", "x")]),
        ("X=1 canon read a | head; echo canon read b", [("read", "a")]),
    ],
)
def test_canon_verbs_read_through_the_same_reader(command: str, verbs: list[tuple[str, str]]) -> None:
    assert canon_verbs(command) == verbs
