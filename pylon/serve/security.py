"""Who may talk to the board: the checks every request passes before anything else runs.

The server listens on 127.0.0.1 only. A page of another site can still reach it through the
browser (DNS rebinding, cross-origin requests), so each request must carry the random token of the
printed URL, name this server in its Host header, and, when the browser says where it comes from,
come from this very origin. A state-changing POST must also carry the per-page CSRF token the board
hands out with each page it serves.
"""

from __future__ import annotations

import hmac
import secrets
import threading
from dataclasses import dataclass, field

TOKEN_HEADER = "X-Pylon-Token"
CSRF_HEADER = "X-Pylon-Csrf"
PAGE_TOKENS_KEPT = 64  # the CSRF tokens of the newest pages served; older tabs must reload


@dataclass
class Refusal:
    status: int
    code: str
    message: str


@dataclass
class Gate:
    port: int
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    _pages: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def hosts(self) -> tuple[str, str]:
        return (f"127.0.0.1:{self.port}", f"localhost:{self.port}")

    @property
    def origins(self) -> tuple[str, ...]:
        return tuple(f"http://{host}" for host in self.hosts)

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}?token={self.token}"

    def check(self, host: str | None, origin: str | None, token: str | None) -> Refusal | None:
        """None when the request may proceed, else why not (403: the board answers nobody else)."""
        if host not in self.hosts:
            return Refusal(403, "bad-host", f"This board answers only to Host {self.hosts[0]} or {self.hosts[1]} "
                           f"(got {host or 'none'}): a foreign Host header is how DNS rebinding reaches a local server.")
        if origin is not None and origin not in self.origins:
            return Refusal(403, "bad-origin", f"Requests from {origin} are refused: the board serves its own page only.")
        if token is None or not hmac.compare_digest(token.encode(), self.token.encode()):
            return Refusal(403, "bad-token", "This board needs the token of the URL `pylon serve` printed "
                           "(…/?token=…); open that URL.")
        return None

    def new_page(self) -> str:
        """A CSRF token for one page served; the newest PAGE_TOKENS_KEPT stay valid."""
        page = secrets.token_urlsafe(24)
        with self._lock:
            self._pages.append(page)
            del self._pages[:-PAGE_TOKENS_KEPT]
        return page

    def check_csrf(self, page: str | None, content_type: str | None) -> Refusal | None:
        if (content_type or "").split(";")[0].strip() != "application/json":
            return Refusal(415, "bad-content-type", "Actions take a JSON body (Content-Type: application/json).")
        with self._lock:
            known = any(page is not None and hmac.compare_digest(page.encode(), p.encode()) for p in self._pages)
        if not known:
            return Refusal(403, "bad-csrf", "This action needs the page's own token: reload the board and try again.")
        return None
