"""The resident helper of `pylon hook`: one process per user, interpreter, pylon and environment that
has pylon's hook modules imported already and forks once per hook event, so an event costs the
hook process its interpreter's start and a socket round trip instead of pylon's imports and first
calls (docs/guard.md, "Speed").

Started by the first hook that found none (helper_ask.start); exits after IDLE seconds without an
event, when the files of the pylon it imported change, or when its socket is gone. While it runs it
holds `<state>/helpers/<key>.lock` (one helper per key; the file holds its pid) and listens on
`<key>.sock` beside it, in a folder only this user can enter; it answers only this user's processes
(SO_PEERCRED).

Every event but WorktreeCreate and WorktreeRemove comes here (pylon/cli/hook.py). Each is
answered by a fork of the helper, exactly as the hook process would answer it: the same code
(pylon.cli.hook.fast), in the hook's working directory, with the event's bytes as stdin and
stdout and stderr collected and sent back. The fork starts from the helper's state as it was after
its imports (the helper itself never runs an event), so nothing one event leaves in memory reaches
another. One fork waits for the next event; the one after it is forked once that answer is sent
(or after a second), so a second event that arrives meanwhile waits that long. A fork that
dies before its answer is complete leaves the event to the hook process (helper_ask.py), which
answers it in its own process; the keep's lock and atomic writes make that safe at any point
(pylon/workspace/keep/chain.py).
"""

from __future__ import annotations

import os
import sys

from pylon.hooks import helper_ask

TYPE_CHECKING = False
if TYPE_CHECKING:
    import socket
    from collections.abc import Callable

    Runner = Callable[[str, list[str]], int]  # pylon.cli.main.run: the hook process's own entry

IDLE = 120.0  # seconds without an event before the helper exits (PYLON_HOOK_HELPER_IDLE)
# What the hook's events import (the rest follows from these); a fork starts with them in memory.
PRELOAD = (
    "pylon.agents.events",
    "pylon.agents.answers",
    "pylon.hooks.entry",
    "pylon.hooks.guard",
    "pylon.hooks.keep",
    "pylon.hooks.files",
    "pylon.hooks.clash",
    "pylon.hooks.note",
    "pylon.hooks.worktrees",
    "pylon.cli.hook",
    "pylon.agents.jsonio",
    "pylon.findroot",
    "pylon.state",
    "pylon.boundary",
    "pylon.guard.judge.classify",
    "pylon.guard.walk",
    "pylon.guard.judge.rules",
    "pylon.guard.readout",
    "pylon.guard.judge.reading",
    "pylon.guard.shell",
    "pylon.guard.policy",
    "pylon.guard.commands.findrm",
    "pylon.guard.commands.gitrefs",
    "pylon.guard.commands.gitrules",
    "pylon.guard.commands.gitwork",
    "pylon.guard.commands.interp",
    "pylon.guard.commands.remote",
    "pylon.guard.commands.wrappers",
    "pylon.workspace.keep.chain",
    "pylon.workspace.keep.records",
    "pylon.workspace.keep.kept",
    "pylon.workspace.keep.ignored",
    "pylon.workspace.keep.mirror",
    "pylon.workspace.keep.recover",
    "pylon.workspace.keep.refsnap",
    "pylon.workspace.loose",
    "pylon.workspace.keep.ledger",
    "pylon.workspace.keep.changes",
    "pylon.workspace.state",
    "pylon.workspace.current",  # the keep asks a running `ws watch` first (kept.py)
    "pylon.workspace.watchsync",
    "pylon.workspace.exact_quick",
    "pylon.workspace.ops.guard_probe",
    "pylon.workspace.ops.guard_op",
    "pylon.canon.agent.hook",
    "pylon.canon.store",
    "pylon.canon.record",
    "pylon.beneath",
    "pylon.beside",
    "pylon.gitenv",
    "pylon.workspace.leftovers",
    "pylon.workspace.ops.guard_snapshot",
    # the standard library's modules they import on the way (tests/agents/test_hook_helper.py)
    "contextvars",
    "hashlib",
    "gc",
    "subprocess",
    "threading",
    "glob",
    "locale",
    "math",
    "binascii",
    "encodings.ascii",
    "pylon.sessions.marks",
    "pylon.locks",
)


