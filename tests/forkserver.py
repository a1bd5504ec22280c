"""A fork server for the tests' `pylon` and `canon` command lines (docs/testing.md).

Most of the default tier's time went to starting Python and importing pylon again for each of
tens of thousands of command lines. The server pays that once per test worker: it imports every
pylon module, then forks for each command line. The fork is a process of its own with its own pid,
working directory, environment and real pipes on fds 0, 1 and 2; it runs the console script's own
entry point (`pylon.cli.main:pylon` / `:canon`) and exits, so its exit status (or the signal that
killed it) reaches the test exactly as from `subprocess.run`.

What it does not reproduce is the interpreter's start and pylon's imports. The start-up budget
tests (tests/cli/test_startup.py), the kill tests and the other `Popen`s of a script still start
the real console scripts, as the e2e tier's agent clients do; `PYLON_TEST_FORK=0` runs every
command line through them.

Protocol, one connection per command line: the client sends a JSON header with three fds
(SCM_RIGHTS); the server forks the command and answers its pid, then, once the command's pidfd
says it ended, its exit status (negative: the signal); the test closes the connection, and only
then does the server reap the command. `ForkServer.run` is `subprocess.run`; `ForkServer.start`
gives a `Forked`, the part of `subprocess.Popen` the tests use (tests/conftest.py `start_cmd`).
"""

from __future__ import annotations

import gc
import io
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO, Any

_HEADER_MAX = 1 << 20


def _recv_exact(sock: socket.socket, size: int) -> bytes:
    chunks = b""
    while len(chunks) < size:
        data = sock.recv(size - len(chunks))
        if not data:
            raise EOFError("fork server connection closed")
        chunks += data
    return chunks


# ---------------------------------------------------------------- server side


# Modules that pylon imports inside functions and that many of the tests' command lines reach: in a
# fork each would be imported again every time (frontmatter alone costs about 20 ms, sqlite3 4 ms;
# one command line in five reads the journal index). The rarely reached heavy ones (sqlglot,
# watchdog, rich) stay out: every fork pays a little for each page the server holds.
LAZY = (
    "sqlite3",
    "concurrent.futures",
    "frontmatter",
    "tomllib",
    "_strptime",
    "glob",
    "tree_sitter",
    "tree_sitter_bash",
)


def _preload() -> None:
    """Import every pylon module, so a fork starts with all of them in memory."""
    import importlib
    import pkgutil

    import pylon

    for info in pkgutil.walk_packages(pylon.__path__, "pylon."):
        if info.name.endswith("__main__"):
            continue
        importlib.import_module(info.name)
    for name in LAZY:
        try:
            importlib.import_module(name)
        except ImportError:  # an optional part that is not installed
            pass


def _run_command(header: dict, fds: list[int]) -> None:  # in the forked command: never returns
    code = 70
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        if header.get("new_session"):
            os.setsid()
            os.close(header["session_ready"])  # the server answers the pid once this end is closed
        os.chdir(header["cwd"])
        os.environ.clear()
        os.environ.update(header["env"])
        sys.argv = [header["script"], *header["argv"]]
        # fresh standard streams on the new fds, as a new interpreter would have
        sys.stdin = open(0, closefd=False, encoding=None)  # noqa: SIM115
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", closefd=False, errors="backslashreplace")  # noqa: SIM115
        from pylon.cli import main

        try:
            getattr(main, header["prog"])()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        else:
            code = 0
        import atexit

        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
    except BaseException:  # anything here is a bug of the server, shown on stderr
        import traceback

        traceback.print_exc()
        code = 70
    finally:
        os._exit(code)


def _read_header(conn: socket.socket) -> tuple[dict, list[int]]:
    size = struct.unpack("!I", _recv_exact(conn, 4))[0]
    msg, fds, _flags, _addr = socket.recv_fds(conn, size, 3)
    while len(msg) < size:
        msg += _recv_exact(conn, size - len(msg))
    return json.loads(msg), list(fds)


