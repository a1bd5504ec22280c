"""A line every shell refuses runs nothing, so it is safe; anything a shell would run is read as
before (unknown when the grammar cannot read it). The oracle is bash itself (`bash -n`, also with
extglob): every line pylon calls refused, bash refuses too."""

from __future__ import annotations

import subprocess

import pytest

from pylon.guard.context import Context
from pylon.guard.judge.classify import classify, refused_everywhere

REFUSED = [
    "rm -rf /some/path 'unterminated",
    "git push -f origin main 'oops",
    'echo "find . -delete',
    "&& git reset --hard",
    "| git reset --hard",
    "|& git reset --hard",
    "& git reset --hard",
    "git stash clear 'x",
    "rm -rf src; echo don't",
]
RUN = [
    "rm -rf !(keep)",
    "rm -rf src\necho 'unterminated",
    "&>out git reset --hard",
    "rm -rf src # don't",
    "echo $'it\\'s' && rm -rf src",
    "rm -rf src \\'",
]


def bash_refuses(line: str) -> bool:
    return all(
        subprocess.run(["bash", *opt, "-n", "-c", line], capture_output=True).returncode != 0
        for opt in ([], ["-O", "extglob"])
    )


@pytest.mark.parametrize("line", REFUSED)
def test_a_line_every_shell_refuses_is_safe(line: str, tmp_path: object) -> None:
    assert bash_refuses(line), line
    assert classify(line, Context(str(tmp_path), None)).verdict == "safe", line


@pytest.mark.parametrize("line", RUN)
def test_a_line_a_shell_runs_is_read(line: str, tmp_path: object) -> None:
    assert classify(line, Context(str(tmp_path), str(tmp_path))).verdict != "safe", line
    assert not refused_everywhere(line) or bash_refuses(line), line


# Not known without a shell (a `$` or a second quote kind): pylon asks bash (and zsh, the user's
# shell) with `-n`, and calls the line safe only when each of them refuses it.
ASKED = ['rm -rf "$d', 'ls $(echo "x)', "git reset --hard \"$(echo 'x')"]


@pytest.mark.parametrize("line", ASKED)
def test_a_line_the_shells_are_asked_about_is_safe_only_when_they_refuse_it(line: str, tmp_path: object) -> None:
    assert not refused_everywhere(line) and bash_refuses(line), line
    result = classify(line, Context(str(tmp_path), None))
    assert result.verdict == "safe", line
    assert "syntax error" in result.findings[0].reason and "bash" in result.findings[0].reason
