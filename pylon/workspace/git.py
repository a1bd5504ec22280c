"""Running git: the scrubbed environment, bytes in and out, failures as PylonError.

Processes are started with os.posix_spawnp rather than subprocess: importing subprocess costs
about 18 ms (re, enum, locale, threading), a third of the start-up budget of `pylon ws changes`.
Every process gets pylon.gitenv.git_env() (inherited GIT_* scrubbed, GIT_OPTIONAL_LOCKS=0).

A git command that holds a lock while it writes (the index, a ref) starts in a process group of its
own: Ctrl-C, a terminal closing, or a kill of pylon's job then cannot stop it half-way and leave
its `.lock` file behind; it finishes its one short step, and the op log tells what was left undone.
A lock found in place (a git command running beside us, or one killed by hand) is waited for a
little, then reported as `git-locked` with the file and the safe way out.
"""

from __future__ import annotations

import os
import select

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypedDict

    class _SpawnGroup(TypedDict, total=False):
        setpgroup: int  # posix_spawnp takes no None here before Python 3.15: the key is left out


_BASE_ENV: dict[str, str] | None = None
_CHUNK = 1 << 16
# Subcommands pylon runs that hold a lock (the index, a ref) while they write, briefly. Killed
# between taking the lock and renaming it into place, they would leave the lock behind. Commands
# that write many files without a lock (`checkout-index` from a private index, `worktree add`,
# `clean`) stay in pylon's group: killed with it, they stop, and what they left is settled from
# what is on disk (restore runs again; `ws prune` removes a half-made worktree), never raced.
_WRITERS = frozenset({"read-tree", "symbolic-ref", "update-index", "update-ref", "write-tree"})
LOCK_WAIT = 3.0  # seconds to wait for a lock someone else holds before reporting it


def subcommand(args: list[str]) -> str | None:
    """The git subcommand in `args` (global options such as `-c k=v` and `-C dir` skipped)."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in ("-c", "-C", "--git-dir", "--work-tree"):
            skip = True
        elif not arg.startswith("-"):
            return arg
    return None


_OBJECTS: dict[str, str] = {}  # while keeping a state: git reads and writes pylon's store (keep/store.py)


class objects_in:  # a context manager, named for what it does
    """Every git process started inside uses `objects` (GIT_OBJECT_DIRECTORY and
    GIT_ALTERNATE_OBJECT_DIRECTORIES): what a kept state writes goes to pylon's store, never into the
    repository, and the repository's own objects are read through the alternates."""

    def __init__(self, objects: dict[str, str]) -> None:
        self.objects, self.saved = objects, dict(_OBJECTS)

    def __enter__(self) -> objects_in:
        _OBJECTS.clear()
        _OBJECTS.update(self.objects)
        return self

    def __exit__(self, *exc: object) -> None:
        _OBJECTS.clear()
        _OBJECTS.update(self.saved)


def object_dirs() -> tuple[tuple[str, str], ...]:
    """Where git processes started now read and write objects, when not the repository's own
    (objects_in): part of the key of what is kept about objects (immutable.py)."""
    return tuple(sorted(_OBJECTS.items()))


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    global _BASE_ENV
    if _BASE_ENV is None:
        from pylon.gitenv import git_env

        _BASE_ENV = git_env()
    if not extra and not _OBJECTS:
        return _BASE_ENV
    env = dict(_BASE_ENV)
    env.update(_OBJECTS)
    if extra:
        env.update(extra)
    return env


