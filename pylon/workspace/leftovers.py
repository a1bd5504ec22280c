"""Temp files and locks a killed pylon leaves in its folders under the git dir, removed by the next
command that can prove their owner dead (every op, under the op lock, and `ws status`).

A temp file's name carries its owner: temp_name() spells it `<stem>.tmp-<pid>.<start>[-<rand>]`,
where `<start>` is the process's start time (clock ticks since boot, field 22 of
/proc/<pid>/stat); git may add `.lock` beside a private index. The owner is dead when no process
has that pid, or the one that has it started at another time (the pid was reused). Names that
carry a pid alone (`atomic_write`'s `.X.pylon-tmp-<pid>-<hex>`, `X.<pid>-<hex>.tmp`, a watcher's
`.sync-<pid>-<n>`, and the names pylon used before: `restore-index-<pid>`, `index-<pid>-<hex>`)
count as dead when the process with that pid started after the file was last written.

The persistent private index's `index.lock` (git's lock while a capture stages into it) goes
when no capture holds `capture.lock` and it is older than git's lock wait. What cannot be
removed, or whose owner cannot be told, is reported by `ws status` with the command that removes it.
"""

from __future__ import annotations

import os
import time

from pylon.workspace.repo import Checkout

_TAG: list[tuple[int, str]] = []
UNKNOWN_AFTER = 3600.0  # a temp name without a pid (pylon before 0.x's tree-index.XXXX) is reported after an hour


def _start_ticks(pid: int) -> int | None:
    """The start time of process `pid` in clock ticks since boot (None when there is no such process)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        return int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def tag() -> str:
    """`<pid>.<start>` of this process (cached per pid: a fork gets its own)."""
    pid = os.getpid()
    if not _TAG or _TAG[0][0] != pid:
        _TAG[:] = [(pid, f"{pid}.{_start_ticks(pid) or 0}")]
    return _TAG[0][1]


def temp_name(stem: str, rand: bool = False) -> str:
    """A temp file name that says who owns it: `<stem>.tmp-<pid>.<start>[-<hex>]`."""
    return f"{stem}.tmp-{tag()}" + (f"-{os.urandom(3).hex()}" if rand else "")


def _boot_time() -> float:
    try:
        with open("/proc/stat", "rb") as fh:
            for line in fh:
                if line.startswith(b"btime "):
                    return float(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0.0


def _pid_of(text: str) -> int | None:
    return int(text) if text.isdigit() and 0 < int(text) < 1 << 22 else None


def owner(name: str) -> tuple[int, int | None] | None:
    """(pid, start ticks or None) of a temp file pylon names, None for every other name (a registry
    record `<id>.json` never counts, whatever its id looks like)."""
    base = name[: -len(".lock")] if name.endswith(".lock") else name
    if base.endswith(".json"):
        return None
    if ".tmp-" in base:
        token = base.rsplit(".tmp-", 1)[1].split("-", 1)[0]
        pid_text, _, start_text = token.partition(".")
        pid = _pid_of(pid_text)
        return (pid, int(start_text)) if pid and start_text.isdigit() else None
    if ".pylon-tmp-" in base:
        return _pid_first(base.rsplit(".pylon-tmp-", 1)[1], hex_tail=True)
    if base.startswith("restore-index-"):
        pid = _pid_of(base[len("restore-index-") :])
        return (pid, None) if pid else None
    for prefix in ("index-", ".sync-"):
        if base.startswith(prefix):
            return _pid_first(base[len(prefix) :], hex_tail=prefix == "index-")
    if base.endswith(".tmp"):
        stem = base[: -len(".tmp")]
        return _pid_first(stem.rsplit(".", 1)[1], hex_tail=True) if "." in stem else None
    return None


def _pid_first(text: str, *, hex_tail: bool) -> tuple[int, None] | None:
    """`<pid>` or `<pid>-<tail>` (hex digits, or any digits for a sync cookie)."""
    head, _, tail = text.partition("-")
    pid = _pid_of(head)
    if (
        pid is None
        or (tail and not all(c in "0123456789abcdef" for c in tail))
        or (not hex_tail and not tail.isdigit())
    ):
        return None
    return (pid, None)


def alive(pid: int, start: int | None, written: float) -> bool:
    """Is the process that made a file (written at `written`, epoch seconds) still running?"""
    if pid == os.getpid():
        return True
    now = _start_ticks(pid)
    if now is None:
        if os.path.isdir("/proc/self"):
            return False
        try:  # no /proc: a process with that pid is taken to be the owner
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except OSError:
            return True
        return True
    if start is not None:
        return now == start
    started = _boot_time() + now / (os.sysconf("SC_CLK_TCK") or 100)
    return started <= written + 2.0


def folders(checkout: Checkout) -> list[str]:
    """pylon's folders of the repository: this checkout's, the common one, every linked worktree's."""
    found = [
        os.path.join(checkout.git_dir, "pylon"),
        os.path.join(checkout.common_dir, "pylon"),
        os.path.join(checkout.common_dir, "pylon", "owned"),
    ]
    try:
        names = os.listdir(os.path.join(checkout.common_dir, "worktrees"))
    except OSError:
        names = []
    found += [os.path.join(checkout.common_dir, "worktrees", n, "pylon") for n in names]
    unique: list[str] = []
    for folder in found:
        if folder not in unique and os.path.isdir(folder):
            unique.append(folder)
    return unique


def _index_lock_free(folder: str) -> bool:
    """Does no capture hold `capture.lock` of `folder` (taken and let go at once)?"""
    import fcntl

    try:
        fd = os.open(os.path.join(folder, "capture.lock"), os.O_RDWR)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def sweep(checkout: Checkout) -> dict[str, object]:
    """Remove every leftover whose owner is proven dead; {removed: [paths], kept: [{path, why, fix}]}."""
    from pylon.workspace.git import LOCK_WAIT

    removed: list[str] = []
    kept: list[dict[str, str]] = []
    now = time.time()
    for folder in folders(checkout):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            full = os.path.join(folder, name)
            found = owner(name)
            try:
                st = os.lstat(full)
            except OSError:
                continue
            if found is None:
                if name == "index.lock" and now - st.st_mtime > LOCK_WAIT:
                    if not _index_lock_free(folder):
                        continue  # a capture is running: its git holds it
                elif name.startswith("tree-index.") and now - st.st_mtime > UNKNOWN_AFTER:
                    kept.append(
                        {
                            "path": full,
                            "why": "a temp file whose owner is unknown (no pid in its name)",
                            "fix": f"rm {_q(full)}",
                        }
                    )
                    continue
                else:
                    continue
            elif alive(found[0], found[1], st.st_mtime):
                continue
            try:
                os.unlink(full)
                removed.append(full)
            except FileNotFoundError:
                pass
            except OSError as exc:
                kept.append(
                    {
                        "path": full,
                        "why": f"its owner is gone but it cannot be removed: {exc.strerror or exc}",
                        "fix": f"rm -r {_q(full)}",
                    }
                )
    return {"removed": removed, "kept": kept}


def _q(path: str) -> str:
    import shlex

    return shlex.quote(path)
