"""The HTTP side of `pylon serve`: the standard library's ThreadingHTTPServer on 127.0.0.1, every
request through the Gate (security.py) first, the page, the JSON answers (data.py), the actions
(actions.py) and the event stream (events.py)."""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from pylon.errors import PylonError
from pylon.serve.data import ENDPOINTS, Board
from pylon.serve.events import Broker
from pylon.serve.security import CSRF_HEADER, TOKEN_HEADER, Gate, Refusal

KEEPALIVE = 15.0  # seconds between comment lines on an idle event stream
MAX_BODY = 64 * 1024


class BoardServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False  # never share a port with another listener

    def __init__(self, port: int, board: Board) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.board = board
        self.gate = Gate(self.server_address[1])
        self.broker = Broker()
        self.stopping = threading.Event()


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

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass  # requests are not logged: the terminal shows the URL and errors only

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
        self.end_headers()

    def _json(self, status: int, doc: object) -> None:
        from pylon.workspace.jsonbytes import safe

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
        parts = urlsplit(self.path)
        query = dict(parse_qsl(parts.query))
        token = self.headers.get(TOKEN_HEADER) or query.pop("token", None)
        refusal = self.server.gate.check(self.headers.get("Host"), self.headers.get("Origin"), token)
        if refusal is not None:
            self._refuse(refusal)
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
            policy = (f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; "
                      "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; "
                      "frame-ancestors 'none'")
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
            self._error(403, "actions-off", "This board is read-only: it was started without --allow-actions.",
                        "Run the command shown on the page in a terminal, or restart with `pylon serve --allow-actions`.")
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(min(length, MAX_BODY)) or b"{}") if 0 <= length <= MAX_BODY else None
        except ValueError:
            body = None
        if not isinstance(body, dict):
            self._error(400, "bad-action", f"An action is one JSON object of at most {MAX_BODY} bytes.")
            return
        from pylon.serve.actions import run

        try:
            result = run(self.server.board, body)
        except PylonError as exc:
            self._json(409, {"ok": False, "error": {"code": exc.code, "message": exc.message, "hint": exc.hint,
                                                    **exc.details}})
            return
        self._json(200, {"ok": True, "action": body.get("action"), "result": result})

    def _method_not_allowed(self) -> None:
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
        raise PylonError("port-taken", f"Cannot listen on 127.0.0.1:{port} ({os.strerror(exc.errno or 0)}).",
                         "Pick another port with --port N, or leave --port out to let the system choose one.") from None
