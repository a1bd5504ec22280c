"""Answer every request read before stdin closed, then stop.

The SDK ends its read loop at end of input and cancels the handlers still running ("their callers
are gone"). Over stdio the caller is not gone when only its input closed: a script that pipes
three requests into `pylon mcp` and reads stdout would get the first answers and lose the rest.
`drained(read, write)` wraps the transport's two streams: requests are counted in as they are
read and out as their response or error is written (or the client cancels them), and the end of
input is passed on to the SDK only once none is left.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any, Self

import anyio


class _Pending:
    def __init__(self) -> None:
        self.ids: set[object] = set()
        self.idle = anyio.Event()
        self.idle.set()

    def add(self, request_id: object) -> None:
        self.ids.add(request_id)
        if self.idle.is_set():
            self.idle = anyio.Event()

    def done(self, request_id: object) -> None:
        self.ids.discard(request_id)
        if not self.ids:
            self.idle.set()


def _kind(item: object) -> tuple[str, object]:
    """("request" | "answer" | "cancel" | "", id) of a SessionMessage, by its JSON-RPC shape."""
    message = getattr(item, "message", None)
    request_id = getattr(message, "id", None)
    method = getattr(message, "method", None)
    if method is not None and request_id is not None:
        return "request", request_id
    if method == "notifications/cancelled":
        params = getattr(message, "params", None) or {}
        return "cancel", params.get("requestId") if isinstance(params, dict) else None
    if method is None and request_id is not None:
        return "answer", request_id
    return "", None


class _Wrapped:
    """A stream wrapped: closing closes the inner one; usable as an async context manager."""

    def __init__(self, inner: Any, pending: _Pending) -> None:
        self._inner, self._pending = inner, pending

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> bool | None:
        await self.aclose()
        return None


class _Read(_Wrapped):
    """The read stream, holding back its end until every request read has been answered."""

    @property
    def last_context(self) -> Any:  # the SDK reads the sender's context from the stream it iterates
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        try:
            item = await self._inner.receive()
        except anyio.EndOfStream:
            await self._pending.idle.wait()
            raise
        kind, request_id = _kind(item)
        if kind == "request":
            self._pending.add(request_id)
        elif kind == "cancel":
            self._pending.done(request_id)
        return item

    def __aiter__(self) -> _Read:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None



class _Write(_Wrapped):
    """The write stream, counting each response or error out."""

    async def send(self, item: Any, /) -> None:
        await self._inner.send(item)
        kind, request_id = _kind(item)
        if kind == "answer":
            self._pending.done(request_id)



def drained(read: Any, write: Any) -> tuple[_Read, _Write]:
    pending = _Pending()
    return _Read(read, pending), _Write(write, pending)