def serve(path: str, bin_dir: str) -> None:
    """Accept command lines and fork each one straight from this process.

    One fork per command line: the server learns that a command ended from its pidfd, in the same
    poll as the listener, so no helper process (a second fork of this large interpreter, about 2 ms
    of CPU each) stands between a command and its test. As with `subprocess.Popen`, an ended command
    stays a zombie until its test has its status (the test closes the connection): until then its
    pid cannot be reused, so a test may signal it by pid.
    """
    _preload()
    # As pylon's own hook helper does: a command's garbage collections then never walk, and so never
    # copy, the pages of what the server imported (docs/benchmarks.md, Test tiers).
    gc.collect()
    gc.freeze()
    # A console script's sys.path starts with its own folder, never the working directory: a
    # test repository's `json.py` must not shadow a module that a command imports late.
    sys.path[:] = [bin_dir, *(p for p in sys.path if p not in ("", os.getcwd()))]
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    poller = select.poll()  # a poll object holds no descriptor that a command could inherit
    poller.register(listener, select.POLLIN)
    running: dict[int, tuple[int, socket.socket]] = {}  # pidfd -> (pid, connection)
    ended: dict[int, tuple[int, socket.socket]] = {}  # connection fd -> (pid, connection): status sent
    parent = os.getppid()
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while os.getppid() == parent:  # until the test worker goes away
        for fd, _ in poller.poll(500):
            if fd == listener.fileno():
                _start(listener, poller, running, ended)
            elif fd in running:
                pid, conn = running.pop(fd)
                poller.unregister(fd)
                os.close(fd)
                info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # the status, not reaped yet
                assert info is not None
                code = info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
                try:
                    conn.sendall(struct.pack("!i", code))
                except OSError:  # the test went away: nobody holds the pid any more
                    pass
                ended[conn.fileno()] = (pid, conn)
                poller.register(conn, select.POLLIN)
            else:  # a test closed the connection of an ended command: its pid may go now
                pid, conn = ended.pop(fd)
                poller.unregister(fd)
                os.waitpid(pid, 0)
                conn.close()


def _start(
    listener: socket.socket,
    poller: select.poll,
    running: dict[int, tuple[int, socket.socket]],
    ended: dict[int, tuple[int, socket.socket]],
) -> None:
    conn, _ = listener.accept()
    conn.settimeout(30)  # the client sends its header at once; this only bounds a broken one
    try:
        header, fds = _read_header(conn)
    except (OSError, EOFError, ValueError):
        conn.close()
        return
    ready = os.pipe() if header.get("new_session") else None
    if ready:  # as from Popen, the command is in its own session by the time the test has its pid
        header["session_ready"] = ready[1]
    pid = os.fork()
    if pid == 0:  # the command: none of the server's descriptors stay open in it
        for fd in (
            listener.fileno(),
            conn.fileno(),
            *running,
            *ended,
            *(c.fileno() for _, c in running.values()),
            *(ready[:1] if ready else ()),
        ):
            os.close(fd)
        _run_command(header, fds)
    for fd in fds:
        os.close(fd)
    if ready:
        os.close(ready[1])
        os.read(ready[0], 1)  # end of file: the command closed its end after setsid (or ended)
        os.close(ready[0])
    pidfd = os.pidfd_open(pid)
    try:
        conn.sendall(struct.pack("!i", pid))
    except OSError:
        pass  # it is still reaped when it ends
    running[pidfd] = (pid, conn)
    poller.register(pidfd, select.POLLIN)


# ---------------------------------------------------------------- client side


