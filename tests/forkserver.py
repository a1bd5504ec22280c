"""A fork server for the tests' `pylon` and `canon` command lines (docs/testing.md).

Most of the default tier's time went to starting Python and importing pylon again for each of
tens of thousands of command lines. The server pays that once per test worker: it imports every
pylon module, then forks for each command line. The fork is a process of its own with its own pid,
working directory, environment and real pipes on fds 0, 1 and 2; it runs the console script's own
entry point (`pylon.cli.main:pylon` / `:canon`) and exits, so its exit status (or the signal that
killed it) reaches the test exactly as from `subprocess.run`.

What it does not reproduce is the interpreter's start and pylon's imports. The start-up budget
tests (tests/cli/test_startup.py), the kill tests and every `Popen` of a script still start the
real console scripts, and the full tier (`PYLON_TEST_TIER=full`, .ci/run) runs every command line
through them; `PYLON_TEST_FORK=0` does the same in any run.

Protocol, one connection per command line: the client sends a JSON header with three fds
(SCM_RIGHTS); the server forks a handler, the handler forks the command, answers its pid, waits,
then answers its wait status.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

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


def _preload() -> None:
    """Import every pylon module, so a fork starts with all of them in memory."""
    import importlib
    import pkgutil

    import pylon

    for info in pkgutil.walk_packages(pylon.__path__, "pylon."):
        if info.name.endswith("__main__"):
            continue
        importlib.import_module(info.name)


def _run_command(header: dict, fds: list[int]) -> None:  # in the forked command: never returns
    code = 70
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
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


def _handle(conn: socket.socket) -> None:  # in a forked handler: never returns
    try:
        size = struct.unpack("!I", _recv_exact(conn, 4))[0]
        msg, fds, _flags, _addr = socket.recv_fds(conn, size, 3)
        while len(msg) < size:
            msg += _recv_exact(conn, size - len(msg))
        header = json.loads(msg)
        pid = os.fork()
        if pid == 0:
            conn.close()
            _run_command(header, list(fds))
        for fd in fds:
            os.close(fd)
        conn.sendall(struct.pack("!i", pid))
        _, status = os.waitpid(pid, 0)
        conn.sendall(struct.pack("!i", status))
    finally:
        os._exit(0)


def serve(path: str, bin_dir: str) -> None:
    _preload()
    # A console script's sys.path starts with its own folder, never the working directory: a
    # test repository's `json.py` must not shadow a module that a command imports late.
    sys.path[:] = [bin_dir, *(p for p in sys.path if p not in ("", os.getcwd()))]
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    listener.settimeout(0.5)
    parent = os.getppid()
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:  # reap finished handlers
                pass
        except ChildProcessError:
            pass
        if os.getppid() != parent:  # the test worker went away
            return
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        conn.settimeout(None)
        if os.fork() == 0:
            listener.close()
            _handle(conn)
        conn.close()


# ---------------------------------------------------------------- client side


class ForkServer:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._dir = ""
        self.path = ""

    def _ensure(self) -> str:
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._dir = tempfile.mkdtemp(prefix="pylon-fork-")
                self.path = os.path.join(self._dir, "sock")
                env = {k: v for k, v in os.environ.items() if not k.startswith(("PYLON_", "GIT_"))}
                self._proc = subprocess.Popen(
                    [sys.executable, "-c", "import sys; from tests.forkserver import serve; serve(*sys.argv[1:])",
                     self.path, os.path.dirname(sys.executable)],
                    cwd=str(Path(__file__).resolve().parent.parent),
                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=env,
                )
                assert self._proc.stdout is not None
                if self._proc.stdout.readline() != b"ready\n":
                    raise RuntimeError("the tests' fork server did not start")
            return self.path

    def run(self, prog: str, script_path: str, argv: list[str], cwd: str, env: dict[str, str],
            input: bytes | None, timeout: float) -> tuple[int, bytes, bytes]:
        """(returncode, stdout, stderr) of one command line, as `subprocess.run` would give them."""
        path = self._ensure()
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        header = json.dumps({"prog": prog, "script": script_path, "argv": argv,
                             "cwd": os.path.abspath(cwd), "env": env}).encode()
        if len(header) > _HEADER_MAX:
            raise ValueError("command line too large for the fork server")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
            sock.sendall(struct.pack("!I", len(header)))
            socket.send_fds(sock, [header], [in_r, out_w, err_w])
        finally:
            for fd in (in_r, out_w, err_w):
                os.close(fd)
        outputs: dict[int, bytes] = {}

        def feed() -> None:
            try:
                if input:
                    _write_all(in_w, input)
            except BrokenPipeError:
                pass
            finally:
                os.close(in_w)

        def drain(fd: int) -> None:
            chunks = []
            while data := os.read(fd, 65536):
                chunks.append(data)
            os.close(fd)
            outputs[fd] = b"".join(chunks)

        threads = [threading.Thread(target=feed, daemon=True),
                   threading.Thread(target=drain, args=(out_r,), daemon=True),
                   threading.Thread(target=drain, args=(err_r,), daemon=True)]
        for thread in threads:
            thread.start()
        sock.settimeout(timeout)
        try:
            pid = struct.unpack("!i", _recv_exact(sock, 4))[0]
            try:
                status = struct.unpack("!i", _recv_exact(sock, 4))[0]
            except TimeoutError:
                os.kill(pid, 9)
                raise subprocess.TimeoutExpired([prog, *argv], timeout) from None
        finally:
            sock.close()
        for thread in threads[1:]:
            thread.join(timeout)
        return os.waitstatus_to_exitcode(status), outputs.get(out_r, b""), outputs.get(err_r, b"")

    def close(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
