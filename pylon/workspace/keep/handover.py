"""The handover between a command's delayed capture and the next hook (pylon/hooks/keep.py).

After a shell command ends, a child holding the checkout's keep lock waits a moment before its
capture. Whoever comes next for the chain (the client's next hook, a pylon command) writes a byte to
the FIFO `handover` beside the chain file; the waiting child then exits without a capture, and the
newcomer's own capture serves as the state after the command. No reader (nobody waits): the open
fails at once and nothing happens. The FIFO is in the keep's folder, which is this user's.
"""

from __future__ import annotations

import os

NAME = "handover"


def open_reader(folder: str) -> int | None:
    """The FIFO, open for reading (O_RDWR: a reader that never sees an end of file), or None."""
    import stat

    path = os.path.join(folder, NAME)
    try:
        os.mkfifo(path, 0o600)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        fd = os.open(path, os.O_RDWR | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    if not stat.S_ISFIFO(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


def taken_over(fd: int, wait: float) -> bool:
    """Did a newcomer ask for the capture within `wait` seconds?"""
    import select

    return bool(select.select([fd], [], [], wait)[0])


def hand_over(folder: str) -> None:
    """Ask a capture waiting in `folder` (a checkout's keep folder) to leave it to this process."""
    try:
        fd = os.open(os.path.join(folder, NAME), os.O_WRONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:  # ENXIO: nobody waits; ENOENT: never made
        return
    try:
        os.write(fd, b"\n")
    except OSError:
        pass
    finally:
        os.close(fd)
