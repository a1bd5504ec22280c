"""`pylon mcp`: canon's actions and the numbered edits as MCP tools over stdio (pylon's own server).

MCP's stdio transport is newline-delimited JSON-RPC 2.0 (jsonrpc.py). A reader thread takes each
line as it comes: what is not a valid message is answered at once with its error, `ping` is
answered at once (also while a tool runs), a client's `notifications/cancelled` drops the request
it names (a cancelled request gets no answer), a response is matched to our `roots/list`; every
other request waits in order for the main thread, which runs tool calls there (the edit engine's
file lease sets a signal handler, which only the main thread may); past MAX_PENDING bytes waiting,
a request is answered at once as busy. At the end of stdin every request already read is
answered, then the server exits (0); SIGINT answers the call it interrupts, then exits (130).

tools/list answers with one tool per registry command marked `mcp=Tool(...)` (schemas from
tools.py); tools/call runs the command line through the CLI's own path (calls.run_line) with
`--json`, inside the boundary (pylon/boundary.py): only the client's roots when it sends them
(`roots/list`), else the checkout the server was started in, and their owned worktrees. The
answer is the JSON document as structured content plus the same text; a failure is `isError`.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Mapping

from pylon.mcp import jsonrpc
from pylon.mcp.caller import SANDBOX_META, Roots, call_folder, harness, owned_worktrees, session_id

TYPE_CHECKING = False  # typing costs the start-up an agent waits for (the `initialize` answer)
if TYPE_CHECKING:
    from typing import Any, BinaryIO

    from pylon.mcp.jsonrpc import Message

# Initialize-era revisions, newest first; another asked for is answered with the newest (the
# client decides). 2026-07-28 dropped `initialize` (server/discover): not served here.
VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
MAX_LINE = 64 * 1024 * 1024  # one message; a longer line is refused and skipped to its end
# Requests read ahead of the main thread, counted by their bytes (at least 1 KiB each: a parsed
# message costs more than its line). Past it a request is answered at once with BUSY, so a flood
# costs bounded memory and the reader keeps reading (a roots answer, a cancel, a ping get through).
MAX_PENDING = 64 * 1024 * 1024
BUSY = -32000  # JSON-RPC's range for a server's own errors
ROOTS_WAIT = 10.0  # seconds a tool call waits for the client's answer to roots/list
INSTRUCTIONS = (
    "pylon: project memory (canon) and numbered edits. Before changing a file, canon_read it (its "
    "article); after a real change, canon_write the article; canon_journal records events. read/edit: "
    "whole-line edits by the line numbers and tag read printed."
)


class Server:
    def __init__(self, who: str, source: BinaryIO, sink: int) -> None:
        self.who, self.source, self.sink = who, source, sink
        self.started_in = os.getcwd()
        self.queue: deque[tuple[Message, int] | None] = deque()  # (request, its weight) in order
        self.pending = 0  # the weight of the requests in the queue
        self.ready = threading.Condition()
        self.interrupted = False  # SIGINT came while a call ran: answer it, then end
        self.sending = False  # the main thread writes an answer: SIGINT waits for the line's end
        self.cancelled: set[object] = set()  # ids of requests waiting or running that the client cancelled
        self.running: object = None  # the id of the request the main thread answers now
        self.write_lock = threading.Lock()
        self.roots = Roots()
        self.ended = threading.Event()  # stdin is at its end (no roots answer can come any more)
        self.broken = False  # stdout is gone: nothing more can be said
        self.listed: list[dict[str, Any]] | None = None

    # -- output ---------------------------------------------------------------------------------
    def send(self, message: dict[str, Any]) -> None:
        data = memoryview(jsonrpc.dump(message))
        with self.write_lock:
            while data and not self.broken:
                try:
                    data = data[os.write(self.sink, data) :]
                except InterruptedError:
                    continue
                except OSError:
                    self.broken = True  # the client closed our stdout; finish quietly

    # -- the reader thread ----------------------------------------------------------------------
    def read(self) -> None:
        try:
            while not self.broken:
                line = self.source.readline(MAX_LINE + 1)
                if not line:
                    break
                if len(line) > MAX_LINE and not line.endswith(b"\n"):
                    while (rest := self.source.readline(1 << 20)) and not rest.endswith(b"\n"):
                        pass
                    self.send(
                        jsonrpc.error(
                            None, jsonrpc.INVALID_REQUEST, "Invalid Request", f"a message is at most {MAX_LINE} bytes"
                        )
                    )
                    continue
                if line.strip():  # a blank line carries no message
                    try:
                        self.take(line)
                    except Exception as exc:  # no line may end the reader
                        self.send(
                            jsonrpc.error(
                                None, jsonrpc.INTERNAL_ERROR, "Internal error", f"{type(exc).__name__}: {exc}"[:300]
                            )
                        )
        except (OSError, ValueError):
            pass  # stdin broke: as its end
        finally:
            self.ended.set()
            self.roots.answered.set()
            with self.ready:
                self.queue.append(None)
                self.ready.notify()

    def take(self, line: bytes) -> None:
        parsed = jsonrpc.parse(line)
        if isinstance(parsed, dict):
            self.send(parsed)
            return
        if parsed.kind == jsonrpc.RESPONSE:
            self.roots.take(parsed)  # any other response answers nothing we asked
            return
        if parsed.kind == jsonrpc.NOTIFICATION and parsed.method == "notifications/cancelled":
            named = parsed.params.get("requestId")
            with self.ready:  # only a request waiting or running: a late cancel is forgotten (spec: MAY ignore)
                if jsonrpc.valid_id(named) and (
                    named == self.running or any(e is not None and e[0].id == named for e in self.queue)
                ):
                    self.cancelled.add(named)
            return
        if parsed.kind == jsonrpc.REQUEST and parsed.method == "ping":
            self.send(jsonrpc.result(parsed.id, {}))
            return
        weight = max(len(line), 1024)
        with self.ready:
            if self.queue and self.pending + weight > MAX_PENDING:
                busy = parsed.kind == jsonrpc.REQUEST
            else:
                busy = False
                self.queue.append((parsed, weight))
                self.pending += weight
                self.ready.notify_all()
        if busy:  # a notification over the bound is dropped, as a lost one would be
            self.send(
                jsonrpc.error(
                    parsed.id,
                    BUSY,
                    "Server busy",
                    f"over {MAX_PENDING >> 20} MiB of requests wait for an answer: send it again "
                    "once some are answered",
                )
            )

    # -- the main thread ------------------------------------------------------------------------
    def serve(self) -> int:
        """Answer requests until stdin ends (0) or SIGINT (130: a call it interrupts is answered first)."""
        import signal

        def interrupt(number: int, frame: object) -> None:
            self.interrupted = True
            if not self.sending:  # never between two writes of one answer
                raise KeyboardInterrupt  # a running call stops (the CLI answers it `interrupted`)

        signal.signal(signal.SIGINT, interrupt)
        threading.Thread(target=self.read, name="pylon-mcp-stdin", daemon=True).start()
        while not self.interrupted:
            with self.ready:
                while not self.queue:
                    self.ready.wait()
                entry = self.queue.popleft()
                if entry is not None:
                    self.pending -= entry[1]
                    self.running = entry[0].id  # from here a cancel finds it (no window between queue and run)
            if entry is None or self.broken:
                return 0
            message = entry[0]
            if message.kind == jsonrpc.NOTIFICATION:
                self.notified(message)
                continue
            with self.ready:
                dropped = message.id in self.cancelled  # cancelled while it waited: never run
                self.cancelled.discard(message.id)
                self.running = None if dropped else message.id
            if dropped:
                continue
            try:
                answer = self.answer(message)
            except KeyboardInterrupt:
                answer = jsonrpc.error(
                    message.id, jsonrpc.INTERNAL_ERROR, "Internal error", "the server was interrupted (SIGINT) and ends"
                )
            except Exception as exc:  # a request is answered whatever fails
                answer = jsonrpc.error(
                    message.id, jsonrpc.INTERNAL_ERROR, "Internal error", f"{type(exc).__name__}: {exc}"[:500]
                )
            with self.ready:
                self.running = None
                dropped = message.id in self.cancelled
                self.cancelled.discard(message.id)
            if dropped:  # the client stopped waiting: no answer
                continue
            self.sending = True
            try:
                self.send(answer)
            finally:
                self.sending = False
        return 130

    def notified(self, message: Message) -> None:
        if (
            message.method == "notifications/initialized"
            and self.roots.supported
            or message.method == "notifications/roots/list_changed"
            and self.roots.supported
        ):
            self.roots.ask(self.send)

    def answer(self, message: Message) -> dict[str, Any]:
        method, params, request_id = message.method, message.params, message.id
        if method == "initialize":
            return self.initialize(request_id, params)
        if method == "ping":
            return jsonrpc.result(request_id, {})
        if method == "tools/list":
            return jsonrpc.result(request_id, {"tools": self.tools()})
        if method == "tools/call":
            name, arguments = params.get("name"), params.get("arguments")
            if not isinstance(name, str):
                return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, "Invalid params", '"name" must be a string')
            if arguments is not None and not isinstance(arguments, dict):
                return jsonrpc.error(
                    request_id, jsonrpc.INVALID_PARAMS, "Invalid params", '"arguments" must be an object'
                )
            raw = params.get("_meta")
            doc, is_error = self.call(name, arguments, raw if isinstance(raw, Mapping) else None)
            return jsonrpc.result(
                request_id,
                {
                    "content": [{"type": "text", "text": text_of(doc, is_error)}],
                    "structuredContent": doc,
                    "isError": is_error,
                },
            )
        return jsonrpc.error(request_id, jsonrpc.METHOD_NOT_FOUND, "Method not found", method)

    def initialize(self, request_id: object, params: dict[str, Any]) -> dict[str, Any]:
        from pylon import __version__

        asked = params.get("protocolVersion")
        if not isinstance(asked, str):
            return jsonrpc.error(
                request_id, jsonrpc.INVALID_PARAMS, "Invalid params", '"protocolVersion" must be a string'
            )
        capabilities = params.get("capabilities")
        self.roots.supported = isinstance(capabilities, dict) and isinstance(capabilities.get("roots"), dict)
        return jsonrpc.result(
            request_id,
            {
                "protocolVersion": asked if asked in VERSIONS else VERSIONS[0],
                "capabilities": {"experimental": {SANDBOX_META: {}}, "tools": {"listChanged": False}},
                "serverInfo": {"name": "pylon", "version": __version__},
                "instructions": INSTRUCTIONS,
            },
        )

    def tools(self) -> list[dict[str, Any]]:
        if self.listed is None:
            from pylon.mcp import tools

            self.listed = [
                {"name": tools.tool_name(c), "description": tools.description(c), "inputSchema": tools.input_schema(c)}
                for c in tools.tool_commands()
            ]
        return self.listed

    def call(
        self, name: str, arguments: Mapping[str, Any] | None, meta: Mapping[str, Any] | None
    ) -> tuple[dict[str, Any], bool]:
        from pylon.mcp.calls import call

        if self.roots.supported and not self.ended.is_set() and not self.roots.answered.wait(ROOTS_WAIT):
            self.roots.answered.set()  # no answer yet: the checkout, and no more waiting (a late one still counts)
        if not os.path.isdir(self.started_in):  # removed under the server: each call would fail in getcwd()
            return {
                "ok": False,
                "error": {
                    "code": "not-found",
                    "message": f"The folder pylon mcp was started in ({self.started_in}) no longer exists.",
                    "hint": "Restart the MCP server from the project.",
                },
            }, True
        return call(name, arguments, self.who, session_id(meta), call_folder(meta), self.reach())

    def reach(self) -> Any:
        """What this call may reach: the client's roots, else the checkout the server started in;
        and the owned worktrees of either (asked of git only when a path lies outside them)."""
        from pylon.boundary import Reach
        from pylon.findroot import find_root

        folders = self.roots.folders or [find_root(self.started_in)[0] or self.started_in]
        return Reach("pylon mcp", folders, more=lambda: owned_worktrees(folders))


def text_of(doc: dict[str, Any], is_error: bool) -> str:
    import json

    if is_error and isinstance(doc.get("error"), dict):
        error = doc["error"]
        hint = f"\nhint: {error['hint']}" if error.get("hint") else ""
        return f"error[{error.get('code')}]: {error.get('message')}{hint}"
    return json.dumps(doc, ensure_ascii=False)


def serve(given_harness: str | None) -> int:
    """Serve until the client closes stdin and every request read before that is answered (0), or
    SIGINT (130).

    The protocol keeps private copies of fd 0 and 1; fd 0 then reads the null device and fd 1
    writes to stderr, so nothing a tool call or a child process (git) prints reaches the client."""
    source = os.fdopen(os.dup(0), "rb")
    sink = os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    try:
        return Server(harness(given_harness), source, sink).serve()
    finally:
        os.close(sink)
