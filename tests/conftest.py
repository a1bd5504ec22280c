"""Shared fixtures: an isolated environment per test, the installed console scripts, git repos.

Every test gets its own HOME, XDG folders, state directory and git identity, so nothing touches the
real home or git config. Commands run as real subprocesses of the installed `pylon`/`canon`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pytest

BIN = Path(sys.executable).parent

# Test tiers (docs/testing.md). The default tier, what `scripts/test` and a bare `pytest` run, leaves
# out the tests marked `slow` (full-size loops whose fast siblings stay in); `.ci/run` sets
# PYLON_TEST_TIER=full and runs everything. Read at import: the per-test fixture drops PYLON_*.
if TYPE_CHECKING:
    from tests.forkserver import ForkServer

FULL_TIER = os.environ.get("PYLON_TEST_TIER", "") == "full"


def pytest_sessionstart(session: pytest.Session) -> None:
    """Refuse to run on a machine that an earlier careless run polluted: every answer would be off."""
    import stat
    import tempfile

    problems = []
    for device in ("/dev/null", "/dev/zero"):
        if os.path.exists(device) and not stat.S_ISCHR(os.stat(device).st_mode):
            problems.append(
                f"{device} is not a character device (restore it: rm {device}; mknod -m 666 {device} c 1 "
                f"{3 if device.endswith('null') else 5})"
            )
    folder = os.path.realpath(tempfile.gettempdir())
    while True:
        if os.path.isdir(os.path.join(folder, ".canon")):
            problems.append(
                f"{os.path.join(folder, '.canon')} exists: canon would find that store above every "
                "test's temp folder (remove it)"
            )
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    if problems:
        pytest.exit("the machine is not fit for the tests:\n- " + "\n- ".join(problems), returncode=3)


# PYLON_TEST_CPU=<folder>: each worker writes one JSON line per test to <folder>/<worker>.jsonl with
# the CPU it used (its own, its waited children's, and the fork server's reaped commands, git
# included), so "where does the suite's CPU go" is measured, not guessed (docs/testing.md).
_CPU_DIR = os.environ.get("PYLON_TEST_CPU", "")


def _cpu_now() -> tuple[float, float, float]:
    """CPU-seconds so far: this worker's own, its waited children's, the fork server's reaped commands."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    server = 0.0
    proc = _SERVER._proc if _SERVER is not None else None
    if proc is not None and proc.poll() is None:
        with open(f"/proc/{proc.pid}/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        server = (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")  # cutime + cstime
    # the fork server is itself a waited child: its own CPU is in `kids`, its commands' are not
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime, server


if _CPU_DIR:

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        import time

        before, start = _cpu_now(), time.monotonic()
        forks = _SERVER.started if _SERVER is not None else 0
        yield
        after = _cpu_now()
        own, kids, server = (round(b - a, 4) for a, b in zip(before, after, strict=True))
        line = {
            "own": own,
            "kids": kids,
            "server": server,
            "forks": (_SERVER.started if _SERVER is not None else 0) - forks,
            "test": item.nodeid,
            "cpu": round(own + kids + server, 4),
            "wall": round(time.monotonic() - start, 4),
            "end": round(time.time(), 2),
        }
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(os.path.join(_CPU_DIR, f"{worker}.jsonl"), "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")


def sized(fast: int, full: int) -> int:
    """A loop's size: `fast` in the default tier, `full` in the full tier (same code path)."""
    return full if FULL_TIER else fast


def fast_few(values: list[Any], keep: Any) -> list[Any]:
    """Parametrize values with only those in `keep` in the default tier; the others are `slow` (cases of
    the same code path as those kept, still run in the full tier)."""
    return [
        value
        if value in keep
        else pytest.param(*(value if isinstance(value, tuple) else (value,)), marks=pytest.mark.slow)
        for value in values
    ]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "e2e: the real Claude Code and Codex clients against a mock model (tests/e2e)")
    import signal

    # A suite started as a background job of a script (`.ci/run &`) inherits an ignored SIGINT, and
    # every process it starts would too: tests that press Ctrl-C on a child (SIGINT) would then test
    # nothing. A handled signal is reset to its default in the children at exec.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# Left out of the default tier: `slow` (full-size loops) and `e2e` (real clients from npm).
OUTSIDE_DEFAULT = ("slow", "browser", "e2e")  # the tiers left out of the default run