class ForkServer:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._dir = ""
        self.path = ""
        self.started = 0  # command lines started (PYLON_TEST_CPU's records)

    def _ensure(self) -> str:
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self.close()  # a server that died: its folder goes too
                self._dir = tempfile.mkdtemp(prefix="pylon-fork-")
                self.path = os.path.join(self._dir, "sock")
                env = {k: v for k, v in os.environ.items() if not k.startswith(("PYLON_", "GIT_"))}
                self._proc = subprocess.Popen(
                    [
                        sys.executable,
                        "-c",
                        "import sys; from tests.forkserver import serve; serve(*sys.argv[1:])",
                        self.path,
                        os.path.dirname(sys.executable),
                    ],
                    cwd=str(Path(__file__).resolve().parent.parent),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    env=env,
                )
                assert self._proc.stdout is not None
                if self._proc.stdout.readline() != b"ready\n":
                    raise RuntimeError("the tests' fork server did not start")
            return self.path

    def start(
        self,
        prog: str,
        script_path: str,
        argv: list[str],
        cwd: str,
        env: dict[str, str],
        *,
        stdin: Stream = None,
        stdout: Stream = None,
        stderr: Stream = None,
        text: bool = False,
        start_new_session: bool = False,
    ) -> Forked:
        """Start one command line; the part of `subprocess.Popen` that the tests use."""
        self.started += 1
        return Forked(self._ensure(), prog, script_path, argv, cwd, env, stdin, stdout, stderr, text, start_new_session)

    def run(
        self,
        prog: str,
        script_path: str,
        argv: list[str],
        cwd: str,
        env: dict[str, str],
        input: bytes | None,
        timeout: float,
    ) -> tuple[int, bytes, bytes]:
        """(returncode, stdout, stderr) of one command line, as `subprocess.run` would give them."""
        proc = self.start(
            prog, script_path, argv, cwd, env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        try:
            out, err = proc.communicate(input, timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise
        assert proc.returncode is not None
        return proc.returncode, out, err

    def close(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        if self._dir:  # the socket's folder: left behind, every run would add six to the temp folder
            import shutil

            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = ""


Stream = int | IO[Any] | None  # as Popen takes them: PIPE, DEVNULL, STDOUT (stderr only), a file, a fd, None


class Forked:
    """A command line forked by the server: pid, pipes, poll, wait, communicate and signals, as from
    `subprocess.Popen`. Its parent is the server; it stays a zombie (its pid reserved) until this
    handle has its status."""

    def __init__(
        self,
        path: str,
        prog: str,
        script_path: str,
        argv: list[str],
        cwd: str,
        env: dict[str, str],
        stdin: Stream,
        stdout: Stream,
        stderr: Stream,
        text: bool,
        start_new_session: bool,
    ) -> None:
        self.args = [script_path, *argv]
        self.returncode: int | None = None
        self._pending = b""
        theirs: list[int] = []
        ours: list[tuple[int, str]] = []  # our ends of the pipes: (fd, mode)
        to_close: list[int] = []
        for target, spec in enumerate((stdin, stdout, stderr)):
            if spec == subprocess.PIPE:
                read, write = os.pipe()
                mine, child = (write, read) if target == 0 else (read, write)
                theirs.append(child)
                to_close.append(child)
                ours.append((mine, "wb" if target == 0 else "rb"))
                continue
            ours.append((-1, ""))
            if spec == subprocess.STDOUT and target == 2:
                theirs.append(theirs[1])
            elif spec == subprocess.DEVNULL:
                fd = os.open(os.devnull, os.O_RDWR)
                theirs.append(fd)
                to_close.append(fd)
            elif spec is None:
                theirs.append(target)  # the test worker's own (pytest's capture), as Popen inherits it
            else:
                theirs.append(spec if isinstance(spec, int) else spec.fileno())
        header = json.dumps(
            {
                "prog": prog,
                "script": script_path,
                "argv": argv,
                "cwd": os.path.abspath(cwd),
                "env": env,
                "new_session": start_new_session,
            }
        ).encode()
        if len(header) > _HEADER_MAX:
            raise ValueError("command line too large for the fork server")
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._sock.connect(path)
            self._sock.sendall(struct.pack("!I", len(header)))
            socket.send_fds(self._sock, [header], theirs)
            self.pid: int = struct.unpack("!i", _recv_exact(self._sock, 4))[0]
        except BaseException:
            self._sock.close()
            for fd, _ in ours:
                if fd >= 0:
                    os.close(fd)
            raise
        finally:
            for fd in to_close:
                os.close(fd)
        files = [None if fd < 0 else open(fd, mode) for fd, mode in ours]  # noqa: SIM115
        if text:
            files = [None if f is None else io.TextIOWrapper(f) for f in files]
        self.stdin: IO[Any] | None = files[0]
        self.stdout: IO[Any] | None = files[1]
        self.stderr: IO[Any] | None = files[2]

    def _status(self, timeout: float | None) -> int | None:
        """The exit status once the server sent it (negative: the signal); None if not by `timeout`."""
        if self.returncode is None:
            self._sock.settimeout(timeout)
            try:
                while len(self._pending) < 4:
                    data = self._sock.recv(4 - len(self._pending))
                    if not data:
                        raise EOFError("the fork server went away")
                    self._pending += data
            except (TimeoutError, BlockingIOError):
                return None
            self.returncode = struct.unpack("!i", self._pending)[0]
            self._sock.close()  # the server reaps it now
        return self.returncode

    def poll(self) -> int | None:
        return self._status(0)

    def wait(self, timeout: float | None = None) -> int:
        code = self._status(timeout)
        if code is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        return code

    def communicate(self, input: bytes | str | None = None, timeout: float | None = None) -> tuple[Any, Any]:
        outputs: dict[str, Any] = {}

        def feed(stream: IO[Any]) -> None:
            try:
                if input:
                    stream.write(input)
            except BrokenPipeError:
                pass
            finally:
                try:
                    stream.close()
                except BrokenPipeError:
                    pass

        def drain(name: str, stream: IO[Any]) -> None:
            outputs[name] = stream.read()
            stream.close()

        threads = []
        if self.stdin is not None:
            threads.append(threading.Thread(target=feed, args=(self.stdin,), daemon=True))
        for name, stream in (("out", self.stdout), ("err", self.stderr)):
            if stream is not None:
                threads.append(threading.Thread(target=drain, args=(name, stream), daemon=True))
        for thread in threads:
            thread.start()
        self.wait(timeout)
        for thread in threads:
            thread.join(timeout)
        return outputs.get("out"), outputs.get("err")

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:  # a zombie until then: the pid is still this command's
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def __enter__(self) -> Forked:
        return self

    def __exit__(self, *exc: object) -> None:
        for stream in (self.stdin, self.stdout, self.stderr):
            if stream is not None:
                stream.close()
        self.wait()
