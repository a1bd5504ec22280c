"""The HTTP side of `pylon serve`: the standard library's ThreadingHTTPServer on 127.0.0.1, every
request through the Gate (security.py) first, the page, the JSON answers (data.py), the actions
(actions.py) and the event stream (events.py)."""

from __future__ import annotations

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from pylon.errors import PylonError
from pylon.serve.data import ENDPOINTS, Board
from pylon.serve.events import Broker
from pylon.serve.security import CSRF_HEADER, TOKEN_HEADER, Gate, Refusal

KEEPALIVE = 15.0  # seconds between comment lines on an idle event stream
MAX_BODY = 64 * 1024
IDLE = 60.0  # seconds a connection may wait for its next request, or a stalled reader block an answer
# A body left unread is drained this far (for at most LINGER s) after the answer before the socket
# closes: closing on unread bytes sends a reset that can destroy the answer before the client reads it.
LINGER_BYTES, LINGER = 8 * 1024 * 1024, 1.0
# listen()'s backlog: socketserver's default of 5 makes the kernel drop the SYNs of a burst (a page
# load, a script's parallel calls) and the client retries only after 1 s, 3 s, 7 s...; the kernel
# caps it at net.core.somaxconn.
BACKLOG = 1024


def gone(where: str, exc: BaseException) -> None:
    """One line on stderr for a client that went away before its answer was complete: a closed tab
    or a script that stopped reading is no fault of the board's, so no traceback."""
    try:
        sys.stderr.write(f"pylon serve: {where}: the client went away mid-answer ({type(exc).__name__})\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


class BoardServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False  # never share a port with another listener
    request_queue_size = BACKLOG

    def __init__(self, port: int, board: Board) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.board = board
        self.gate = Gate(self.server_address[1])
        self.broker = Broker()
        self.stopping = threading.Event()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Past the handler's own catch (set-up, finish): a departed client is still one line."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            gone(f"{client_address[0]}:{client_address[1]}", exc)
            return
        super().handle_error(request, client_address)


def page(nonce: str, csrf: str) -> bytes:
    """The board's one page: index.html with its script and style inlined (one request, one token)."""
    folder = resources.files("pylon.serve") / "static"
    html = (folder / "index.html").read_text(encoding="utf-8")
    html = html.replace("{{style}}", (folder / "app.css").read_text(encoding="utf-8"))
    html = html.replace("{{script}}", (folder / "app.js").read_text(encoding="utf-8"))
    return html.replace("{{nonce}}", nonce).replace("{{csrf}}", csrf).encode("utf-8")


class Handler(BaseHTTPRequestHandler):
    server: BoardServer
    protocol_version = "HTTP/1.1"
    server_version = "pylon-serve"
    sys_version = ""
    timeout = IDLE
    _body: bytes | None = b""
    _linger = False  # a body was left unread: drain it after the answer, then close

    def log_message(self, format: str, *args: Any) -> None:  # the base class's name
        pass  # requests are not logged: the terminal shows the URL and errors only

    def handle(self) -> None:
        try:
            super().handle()
            if self._linger:
                self._drain()
        except (ConnectionError, TimeoutError) as exc:  # BrokenPipe, ConnectionReset, a stalled reader
            self.close_connection = True
            gone(getattr(self, "requestline", "") or "a request", exc)

    def _drain(self) -> None:
        """After answering a request whose body was not read: stop sending, read what the client
        still sends (bounded), so the close that follows does not reset the answer away."""
        import socket
        import time

        self.wfile.flush()
        try:
            self.connection.shutdown(socket.SHUT_WR)
            self.connection.settimeout(LINGER)
            left, until = LINGER_BYTES, time.monotonic() + LINGER
            while left > 0 and time.monotonic() < until:
                chunk = self.connection.recv(min(65536, left))
                if not chunk:
                    return
                left -= len(chunk)
        except OSError:
            pass  # the answer is out; whatever the client does with the rest is its own

    def _take_body(self) -> bytes | None:
        """The request's body, read now (at most MAX_BODY) whatever the answer will be, so that none
        of it stays on a kept-alive connection to be parsed as the next request. None when it cannot
        be read within the bound (too long, chunked, a length that is no number): the connection then
        closes after the answer."""
        lengths = self.headers.get_all("Content-Length") or []
        raw = lengths[0].strip() if len(lengths) == 1 else ""
        if (
            self.headers.get("Transfer-Encoding") is not None
            or len(lengths) > 1
            or (lengths and not (raw.isascii() and raw.isdigit()))
        ):
            self.close_connection = self._linger = True
            return None
        length = int(raw) if lengths else 0
        if length > MAX_BODY:
            self.close_connection = self._linger = True
            return None
        data = self.rfile.read(length) if length else b""
        if len(data) < length:
            self.close_connection = True  # the client stopped sending
        return data

    # -- responses -----------------------------------------------------------------------------
    def _headers(self, status: int, content_type: str, length: int | None, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length is not None:
            self.send_header("Content-Length", str(length))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("X-Frame-Options", "DENY")
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()

    def _json(self, status: int, doc: object) -> None:
        from pylon.jsonbytes import safe

        body = json.dumps(safe(doc), ensure_ascii=False).encode("utf-8")
        self._headers(status, "application/json; charset=utf-8", len(body))
        if self.command != "HEAD":
            self.wfile.write(body)

    def _error(self, status: int, code: str, message: str, hint: str | None = None) -> None:
        self._json(status, {"ok": False, "error": {"code": code, "message": message, "hint": hint}})

    def _refuse(self, refusal: Refusal) -> None:
        self.close_connection = True
        self._error(refusal.status, refusal.code, refusal.message)

    # -- routing -------------------------------------------------------------------------------
    def _admitted(self) -> tuple[str, dict[str, str]] | None:
        """(path, query) of a request that passed the Gate; None when it was answered already (a
        refusal, or a login link answered with its cookie and a redirect to the bare address)."""
        self._body = self._take_body()
        parts = urlsplit(self.path)
        pairs = parse_qsl(parts.query)
        query = dict(pairs)
        gate = self.server.gate
        refusal = gate.check(self.headers.get("Host"), self.headers.get("Origin"), self.headers.get("Sec-Fetch-Site"))
        if refusal is not None:
            self._refuse(refusal)
            return None
        known = gate.authenticated(self.headers.get(TOKEN_HEADER), self.headers.get("Cookie"))
        token = query.pop("token", None)
        if token is not None and self.command == "GET":
            session = gate.login(token)
            if session is None and not known:
                self._refuse(
                    Refusal(
                        403,
                        "bad-token",
                        "This link was used already, or is not this board's: each link "
                        "`pylon serve` prints opens the board once. Run `pylon serve` in this checkout "
                        "again: it prints a new link to the board that runs.",
                    )
                )
                return None
            # the token leaves the address bar: the same path without it ("//host" would leave the board)
            rest = urlencode([(k, v) for k, v in pairs if k != "token"])
            location = "/" + parts.path.lstrip("/\\") + ("?" + rest if rest else "")
            self._headers(
                303,
                "text/plain; charset=utf-8",
                0,
                {"Location": location, **({"Set-Cookie": gate.set_cookie(session)} if session else {})},
            )
            return None
        if not known:
            self._refuse(
                Refusal(
                    403,
                    "bad-token",
                    "This board needs the link `pylon serve` printed (…/?token=…): open "
                    "it (each link opens the board once; run `pylon serve` again for a new one).",
                )
            )
            return None
        return parts.path, query

    def do_GET(self) -> None:
        admitted = self._admitted()
        if admitted is None:
            return
        path, query = admitted
        if path == "/":
            import secrets

            nonce = secrets.token_urlsafe(16)
            body = page(nonce, self.server.gate.new_page())
            policy = (
                f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; "
                "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; "
                "frame-ancestors 'none'"
            )
            self._headers(200, "text/html; charset=utf-8", len(body), {"Content-Security-Policy": policy})
            self.wfile.write(body)
            return
        if path == "/api/events":
            self._events()
            return
        name = path.removeprefix("/api/")
        endpoint = ENDPOINTS.get(name) if path.startswith("/api/") else None
        if endpoint is None:
            self._error(404, "not-found", f"No such page or answer: {path}.")
            return
        try:
            doc = endpoint(self.server.board, query)
        except PylonError as exc:
            self._error(409 if exc.exit_code == 1 else 400, exc.code, exc.message, exc.hint)
            return
        self._json(200, {"ok": True, **doc})

    def do_POST(self) -> None:
        admitted = self._admitted()
        if admitted is None:
            return
        path, _ = admitted
        if path != "/api/action":
            self._error(404, "not-found", f"No such action endpoint: {path}.")
            return
        refusal = self.server.gate.check_csrf(self.headers.get(CSRF_HEADER), self.headers.get("Content-Type"))
        if refusal is not None:
            self._refuse(refusal)
            return
        if not self.server.board.allow_actions:
            self._error(
                403,
                "actions-off",
                "This board is read-only: it was started without --allow-actions.",
                "Run the command shown on the page in a terminal, or restart with `pylon serve --allow-actions`.",
            )
            return
        try:
            body = json.loads(self._body or b"{}") if self._body is not None else None
        except ValueError:
            body = None
        if not isinstance(body, dict):
            self._error(
                413 if self._body is None else 400,
                "bad-action",
                f"An action is one JSON object of at most {MAX_BODY} bytes, sent with a Content-Length.",
            )
            return
        from pylon.serve.actions import run

        try:
            result = run(self.server.board, body)
        except PylonError as exc:
            self._json(
                409, {"ok": False, "error": {"code": exc.code, "message": exc.message, "hint": exc.hint, **exc.details}}
            )
            return
        self._json(200, {"ok": True, "action": body.get("action"), "result": result})

    def _method_not_allowed(self) -> None:
        self._body = self._take_body()
        self._error(405, "bad-method", f"{self.command} is not served here.")

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _method_not_allowed

    def _events(self) -> None:
        """Server-sent events: one `change` per settled batch, a comment line every KEEPALIVE s."""
        import queue

        self.close_connection = True
        self._headers(200, "text/event-stream; charset=utf-8", None, {"Connection": "close"})
        stream = self.server.broker.subscribe()
        try:
            self.wfile.write(b"retry: 2000\n: connected\n\n")
            self.wfile.flush()
            while not self.server.stopping.is_set():
                try:
                    event = stream.get(timeout=KEEPALIVE)
                except queue.Empty:
                    self.wfile.write(b": keepalive\n\n")
                    self.wfile.flush()
                    continue
                if event is None:
                    break
                self.wfile.write(b"event: change\ndata: " + json.dumps(event).encode() + b"\n\n")
                self.wfile.flush()
        except OSError:
            pass  # the page went away
        finally:
            self.server.broker.unsubscribe(stream)


def bind(port: int, board: Board) -> BoardServer:
    try:
        return BoardServer(port, board)
    except OSError as exc:
        raise PylonError(
            "port-taken",
            f"Cannot listen on 127.0.0.1:{port} ({os.strerror(exc.errno or 0)}).",
            "Pick another port with --port N, or leave --port out to let the system choose one.",
        ) from None
