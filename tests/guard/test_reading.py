"""The guard's reading of shell text (pylon.guard.shell + pylon.guard.judge.reading), checked against
bash: where a redirection lands, and what each simple command is after the walk."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pylon.guard.judge.reading import read
from pylon.guard.model import Cmd, Pipe, Seq
from pylon.guard.shell import parse


@pytest.mark.parametrize(
    "line",
    ["printf a | cat > f", "printf a && printf b > f", "printf a; printf b | cat > f", "false || printf b | cat > f"],
)
def test_a_trailing_redirection_belongs_to_the_last_command_as_in_bash(tmp_path: Path, line: str) -> None:
    subprocess.run(["bash", "-c", line], cwd=tmp_path, check=True)
    assert (tmp_path / "f").read_text() in ("a", "b")  # bash: the last command alone wrote into f
    commands = list(read(line, str(tmp_path)).commands)
    assert [c.redirs for c in commands[:-1]] == [[] for _ in commands[:-1]]
    assert commands[-1].redirs == [(">", "f")]


def test_a_group_redirection_still_reaches_every_command_inside() -> None:
    node = parse("printf a | { printf b; printf c; } > f")
    assert isinstance(node, Seq)
    pipe = node.items[0]
    assert isinstance(pipe, Pipe)
    first, group = pipe.items
    assert isinstance(first, Cmd) and first.redirs == []
    inner = [n for n in group.items if isinstance(n, Cmd)] if isinstance(group, Seq) else []
    assert len(inner) == 2 and all(c.redirs and c.redirs[0].op == ">" for c in inner)


def test_the_reading_follows_cd_wrappers_shell_strings_and_loops(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("")
    got = read(
        "cd src && sudo -u me timeout 5 rm *.py; bash -c 'echo x > y'; for f in p q; do : > $f; done", str(tmp_path)
    )
    seen = [(c.argv, c.cwd, c.redirs) for c in got.commands]
    src = str(tmp_path / "src")
    assert (["rm", "a.py"], src, []) in seen  # the glob matched in the folder cd went to
    assert (["echo", "x"], src, [(">", "y")]) in seen
    assert ([":"], src, [(">", "p"), (">", "q")]) in seen
    assert got.unread == []


def test_unreadable_text_is_returned_whole_and_nothing_raises() -> None:
    got = read("echo 'never closed > f", "/")
    assert got.unread and "never closed" in got.unread[0]
    assert read("a\0b", "/").unread == ["a\0b"]


@pytest.mark.parametrize(
    "line", ['printf "%s|" "" x', "printf '%s|' \"\" x", 'printf "%s|" "$" x', 'printf "%s|" "a$" "$"b x']
)
def test_an_empty_string_is_one_empty_word_as_bash_passes_it(tmp_path: Path, line: str) -> None:
    said = subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    words = next(iter(read(line, str(tmp_path)).commands)).argv[2:]
    assert None not in words  # every word is known text here
    assert "|".join(str(w) for w in words) + "|" == said  # bash: `|x|`, `$|x|`: the empty word kept, a lone `$` itself