class GitProcess:
    """One running git process with pipes; `wait()` collects stdout/stderr and the exit code."""

    def __init__(
        self,
        args: list[str],
        *,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        input: bytes | None = None,
        stdout_fd: int | None = None,
        program: str = "git",
    ) -> None:
        argv = [program]
        if cwd is not None and program == "git":
            argv += ["-C", cwd]
        argv += args
        self.args = args
        self.input = input
        out_r, out_w = (None, stdout_fd) if stdout_fd is not None else os.pipe()
        err_r, err_w = os.pipe()
        in_r, in_w = os.pipe() if input is not None else (None, None)
        actions: list[tuple] = []
        if in_r is not None:
            actions.append((os.POSIX_SPAWN_DUP2, in_r, 0))
        else:
            actions.append((os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0))
        actions.append((os.POSIX_SPAWN_DUP2, out_w, 1))
        actions.append((os.POSIX_SPAWN_DUP2, err_w, 2))
        group: _SpawnGroup = {"setpgroup": 0} if program == "git" and subcommand(args) in _WRITERS else {}
        try:
            self.pid = os.posix_spawnp(argv[0], argv, environment(env), file_actions=actions, **group)
        except FileNotFoundError:
            for fd in (out_r, err_r, in_r, in_w, err_w):
                if fd is not None:
                    os.close(fd)
            if stdout_fd is None and out_w is not None:
                os.close(out_w)
            from pylon.errors import PylonError

            raise PylonError(
                "git-missing",
                f"The {program} program was not found on PATH; the workspace commands need it.",
                "Install git (https://git-scm.com) and run the command again.",
                exit_code=2,
            ) from None
        if stdout_fd is None:
            os.close(out_w)
        os.close(err_w)
        if in_r is not None:
            os.close(in_r)
        self.out_fd = out_r
        self.err_fd = err_r
        self.in_fd = in_w
        self.code: int | None = None

    def _reap(self) -> int:
        _, status = os.waitpid(self.pid, 0)
        self.code = os.waitstatus_to_exitcode(status)
        return self.code

    def wait(self) -> tuple[int, bytes, bytes]:
        """Feed the input, read both pipes to the end, and return (code, stdout, stderr)."""
        out: list[bytes] = []
        err: list[bytes] = []
        sinks = {}
        if self.out_fd is not None:
            sinks[self.out_fd] = out
        sinks[self.err_fd] = err
        pending = memoryview(self.input or b"")
        poller = select.poll()
        for fd in sinks:
            poller.register(fd, select.POLLIN)
        if self.in_fd is not None:
            if pending:
                os.set_blocking(self.in_fd, False)
                poller.register(self.in_fd, select.POLLOUT)
            else:
                os.close(self.in_fd)
                self.in_fd = None
        while sinks or self.in_fd is not None:
            for fd, _event in poller.poll():
                if fd == self.in_fd:
                    try:
                        written = os.write(fd, pending[:_CHUNK])
                    except BrokenPipeError:
                        written = len(pending)
                    except BlockingIOError:
                        continue
                    pending = pending[written:]
                    if not pending:
                        poller.unregister(fd)
                        os.close(fd)
                        self.in_fd = None
                    continue
                data = os.read(fd, _CHUNK)
                if data:
                    sinks[fd].append(data)
                else:
                    poller.unregister(fd)
                    os.close(fd)
                    del sinks[fd]
        return self._reap(), b"".join(out), b"".join(err)

    def read_stdout(self, size: int = _CHUNK) -> bytes:
        """Streaming read of stdout (stderr must stay small: it is read only in finish())."""
        assert self.out_fd is not None
        return os.read(self.out_fd, size)

    def kill(self) -> None:
        try:
            os.kill(self.pid, 9)
        except ProcessLookupError:
            pass

    def finish(self) -> tuple[int, bytes]:
        """After streaming: close stdout, read stderr, reap; returns (code, stderr)."""
        if self.out_fd is not None:
            os.close(self.out_fd)
            self.out_fd = None
        chunks = []
        while True:
            data = os.read(self.err_fd, _CHUNK)
            if not data:
                break
            chunks.append(data)
        os.close(self.err_fd)
        return self._reap(), b"".join(chunks)


def held_lock(err: bytes) -> str | None:
    """The lock file named by git's "Unable to create '<x>.lock': File exists" failure, if that is it."""
    marker = b"': File exists"
    end = err.find(marker)
    start = err.rfind(b"Unable to create '", 0, end) if end > 0 else -1
    if start < 0 or not err[:end].endswith(b".lock"):
        return None
    return os.fsdecode(err[start + len(b"Unable to create '") : end])


def wait_unlocked(lock: str, seconds: float = LOCK_WAIT) -> bool:
    """Wait (up to `seconds`) for a lock file to go; True when it is not there (any more)."""
    if not os.path.lexists(lock):
        return True
    import time

    deadline = time.monotonic() + seconds
    while os.path.lexists(lock):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True