# Long scenarios (kills at many moments, random sequences, many processes at once) whose every line
# of pylon/ the default tier's other tests also execute, measured with coverage.py, forks and
# subprocesses included (docs/benchmarks.md, Test tiers): `slow`, so they run in the full tier (CI).
# A change to the code they drive should run them: `pytest -m slow tests/workspace -k kill`.
FULL_ONLY = (
    "tests/agents/test_hook_helper.py::test_killing_the_helper_at_any_moment_loses_nothing",
    "tests/canon/agent/test_concurrency.py::test_twenty_hooks_at_once_lose_nothing_and_repeat_nothing",
    "tests/guard/test_roundtrip_property.py::test_hook_run_undo_is_byte_identical",
    "tests/workspace/edits/test_outside_writes.py::test_random_outside_appends_during_edits_are_never_lost",
    "tests/workspace/edits/test_replay.py::test_replay_of_edge_case_history_is_exact",
    "tests/workspace/test_apply_crash.py::test_sigkill_during_apply_fast",
    "tests/workspace/test_counts.py::test_changes_states_the_true_total_every_time",
    "tests/workspace/test_crash_ops.py::test_sigkill_inside_an_op_loses_nothing",
    "tests/workspace/test_crash_ops.py::test_sigkill_inside_undo_of_rm",
    "tests/workspace/test_exact_ops.py::test_a_killed_sync_settles_to_the_exact_bits_either_way",
    "tests/workspace/test_ignore_property.py::test_ignored_files_survive_rule_changes_between_ops",
    "tests/workspace/test_leftovers.py::test_after_sigkills_the_pylon_folder_holds_only_live_state",
    "tests/workspace/test_move_roundtrip.py::test_back_then_undo_then_undo_walks_back",
    "tests/workspace/test_roundtrip_property.py::test_round_trips_fast_subset",
    "tests/workspace/test_type_changes.py::test_type_changes_through_ops_and_restores_never_wedge",
    "tests/workspace/test_undo_crash.py::test_sigkill_during_undo_and_redo_keeps_later_work",
    "tests/workspace/test_withheld.py::test_randomized_sequences_never_put_the_persons_ignored_files_in_a_worktree",
    "tests/workspace/test_worktrees_manage.py::test_a_new_killed_at_any_moment_is_undone_by_prune",
    "tests/workspace/test_worktrees_new.py::test_eight_parallel_new_calls_all_succeed",
)


def _full_only(nodeid: str) -> bool:
    return any(nodeid == name or nodeid.startswith(name + "[") for name in FULL_ONLY)


def pytest_itemcollected(item: pytest.Item) -> None:
    if _full_only(item.nodeid):  # marked as collected, so `-m slow` (pytest's own filter) sees it too
        item.add_marker(pytest.mark.slow)


@pytest.hookimpl(trylast=True)  # after tests/e2e/conftest.py marks its items
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if FULL_TIER or config.getoption("-m"):  # an explicit -m (e.g. `-m slow`) chooses for itself
        return
    # markers, not keywords: keywords also hold folder names (a checkout in a folder named e2e)
    left = [item for item in items if any(item.get_closest_marker(mark) for mark in OUTSIDE_DEFAULT)]
    if left:
        config.hook.pytest_deselected(items=left)
        gone = {id(item) for item in left}
        items[:] = [item for item in items if id(item) not in gone]


@dataclass
class Result:
    code: int
    out: str
    err: str
    args: list[str]

    def json(self) -> Any:
        return json.loads(self.out)

    def __repr__(self) -> str:  # shown by pytest when an assertion fails
        return f"Result(code={self.code}, args={self.args!r}\n--- stdout\n{self.out}\n--- stderr\n{self.err})"


def script(name: str) -> str:
    """Absolute path of an installed console script (pylon, canon) of this interpreter's venv."""
    path = BIN / name
    if path.exists():
        return str(path)
    found = shutil.which(name)
    if not found:
        raise RuntimeError(f"console script {name!r} is not installed; run scripts/test")
    return found


_TMP_NUMBERS: dict[str, int] = {}


_PASSED = pytest.StashKey[dict[str, bool]]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    item.stash.setdefault(_PASSED, {})[report.when] = report.passed
    return report


