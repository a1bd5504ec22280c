"""Colour in the workspace commands: on a terminal (or --color always) only, never with NO_COLOR
or --color never, never in JSON; the diff itself stays byte-identical to git's once uncoloured."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import git, run_on_terminal
from tests.workspace.helpers import pylon, write_files

ANSI = re.compile(rb"\x1b\[[0-9;]*m")


def on_a_terminal(repo: Path, *args: str, env: dict[str, str] | None = None) -> bytes:
    """stdout of `pylon ARGS` when stdout is a real pseudo-terminal."""
    return run_on_terminal("pylon", *args, cwd=repo, env=env)[1]


def test_diff_lines_are_coloured_like_git_on_a_terminal_only(repo: Path) -> None:
    write_files(repo, {"src/app.py": "print('hello')\nprint('again')\n", "docs/guide.txt": "one\nthree\n"})
    plain = pylon("ws", "diff", "--since", "HEAD", cwd=repo)
    assert plain.code == 0 and "\x1b[" not in plain.out and plain.out == git(repo, "diff", "HEAD")
    painted = on_a_terminal(repo, "ws", "diff", "--since", "HEAD")
    assert ANSI.sub(b"", painted).decode() == plain.out  # colour adds codes, changes nothing else
    lines = painted.split(b"\n")
    added = next(line for line in lines if b"again" in line)
    removed = next(line for line in lines if b"two" in line)
    hunk = next(line for line in lines if b"@@" in line)
    assert added.startswith(b"\x1b[32m+") and removed.startswith(b"\x1b[31m-") and hunk.startswith(b"\x1b[36m@@")
    assert next(line for line in lines if ANSI.sub(b"", line).endswith(b"b/docs/guide.txt")).startswith(b"\x1b[1m")
    never = on_a_terminal(repo, "--color", "never", "ws", "diff", "--since", "HEAD")
    assert not ANSI.search(never)
    assert not ANSI.search(on_a_terminal(repo, "ws", "diff", "--since", "HEAD", env={"NO_COLOR": "1"}))


def test_a_removed_line_that_looks_like_a_header_is_still_red(repo: Path) -> None:
    write_files(repo, {"docs/guide.txt": "-- one\n", "src/app.py": "++ x\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "dashes")
    write_files(repo, {"docs/guide.txt": "one\n", "src/app.py": "x\n"})
    lines = on_a_terminal(repo, "ws", "diff", "--since", "HEAD").split(b"\n")
    for start in (b"\x1b[31m--- one", b"\x1b[32m+x", b"\x1b[1m--- a/docs/guide.txt"):
        assert any(line.startswith(start) for line in lines), start


def test_status_column_is_coloured_and_json_never_is(repo: Path) -> None:
    write_files(repo, {"new.txt": "n\n", "src/app.py": "changed\n"})
    (repo / "docs" / "guide.txt").unlink()
    painted = on_a_terminal(repo, "ws", "changes", "--since", "HEAD")
    rows = {ANSI.sub(b"", line).split()[-1]: line for line in painted.split(b"\n") if line.strip()}
    assert rows[b"new.txt"].startswith(b"\x1b[32madded")
    assert rows[b"docs/guide.txt"].startswith(b"\x1b[31mdeleted")
    assert rows[b"src/app.py"].startswith(b"\x1b[33mmodified")
    doc = on_a_terminal(repo, "--color", "always", "ws", "changes", "--since", "HEAD", "--json")
    assert not ANSI.search(doc)
    forced = pylon("--color", "always", "ws", "changes", "--since", "HEAD", cwd=repo)
    assert "\x1b[32madded" in forced.out
    assert "\x1b[" not in pylon("ws", "changes", "--since", "HEAD", cwd=repo).out
