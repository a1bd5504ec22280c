"""Work in a thread of its own while the caller goes on (its time is mostly a git process's, outside
the GIL). `_thread` rather than threading: a hook pays no import for it."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    T = TypeVar("T")


def beside(work: Callable[[], T]) -> Callable[[], T]:
    """Start `work()`; the function returned waits for it and returns its value (or raises what it
    raised)."""
    import _thread

    done = _thread.allocate_lock()
    done.acquire()
    out: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            out.append(work())
        except BaseException as exc:  # handed to the waiter
            failed.append(exc)
        finally:
            done.release()

    _thread.start_new_thread(run, ())

    def wait() -> T:
        done.acquire()
        done.release()  # a second wait returns at once
        if failed:
            raise failed[0]
        return out[0]

    return wait