def locked_error(lock: str, *, changed_nothing: bool, details: dict[str, object] | None = None) -> Exception:
    """`git-locked`: a git lock file stayed in the way for LOCK_WAIT seconds."""
    from pylon.errors import PylonError

    return PylonError(
        "git-locked",
        f"`{lock}` is in the way: a git command is running in this repository, or one was killed before it "
        "finished and left its lock behind." + (" Nothing was changed." if changed_nothing else ""),
        f"If no git command is running here, remove it (`rm '{lock}'`), then run the pylon command again.",
        details={"lock": lock, **(details or {})},
    )


def _retry_after_lock(start: GitProcess, rerun: Callable[[], GitProcess]) -> tuple[int, bytes, bytes]:
    """A git command that failed only because another process held its lock is run again once that
    lock is released (waiting up to LOCK_WAIT s in all): git takes its lock before changing anything."""
    code, out, err = start.wait()
    lock = held_lock(err) if code != 0 else None
    if lock is None:
        return code, out, err
    import time

    deadline = time.monotonic() + LOCK_WAIT
    while lock is not None and time.monotonic() < deadline and wait_unlocked(lock, deadline - time.monotonic()):
        code, out, err = rerun().wait()
        lock = held_lock(err) if code != 0 else None
    return code, out, err


def failure(args: list[str], code: int, err: bytes, what: str | None = None) -> Exception:
    """A PylonError for a git command that failed unexpectedly (its last stderr lines quoted)."""
    from pylon.errors import PylonError

    lock = held_lock(err)
    if lock is not None:
        return locked_error(lock, changed_nothing=False, details={"git_args": args, "git_exit": code})
    lines = [ln.strip() for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()]
    detail = "; ".join(lines[-2:]) if lines else f"exit status {code}"
    shown = " ".join(args[:3])
    return PylonError(
        "git-failed",
        f"{what or 'git ' + shown} failed: {detail}",
        f"Run `git {shown}` in the checkout to see the full message, fix the cause, then retry.",
        details={"git_args": args, "git_exit": code},
    )


def line_safe(name: str) -> bool:
    """Whether `name` survives git's one-name-per-line input (`cat-file --batch`, `--stdin-paths`):
    no newline in it, and no carriage return at its end (git drops one before the newline)."""
    return "\n" not in name and not name.endswith("\r")


def run(
    args: list[str],
    *,
    cwd: str | None = None,
    env: dict[str, str] | None = None,
    input: bytes | None = None,
    ok: tuple[int, ...] = (0,),
    what: str | None = None,
) -> bytes:
    """Run git and return its stdout; an exit code outside `ok` raises `git-failed` (`git-locked`
    when a lock stayed in the way)."""
    code, out, err = run_full(args, cwd=cwd, env=env, input=input)
    if code not in ok:
        raise failure(args, code, err, what)
    return out


def finish_run(proc: GitProcess, *, ok: tuple[int, ...] = (0,), what: str | None = None) -> bytes:
    """Wait for a process started earlier (to run alongside others) and return its stdout."""
    code, out, err = proc.wait()
    if code not in ok:
        raise failure(proc.args, code, err, what)
    return out


def run_full(
    args: list[str], *, cwd: str | None = None, env: dict[str, str] | None = None, input: bytes | None = None
) -> tuple[int, bytes, bytes]:
    """Run git and return (code, stdout, stderr), after waiting out a lock held by someone else."""

    def start() -> GitProcess:
        return GitProcess(args, cwd=cwd, env=env, input=input)

    return _retry_after_lock(start(), start)


def start(
    args: list[str], *, cwd: str | None = None, env: dict[str, str] | None = None, input: bytes | None = None
) -> GitProcess:
    """Start git without waiting (run several in parallel; call .wait() on each)."""
    return GitProcess(args, cwd=cwd, env=env, input=input)


def batch_objects(out: bytes, count: int) -> list[tuple[bytes, bytes] | None]:
    """The `count` answers of a `git cat-file --batch` output, in order: (type, bytes) of each object
    found, None for each `missing` (or ambiguous) name."""
    found: list[tuple[bytes, bytes] | None] = []
    pos = 0
    for _ in range(count):
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if header[-1:] in ([b"missing"], [b"ambiguous"]) or len(header) != 3:
            found.append(None)  # "<name> missing": the name may hold spaces (`<tree>:<path>`)
        else:  # "<oid> <type> <size>", then the bytes
            size = int(header[2])
            found.append((header[1], out[pos : pos + size]))
            pos += size + 1
    return found
