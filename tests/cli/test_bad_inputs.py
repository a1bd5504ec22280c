"""Bad inputs on every command of the registry: each ends in a stable code, quickly, changing nothing.

The command lines are generated from the registry (pylon/cli/commands.py): every positional
argument and every option with a value is given, in turn, each of a list of bad values (huge
values, NUL bytes, paths too long for the file system, devices, FIFOs, symlink loops, negative
and out-of-range numbers, unknown revisions, paths outside the checkout, text that is not UTF-8,
words that look like options). For each one: no traceback, no `internal-error`, an exit status
of the conventions, no run past 5 s, and when the command refuses, no file of the checkout
changed (a listing of the tree before and after).

Lines run in-process (pylon.cli.main.run); stdin that never ends (/dev/zero) and FIFOs on stdin
need a real process. The default size gives each argument a rotating share of the bad values
(several hundred lines); the `slow` test gives every argument every value (some 3,000 lines),
and so does the default one with PYLON_BAD_INPUTS=all.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pylon.cli import commands as registry
from pylon.cli.spec import ANY, FLAG, MANY, ONE, OPTIONAL, PAIR, REST, Command, Opt
from tests.conftest import git, run_cmd, write_files

FULL = os.environ.get("PYLON_BAD_INPUTS") == "all"
SHARE = 3  # bad values per argument in the default size (rotating, so every value is used)
BAD = [
    "x" * 5000,  # a name longer than the file system allows (ENAMETOOLONG)
    "a/" * 2100,  # a path of over 4096 bytes
    "y" * 100_000,  # a huge value (as long as one word of a real command line may be)
    "/dev/urandom",  # a device that never ends (/dev/zero is a plain file in some sandboxes)
    "/dev/zero",
    "fifo",  # a FIFO with no writer
    "loop",  # a symbolic link to itself (ELOOP)
    "-1",
    "-99999999999999999999",
    "99999999999999999999999",
    "1e400",
    "nan",
    "",
    " ",
    "no-such-rev~3",  # a revision that names nothing
    "../outside",
    "/etc/passwd",
    ".git/config",
    "\n",
    "\udcff\udcfe",  # bytes that are not UTF-8, as they reach argv
    "x\x00y",  # a NUL byte
    "--json",  # a value that looks like an option
    "sealed/f.txt",  # a file without read permission (for anyone but root)
]
# A good value for each metavar, so that only the argument under test is bad.
GOOD = {
    "PATH": "f.txt",
    "ADDRESS": "src/app.py",
    "ID": "nosuch",
    "NAME": "start",
    "TEXT": "hello",
    "QUERY": "word",
    "AGENT": "claude-code",
    "SHELL": "bash",
    "COMMAND": "true",
    "PATH#TAG": "f.txt#000000000000",
    "PART": "edits",
    "CMD": "true",
    "PREFIX": "src",
}
EXITS = {0, 1, 2, 3, 4, 5, 126, 127}  # 126/127: `ws run` exits with its command's status
WATCHERS = ("ws watch", "canon watch")
HANG = 30  # seconds: a command line still running then hangs (a tighter bound fails on a loaded host, not on a bug)
COMMANDS = list(registry.COMMANDS)


class Hang(BaseException):
    """Raised by the alarm: not an Exception, so no handler can swallow it."""


def good(metavar: str) -> str:
    return GOOD.get(metavar.strip("[]").rstrip(".").rstrip("."), "x")


def lines_for(command: Command, full: bool = FULL) -> list[tuple[list[str], str]]:
    """Command lines (after `pylon`), each with exactly one bad value, and that value."""
    words = command.words
    takes = [a for a in command.args if a.count in (ONE, MANY, REST, OPTIONAL)]
    base = [good(a.metavar) for a in takes]
    rest = any(a.count == REST for a in command.args)
    stop = ["--timeout", "0.2"] if command.name in WATCHERS else []
    out: list[tuple[list[str], str]] = []
    slot = 7 * COMMANDS.index(command)  # each command starts elsewhere in the rotation

    def share(i: int) -> list[str]:
        return BAD if full else [BAD[(i * SHARE + k) % len(BAD)] for k in range(SHARE)]

    for position in range(len(takes) or (1 if any(a.count == ANY for a in command.args) else 0)):
        for bad in share(slot):
            args = list(base)
            if position < len(args):
                args[position] = bad
            else:
                args.append(bad)
            out.append(([*words, *stop, "--", *args] if not rest else [*words, *stop, *args], bad))
        slot += 1
    for opt in command.opts:
        if opt.kind == FLAG or opt.hidden:
            continue
        for bad in share(slot):
            out.append(
                (
                    [
                        *words,
                        *(stop if opt.name != "--timeout" else []),
                        *option(opt, bad),
                        *(["--", *base] if base else []),
                    ],
                    bad,
                )
            )
        slot += 1
    return out


def option(opt: Opt, bad: str) -> list[str]:
    if opt.kind == PAIR:
        return [opt.name, "1", "--", bad]
    return [f"{opt.name}={bad}"]


def listing(root: Path) -> dict[str, tuple[int, int, int]]:
    """Every file of the checkout (not .git, not canon's cache) with size, mtime and mode."""
    found: dict[str, tuple[int, int, int]] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", ".cache")]
        for name in files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            found[path] = (info.st_size, info.st_mtime_ns, info.st_mode)
    return found


def make_checkout(base: Path) -> Path:
    root = base / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write_files(root, {"f.txt": "one\ntwo\n", "src/app.py": "print(1)\n", "sealed/f.txt": "secret\n"})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    os.mkfifo(root / "fifo")
    os.symlink("loop", root / "loop")
    assert run_cmd("canon", "init", cwd=root).code == 0
    assert run_cmd("pylon", "ws", "baseline", "start", cwd=root).code == 0
    # sealed after the baseline: for a user other than root an unreadable tracked file makes the
    # capture refuse (capture-failed), which is right but would leave no baseline to compare with
    (root / "sealed" / "f.txt").chmod(0)
    return root


def run_in_process(argv: list[str]) -> tuple[int | str, str]:
    from pylon.cli.main import run

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="surrogateescape", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="surrogateescape", write_through=True)
    saved = sys.stdin, sys.stdout, sys.stderr, os.getcwd()
    code: int | str
    with open(os.devnull, encoding="utf-8") as null:
        sys.stdin, sys.stdout, sys.stderr = null, out, err
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(HANG)
        try:
            code = run("pylon", argv)
        except Hang:
            code = "hang"
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
            sys.stdin, sys.stdout, sys.stderr = saved[:3]
            os.chdir(saved[3])
    assert isinstance(out.buffer, io.BytesIO) and isinstance(err.buffer, io.BytesIO)
    return code, (out.buffer.getvalue() + err.buffer.getvalue()).decode("utf-8", "replace")