@pytest.fixture
def tmp_path(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[Path]:
    """pytest's `tmp_path` (a new folder per test under the session's base, named after the test) in
    one mkdir: pytest's own lists the whole base folder and swaps a `...current` symlink for each of
    the suite's four thousand tests, three metadata writes that cost milliseconds each on a busy disk.

    As pytest's `tmp_path_retention_policy = "failed"` (set in pyproject.toml) does, the folder of a
    test that passed goes when it ends and a failed test's stays. Kept, a run leaves about 800 MB
    and 200,000 files, and pytest deletes the run before the last three at the end of the session,
    in one process: 20 to 60 s of one run's wall time (docs/benchmarks.md, Test tiers)."""
    name = re.sub(r"\W", "_", request.node.name)[:30]
    base = tmp_path_factory.getbasetemp()
    while True:
        number = _TMP_NUMBERS.get(name, 0)
        _TMP_NUMBERS[name] = number + 1
        path = base / f"{name}{number}"
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:
            continue
        break
    yield path
    outcome = request.node.stash.get(_PASSED, {})
    if outcome.get("setup") and outcome.get("call"):
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    for key in list(os.environ):
        # PYTHONUNBUFFERED too: a machine that sets it hid a failure that only buffered stderr shows
        if key.startswith(("GIT_", "PYLON_", "XDG_")) or key in (
            "NO_COLOR",
            "PYTHONUNBUFFERED",
            "CLAUDE_CONFIG_DIR",
            "CODEX_HOME",
        ):
            monkeypatch.delenv(key, raising=False)
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "GIT_CONFIG_NOSYSTEM": "1",
        # the hook's resident helper (pylon/hooks/helper.py) would outlive each test's HOME by its idle
        # time; tests/hooks/test_helper.py turns it on where it is the subject
        "PYLON_HOOK_HELPER": "0",
        "GIT_AUTHOR_NAME": "Test Author",
        "GIT_AUTHOR_EMAIL": "author@example.com",
        "GIT_COMMITTER_NAME": "Test Committer",
        "GIT_COMMITTER_EMAIL": "committer@example.com",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    # maintenance.auto and gc.auto off: `git commit` and friends would otherwise start `git
    # maintenance run --auto` (`git gc --auto` before git 2.29) after each commit, a process that
    # finds nothing to do in a test's small repositories and costs more than the commit itself.
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Test User\n\temail = test@example.com\n"
        "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
        "[maintenance]\n\tauto = false\n[gc]\n\tauto = 0\n",
        encoding="utf-8",
    )
    return env


def run_cmd(
    *args: str | os.PathLike[str],
    cwd: str | os.PathLike[str] | None = None,
    input: str | bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> Result:
    """Run an installed console script (`pylon ...`/`canon ...`) or any program; capture text."""
    data = input.encode("utf-8") if isinstance(input, str) else input
    code, out, err = run_bytes(*args, cwd=cwd, input=data, env=env, timeout=timeout)
    return Result(code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), [str(a) for a in args])


