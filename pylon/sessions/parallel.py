"""A first read of a large history on every core: transcripts split by size among forked workers,
each reading its share through the cache (which it writes) and sending the states back as marshal.

Used only when there is much to read (WORTH bytes not yet in the cache), the platform forks, there
is more than one core, and the process runs no other thread (a fork copies only the calling
thread: a lock another thread held would stay held in the child, so the board, which serves from
threads, reads in its own process). A worker that fails leaves its share to the caller, which reads
it as it would have without workers.
"""

from __future__ import annotations

import marshal
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

WORTH = 16 * 1024 * 1024
MAX_WORKERS = 4


def usable() -> bool:
    threading = sys.modules.get("threading")
    return hasattr(os, "fork") and (os.cpu_count() or 1) > 1 and (threading is None or threading.active_count() == 1)


def shares(sizes: list[int], count: int) -> list[list[int]]:
    """Indexes of `sizes` in `count` groups of about equal total, the largest placed first."""
    groups: list[list[int]] = [[] for _ in range(count)]
    totals = [0] * count
    for index in sorted(range(len(sizes)), key=lambda i: -sizes[i]):
        least = totals.index(min(totals))
        groups[least].append(index)
        totals[least] += sizes[index]
    return [g for g in groups if g]


def read_all(jobs: list[Any], sizes: list[int], work: Callable[[Any], dict[str, Any]]) -> list[dict[str, Any] | None]:
    """`work(job)` for every job, in forked workers; None where a worker gave no answer."""
    count = min(MAX_WORKERS, os.cpu_count() or 1, len(jobs))
    out: list[dict[str, Any] | None] = [None] * len(jobs)
    children = []
    for share in shares(sizes, count):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: answer its share, then leave without running the parent's exit code
            code = 0
            try:
                os.close(read_end)
                data = marshal.dumps([(i, work(jobs[i])) for i in share])
                with os.fdopen(write_end, "wb") as pipe:
                    pipe.write(data)
            except BaseException:  # the parent reads this share itself
                code = 1
            finally:
                os._exit(code)
        os.close(write_end)
        children.append((pid, read_end))
    for pid, read_end in children:
        with os.fdopen(read_end, "rb") as pipe:
            data = pipe.read()
        os.waitpid(pid, 0)
        try:
            for index, state in marshal.loads(data):
                out[index] = state
        except (EOFError, ValueError, TypeError):
            continue
    return out