def main(runner: Runner) -> None:
    """The helper's life (`python -c '... serve_helper()' KEY`: helper_ask.start, pylon/cli/hook.py),
    answering each event with `runner(prog, argv)`, the entry a hook process runs."""
    name = sys.argv[1] if len(sys.argv) > 1 else ""
    if not name.isalnum():
        return
    os.chdir("/")
    fd = helper_ask.open_folder(create=False)
    if fd is None:
        return
    lock = _lock(fd, name)
    if lock is None:
        return  # another helper has this key
    env = helper_ask.env_blob()
    if helper_ask.key(env) != name:
        return  # started by a process with another environment: its key names another helper
    _preload()
    sources = _sources()
    import gc

    gc.collect()
    gc.freeze()  # a fork's collections then never walk (and copy) the pages of what was imported
    import socket

    path = f"/proc/self/fd/{fd}/{name}.sock"
    try:
        os.unlink(path)  # a dead helper's; we hold the key's lock
    except FileNotFoundError:
        pass
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(64)
    bound = os.stat(path).st_ino
    try:
        _serve(server, env, sources, _idle(), path, bound, (lock, fd), runner)
    finally:
        try:
            if _still_bound(path, bound):
                os.unlink(path)
        except OSError:
            pass
        os.close(lock)


def _serve(
    server: socket.socket,
    env: bytes,
    sources: dict[str, int],
    idle: float,
    path: str,
    bound: int,
    private: tuple[int, int],
    runner: Runner,
) -> None:
    """Keep one fork waiting in accept() (the spare), so an event never waits for a fork: the spare
    that took a connection says so on a pipe (b"a", or b"!" when pylon changed under the helper),
    then b"+" once it answered, and the helper forks the next one (not while the answer is being
    made: a fork of this process costs the CPU that answer needs)."""
    import select
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # stopped: the spare with it, the socket removed
    quiet = 0.0
    helper = os.getpid()
    while True:
        said_r, said_w = os.pipe()
        spare = os.fork()
        if spare == 0:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.close(said_r)
            for fd in private:
                os.close(fd)  # the key's lock stays the helper's alone
            _spare(server, env, sources, said_w, runner, helper)  # never returns
        os.close(said_w)
        try:
            while True:
                ready, _, _ = select.select([said_r], [], [], min(idle, 5.0))
                _reap()
                if ready:
                    break
                quiet += min(idle, 5.0)
                if quiet >= idle or not _still_bound(path, bound):
                    _stop(spare)
                    return
            said = os.read(said_r, 1)
            if said == b"a":  # taken: the next spare once this one answered (or a second has passed)
                if select.select([said_r], [], [], 1.0)[0]:
                    os.read(said_r, 1)
                said = b"+"
        except BaseException:
            _stop(spare)
            raise
        finally:
            os.close(said_r)
        if said != b"+":
            _stop(spare)  # stale, or the spare died: no answer from this helper
            return
        quiet = 0.0


def _stop(pid: int) -> None:
    import signal

    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass


def _spare(server: socket.socket, env: bytes, sources: dict[str, int], said: int, runner: Runner, helper: int) -> None:
    """The waiting fork: take one connection, tell the helper, answer it, exit. It exits too when the
    helper is gone (killed without a word): it must not answer for a helper nobody watches."""
    import select

    try:
        server.setblocking(False)  # a connection another process took first is not waited for
        while True:
            ready, _, _ = select.select([server], [], [], 2.0)
            if os.getppid() != helper:
                os._exit(0)
            if not ready:
                continue
            try:
                conn, _ = server.accept()
            except BlockingIOError:
                continue
            if helper_ask.peer_uid(conn) == os.getuid():
                break
            conn.close()  # another user's process: not answered
        server.close()
        stale = _changed(sources)
        os.write(said, b"!" if stale else b"a")
        if stale:
            os._exit(0)  # closed without an answer: the hook answers in-process
    except BaseException:
        os._exit(1)
    code = _answer(conn, env, runner)
    try:
        os.write(said, b"+")  # answered: the next spare may be forked now, off the client's way
    except OSError:
        pass
    for work in helper_ask.LATER:  # what the event's handling committed to, answered or not
        try:
            work()
        except BaseException:
            pass
    os._exit(code)


def _lock(fd: int, name: str) -> int | None:
    import fcntl

    try:
        lock = os.open(f"{name}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=fd)
    except OSError:
        return None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(lock)
        return None
    os.ftruncate(lock, 0)
    os.write(lock, f"{os.getpid()}\n".encode())
    return lock


def _idle() -> float:
    try:
        return max(1.0, float(os.environ.get("PYLON_HOOK_HELPER_IDLE") or IDLE))
    except ValueError:
        return IDLE


def _preload() -> None:
    import importlib

    for module in PRELOAD:
        try:
            importlib.import_module(module)
        except Exception:  # a fork imports what is missing itself, as a hook process would
            pass
    try:
        from pylon.guard.shell import _parser

        _parser()  # the bash grammar, loaded once
    except Exception:
        pass
    from pylon.digest import sha1, sha256

    sha1(), sha256()  # the interpreter's own hash modules (their names differ between versions)


def _sources() -> dict[str, int]:
    """The files of the pylon modules this process imported, with their change times."""
    found = {}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and getattr(module, "__name__", "").startswith("pylon"):
            try:
                found[path] = os.stat(path).st_mtime_ns
            except OSError:
                pass
    return found


def _changed(sources: dict[str, int]) -> bool:
    """Has pylon changed under the helper (an upgrade, an edit)? Then it must not answer."""
    for path, mtime in sources.items():
        try:
            if os.stat(path).st_mtime_ns != mtime:
                return True
        except OSError:
            return True
    return False


def _still_bound(path: str, inode: int) -> bool:
    try:
        return os.stat(path).st_ino == inode
    except OSError:
        return False


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _answer(conn: socket.socket, env: bytes, runner: Runner) -> int:
    """In the fork: read the event, run it as `pylon hook` would, send the answer (0), or close
    without one (1: the hook process answers instead)."""
    try:
        conn.settimeout(helper_ask.ASK_WAIT)
        prog, argv, cwd, their_env, data = helper_ask.read_fields(conn, 5)
        if their_env != env:
            return 1
        os.chdir(cwd)
        out, err = _run(runner, prog.decode(), argv.decode("utf-8", "surrogateescape").split("\0"), data)
        conn.sendall(helper_ask.pack(_status(out[0]), out[1], err))
        conn.close()
        return 0
    except BaseException:  # no answer: the hook process answers instead
        return 1


def _status(code: int) -> bytes:
    return int(code).to_bytes(4, "little", signed=True)


def _run(runner: Runner, prog: str, argv: list[str], data: bytes) -> tuple[tuple[int, bytes], bytes]:
    """((exit status, stdout), stderr) of `prog argv` with `data` as stdin."""
    import io

    encoding, errors = sys.stdout.encoding, sys.stdout.errors
    out, err = io.BytesIO(), io.BytesIO()
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding=encoding)
    sys.stdout = io.TextIOWrapper(out, encoding=encoding, errors=errors)
    sys.stderr = io.TextIOWrapper(err, encoding=sys.stderr.encoding, errors="backslashreplace")
    helper_ask.IN_HELPER = True
    try:
        code = runner(prog, argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0
    sys.stdout.flush()
    sys.stderr.flush()
    return (code, out.getvalue()), err.getvalue()