def run_bytes(
    *args: str | os.PathLike[str],
    cwd: str | os.PathLike[str] | None = None,
    input: bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> tuple[int, bytes, bytes]:
    """`run_cmd` without decoding: (exit status, stdout bytes, stderr bytes), as `subprocess.run` has them."""
    argv = [str(a) for a in args]
    if argv[0] in ("pylon", "canon"):
        argv[0] = script(argv[0])
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    if FORK and str(args[0]) in ("pylon", "canon"):
        return _fork_server().run(str(args[0]), argv[0], argv[1:], str(cwd or os.getcwd()), full_env, input, timeout)
    proc = subprocess.run(argv, cwd=cwd, input=input, capture_output=True, env=full_env, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


# Both tiers run `pylon`/`canon` command lines through a fork server (tests/forkserver.py): each is
# still a process of its own with real pipes, without paying Python's start and pylon's imports
# every time (the full tier's larger loops made that most of its CI time). The real console scripts
# still start in the start-up, kill, terminal and e2e tests and wherever a test Popens a script;
# PYLON_TEST_FORK=0 starts them for every command line.
FORK = os.environ.get("PYLON_TEST_FORK", "1") != "0"
_SERVER: ForkServer | None = None


def _fork_server() -> ForkServer:
    global _SERVER
    if _SERVER is None:
        import atexit

        from tests.forkserver import ForkServer

        _SERVER = ForkServer()
        atexit.register(_SERVER.close)
    return _SERVER


def start_cmd(
    *args: str | os.PathLike[str],
    cwd: str | os.PathLike[str],
    env: dict[str, str] | None = None,
    stdin: Any = None,
    stdout: Any = None,
    stderr: Any = None,
    text: bool = False,
    start_new_session: bool = False,
) -> Any:
    """Start `pylon ...`/`canon ...` without waiting: a `subprocess.Popen` of the installed script, or
    in the default tier the fork server's `Forked`, which has the same pid, pipes, poll, wait,
    communicate and signals. For commands that run until stopped (watchers, `pylon serve`)."""
    full_env = {**os.environ, **(env or {})}
    if FORK and str(args[0]) in ("pylon", "canon"):
        return _fork_server().start(
            str(args[0]),
            script(str(args[0])),
            [str(a) for a in args[1:]],
            str(cwd),
            full_env,
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            text=text,
            start_new_session=start_new_session,
        )
    argv = [script(str(args[0])) if str(args[0]) in ("pylon", "canon") else str(args[0]), *map(str, args[1:])]
    return subprocess.Popen(
        argv,
        cwd=cwd,
        env=full_env,
        stdin=stdin,
        stdout=stdout,
        stderr=stderr,
        text=text,
        start_new_session=start_new_session,
    )


def run_many(
    commands: list[list[str]],
    cwd: str | os.PathLike[str],
    *,
    inputs: list[bytes] | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> list[Result]:
    """Run command lines at the same moment, each a process of its own (`run_cmd` from one thread each).

    For races between processes (locks, first writes): in the default tier the fork server starts
    them within milliseconds of each other, without the interpreter's start and pylon's imports
    that a real console script pays for each; the full tier starts the real scripts.
    """
    from concurrent.futures import ThreadPoolExecutor

    start = threading.Barrier(len(commands))

    def one(i: int) -> Result:
        start.wait(timeout)
        return run_cmd(*commands[i], cwd=cwd, input=inputs[i] if inputs else None, env=env, timeout=timeout)

    with ThreadPoolExecutor(len(commands)) as pool:
        return list(pool.map(one, range(len(commands))))


class Run(Protocol):
    """The type of the `run` fixture (run_cmd)."""

    def __call__(
        self,
        *args: str | os.PathLike[str],
        cwd: str | os.PathLike[str] | None = None,
        input: str | bytes | None = None,
        env: dict[str, str] | None = None,
        timeout: float = 60,
    ) -> Result: ...


@pytest.fixture
def run() -> Run:
    """`run("canon", "read", "x", cwd=repo)` -> Result(code, out, err)."""
    return run_cmd


def git(repo: str | os.PathLike[str], *args: str, check: bool = True) -> str:
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def write_files(root: Path, files: Mapping[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


class MakeRepo(Protocol):
    """The type of the `make_repo` fixture."""

    def __call__(
        self, files: Mapping[str, str | bytes] | None = None, *, commit: bool = True, name: str = "repo"
    ) -> Path: ...


@pytest.fixture
def make_repo(tmp_path: Path) -> MakeRepo:
    """Factory: `make_repo(files={...}, commit=True, name="repo")` -> Path of a new git repository."""

    def factory(files: Mapping[str, str | bytes] | None = None, *, commit: bool = True, name: str = "repo") -> Path:
        root = tmp_path / name
        root.mkdir(parents=True)
        git(root, "init", "-q", "-b", "main")
        if files:
            write_files(root, files)
        if commit and files:
            git(root, "add", "-A")
            git(root, "commit", "-q", "-m", "initial")
        return root

    return factory


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A plain folder (no git) to use as a project root."""
    root = tmp_path / "project"
    root.mkdir()
    return root


def run_on_terminal(
    *args: str, cwd: str | os.PathLike[str], env: dict[str, str] | None = None, timeout: float = 60
) -> tuple[int, bytes]:
    """(exit status, stdout) of an installed console script whose stdout is a real pseudo-terminal."""
    import pty

    argv = [script(args[0]) if args[0] in ("pylon", "canon") else args[0], *args[1:]]
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        argv, cwd=cwd, stdout=follower, stderr=subprocess.DEVNULL, env={**os.environ, **(env or {})}
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO once the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    return proc.wait(timeout=timeout), b"".join(chunks).replace(b"\r\n", b"\n")


def inotify_masks(pid: int) -> list[int]:
    """The event mask of every inotify watch process `pid` holds (Linux: /proc/PID/fdinfo)."""
    masks = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") != "anon_inode:inotify":
                continue
            info = Path(f"/proc/{pid}/fdinfo/{fd}").read_text()
        except OSError:
            continue
        masks += [
            int(part[5:], 16)
            for line in info.splitlines()
            if line.startswith("inotify ")
            for part in line.split()
            if part.startswith("mask:")
        ]
    return masks
