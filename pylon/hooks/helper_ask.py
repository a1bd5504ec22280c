"""The hook process's side of the resident helper (helper.py): hand one hook event to it, or say
that it could not (None), and the hook answers in its own process as before.

Runs first in every `pylon hook AGENT` process, so it imports nothing but `_socket` and `binascii`
(json, socket and pylon's own modules cost milliseconds). A helper is used only when all of this
holds; otherwise (None) the event is answered in-process, and a helper is started for the next one
when none answered:

- Linux (the socket is reached through /proc/self/fd), and `PYLON_HOOK_HELPER` is not `0`;
- its folder `<state>/helpers/` is this user's and closed to everyone else (0700, no symlink);
- the process at the other end of the socket is this user's (SO_PEERCRED);
- it runs the same interpreter, the same pylon and the same environment (the key names them all;
  the helper compares the environment byte for byte);
- it answers in full: a helper that dies or refuses before its answer is complete leaves the event
  to this process, which has the event's bytes still.

Wire format, both ways: fields as 8-byte little-endian lengths and bytes. Request: prog, argv
(NUL-separated), cwd, environment (NUL-separated, sorted), the event. Answer: exit status, stdout,
stderr.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import _socket
    import socket
    from collections.abc import Callable

    Sock = _socket.socket | socket.socket

IN_HELPER = False  # set in the helper's own forks: they answer, never ask
LATER: list[Callable[[], object]] = []  # a fork's work for once its answer is sent (after_answer)
MAX_EVENT_BYTES = 16 << 20  # = pylon.agents.events.MAX_EVENT_BYTES (tests/hooks/test_helper.py checks)
ASK_WAIT = 25.0  # seconds; the clients give a hook 30 (install.py)
FOLDER = "helpers"


def enabled() -> bool:
    return not IN_HELPER and sys.platform.startswith("linux") and os.environ.get("PYLON_HOOK_HELPER", "1") != "0"


def after_answer(work: Callable[[], object]) -> bool:
    """In a helper's fork: run `work` once the answer is sent and the helper told, off the client's
    time (True). Elsewhere False, and the caller runs it itself: a hook process is waited for until
    it exits, so there is no later there."""
    if not IN_HELPER:
        return False
    LATER.append(work)
    return True


def env_blob() -> bytes:
    return b"\0".join(sorted(k + b"=" + v for k, v in os.environb.items()))


def package_parent() -> str:
    """The folder holding the `pylon` package this process runs."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def key(env: bytes) -> str:
    """Which helper serves this process: same user, interpreter, pylon and environment (64 bits of
    CRC; the helper compares the environment itself, so a collision only costs an in-process answer)."""
    import binascii

    data = b"\0\0".join([str(os.getuid()).encode(), os.fsencode(sys.executable), os.fsencode(package_parent()), env])
    return f"{binascii.crc32(data):08x}{binascii.crc32(data[::-1]):08x}"


def state_home() -> str:
    """= pylon.state.state_home (its module imports pylon.errors; tests/hooks/test_helper.py checks)."""
    explicit = os.environ.get("PYLON_STATE_DIR")
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    xdg = os.environ.get("XDG_STATE_HOME")
    base = os.path.expanduser(xdg) if xdg else os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.abspath(os.path.join(base, "pylon"))


def open_folder(create: bool) -> int | None:
    """A descriptor of `<state>/helpers/` when it is this user's folder and nobody else's (0700),
    else None. Made (0700) when `create`."""
    path = os.path.join(state_home(), FOLDER)
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        if not create:
            return None
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
            fd = os.open(path, flags)
        except OSError:
            return None
    except OSError:
        return None
    st = os.fstat(fd)
    if st.st_uid != os.getuid() or st.st_mode & 0o077:
        os.close(fd)
        return None
    return fd


def pack(*fields: bytes) -> bytes:
    return b"".join(len(f).to_bytes(8, "little") + f for f in fields)


def read_fields(sock: Sock, count: int) -> list[bytes]:
    """`count` fields from a socket (EOFError when it closes first)."""
    out = []
    for _ in range(count):
        size = int.from_bytes(_exact(sock, 8), "little")
        out.append(_exact(sock, size))
    return out


def _exact(sock: Sock, size: int) -> bytes:
    chunks = []
    while size:
        data = sock.recv(min(size, 1 << 20))
        if not data:
            raise EOFError("the helper closed the connection")
        chunks.append(data)
        size -= len(data)
    return b"".join(chunks)


def peer_uid(sock: Sock) -> int:
    import _socket

    cred = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
    return int.from_bytes(cred[4:8], sys.byteorder)  # struct ucred: pid, uid, gid


def ask(prog: str, argv: list[str], data: bytes, boot: str) -> tuple[int, bytes, bytes] | None:
    """(exit status, stdout, stderr) of the command line as the helper ran it, or None. `boot`:
    "module:function" that runs the helper (helper.main with the hook's entry), started when none runs."""
    if not enabled():
        return None
    env = env_blob()
    name = key(env)
    fd = open_folder(create=True)
    if fd is None:
        return None
    try:
        import _socket

        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            sock.settimeout(ASK_WAIT)
            try:
                sock.connect(f"/proc/self/fd/{fd}/{name}.sock")
            except OSError:
                start(fd, name, boot)
                return None
            if peer_uid(sock) != os.getuid():
                return None
            sock.sendall(
                pack(
                    prog.encode(),
                    "\0".join(argv).encode("utf-8", "surrogateescape"),
                    os.fsencode(os.getcwd()),
                    env,
                    data,
                )
            )
            code, out, err = read_fields(sock, 3)
        finally:
            sock.close()
    except (OSError, EOFError, ValueError):
        return None  # refused, died, or stale: answered here
    finally:
        os.close(fd)
    if len(code) != 4:
        return None
    return int.from_bytes(code, "little", signed=True), out, err


def start(fd: int, name: str, boot: str) -> None:
    """Start the helper for this key (in its own session, without the client's pipes); this event is
    answered in-process meanwhile. Never raises."""
    try:
        null = os.open(os.devnull, os.O_RDWR)
        module, _, function = boot.partition(":")
        code = f"import sys; sys.path.insert(0, {package_parent()!r}); from {module} import {function}; {function}()"
        try:
            os.posix_spawn(
                sys.executable,
                [sys.executable, "-c", code, name],
                os.environ,
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, null, 0),
                    (os.POSIX_SPAWN_DUP2, null, 1),
                    (os.POSIX_SPAWN_DUP2, null, 2),
                ],
                setsid=True,
            )
        finally:
            os.close(null)
    except OSError:
        pass