def _alarm(signum: int, frame: object) -> None:
    raise Hang()


def problems_of(argv: list[str], code: int | str, text: str, changed: bool) -> list[str]:
    found = []
    if code == "hang":
        found.append(f"ran past {HANG} s")
    if "Traceback" in text:
        found.append("traceback")
    if "internal-error" in text:
        found.append("internal-error")
    if code not in EXITS and code != "hang":
        found.append(f"exit {code}")
    if code != 0 and changed:
        found.append("a refused command changed files")
    return [f"{' '.join(repr(a[:40]) for a in argv)}: {', '.join(found)}\n    {text[:300]!r}"] if found else []


@pytest.mark.parametrize("command", COMMANDS, ids=[c.name for c in COMMANDS])
def test_bad_values_on_every_argument_end_in_a_code(
    command: Command, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    check_lines(command, lines_for(command), tmp_path, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS, ids=[c.name for c in COMMANDS])
def test_every_bad_value_on_every_argument(command: Command, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if FULL:
        pytest.skip("PYLON_BAD_INPUTS=all: the default test runs the full size already")
    check_lines(command, lines_for(command, full=True), tmp_path, monkeypatch)


def check_lines(
    command: Command, lines: list[tuple[list[str], str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_checkout(tmp_path)
    monkeypatch.chdir(root)
    bad: list[str] = []
    assert lines or not (command.args or [o for o in command.opts if o.kind != FLAG])
    for argv, _ in lines:
        before = listing(root)
        code, text = run_in_process(argv)
        bad += problems_of(argv, code, text, listing(root) != before)
    assert not bad, f"{len(bad)} of {len(lines)} bad inputs misbehaved:\n" + "\n".join(bad)


def test_the_default_size_tries_several_hundred_lines() -> None:
    total = sum(len(lines_for(c)) for c in COMMANDS)
    assert total >= 300, total
    used = {bad for c in COMMANDS for _, bad in lines_for(c)}
    assert set(BAD) <= used, "every bad value is tried on some command"


STDIN_READERS = [
    ["canon", "write", "src/app.py", "--body-file", "-"],
    ["canon", "journal", "--body-file", "-"],
    ["edit", "f.txt#000000000000"],
    ["edit", "f.txt#000000000000", "--ops-file", "-"],
    ["canon", "hook", "claude-code"],
    ["guard", "hook", "claude-code"],
]


@pytest.mark.parametrize("argv", STDIN_READERS, ids=lambda a: " ".join(a[:3]))
def test_stdin_that_never_ends_is_read_with_a_bound(argv: list[str], tmp_path: Path) -> None:
    """An endless stdin (/dev/urandom): the reader stops at its bound (too-large, or a hook's no-op answer)."""
    root = make_checkout(tmp_path)
    before = listing(root)
    # The bound is in bytes; subprocess's timeout only catches a reader that never stops (a wall-clock
    # limit tighter than that fails under load, not on a bug).
    with open("/dev/urandom", "rb") as zero:
        proc = subprocess.run([run_cmd_path("pylon"), *argv], cwd=root, stdin=zero, capture_output=True, timeout=120)
    err = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err and "internal-error" not in err, err
    assert proc.returncode in (0, 1, 2, 4), (proc.returncode, err)
    if proc.returncode:
        assert "error[too-large]" in err or "error[" in err, err
        assert listing(root) == before


@pytest.mark.parametrize(
    "argv",
    [
        ["canon", "write", "src/app.py", "--body-file", "fifo"],
        ["canon", "journal", "--body-file", "fifo"],
        ["edit", "f.txt#000000000000", "--ops-file", "fifo"],
        ["canon", "write", "src/app.py", "--body-file", "/dev/urandom"],
        ["edit", "f.txt#000000000000", "--ops-file", "/dev/urandom"],
    ],
    ids=lambda a: " ".join(a),
)
def test_devices_and_fifos_given_as_files_are_refused(argv: list[str], tmp_path: Path) -> None:
    root = make_checkout(tmp_path)
    before = listing(root)
    result = run_cmd("pylon", *argv, "--json" if argv[0] == "canon" else "--dry-run", cwd=root, timeout=60)
    assert result.code == 1 and "not-regular" in result.out + result.err, result
    assert listing(root) == before


def test_canon_write_refuses_before_writing_what_canon_read_would_refuse(tmp_path: Path) -> None:
    from pylon.canon.safeio import ARTICLE_MAX

    root = make_checkout(tmp_path)
    body = tmp_path / "body.md"
    body.write_bytes(b"word " * (ARTICLE_MAX // 5 + 10))  # just over the bound
    before = listing(root)
    for argv in (
        ["canon", "write", "src/app.py", "--body-file", str(body)],
        ["canon", "journal", "--body-file", str(body)],
    ):
        result = run_cmd(*argv, "--json", cwd=root)
        assert result.code == 1 and result.json()["error"]["code"] == "too-large", result
    assert listing(root) == before
    # Under the file bound but over the article bound once front matter is added: refused too.
    body.write_bytes(b"w" * (ARTICLE_MAX - 10))
    result = run_cmd(
        "canon", "write", "src/app.py", "--body-file", str(body), "--capsule", "c" * 200, "--json", cwd=root
    )
    assert result.code == 1 and result.json()["error"]["code"] == "too-large", result
    assert listing(root) == before
    assert not (root / ".canon" / "articles" / "src" / "app.py.md").exists()


def test_long_paths_end_in_name_too_long(tmp_path: Path) -> None:
    """`pylon read` and `ws cat` with a 5,000-character path once ended in internal-error."""
    root = make_checkout(tmp_path)
    for argv in (["read", "x" * 5000], ["ws", "cat", "x" * 5000], ["edit", "x" * 5000 + "#000000000000"]):
        result = run_cmd("pylon", *argv, "--json", cwd=root)
        assert result.code == 2 and result.json()["error"]["code"] == "name-too-long", result
    for argv in (["read", "loop"], ["ws", "cat", "loop"]):
        result = run_cmd("pylon", *argv, "--json", cwd=root)
        assert result.json()["error"]["code"] == "symlink-loop", result


def run_cmd_path(name: str) -> str:
    from tests.conftest import script

    return script(name)
