"""Who may talk to the board: the checks every request passes before anything else runs.

The server listens on 127.0.0.1 only. A page of another site can still reach it through the
browser (DNS rebinding, cross-origin requests), so each request must name this server in its Host
header, come from this very origin when the browser says where it comes from, and prove it is the
person's: by the board's key in the `X-Pylon-Token` header (scripts), or by the session cookie a
browser got for a login link. A state-changing POST must also carry the per-page CSRF token the
board hands out with each page it serves.

Login links keep the key out of every URL. A link carries a one-time token, `<nonce>.<mac>` with
the mac an HMAC of the nonce under the key, so any process that can read the board's record (mode
0600) mints one without talking to the board; the first GET with it is answered with a session
cookie (HttpOnly, SameSite=Strict, Path=/) and a redirect to the bare address, and the nonce is
spent. What a browser keeps of the link (history, sessions) is then worth nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

TOKEN_HEADER = "X-Pylon-Token"
CSRF_HEADER = "X-Pylon-Csrf"
PAGE_TOKENS_KEPT = 64  # the CSRF tokens of the newest pages served; older tabs must reload
SESSIONS_KEPT = 64  # browser sessions (logins); the oldest is dropped when a 65th logs in
# Chromium's Fetch Metadata: a request the person made (typed, from a terminal, a bookmark) is
# "none", one the board's own page makes is "same-origin". Another port of 127.0.0.1 is the same
# *site*, so SameSite=Strict alone would let its pages send the cookie.
FETCH_SITES = frozenset({"none", "same-origin"})


@dataclass
class Refusal:
    status: int
    code: str
    message: str


def _mac(key: str, nonce: str) -> str:
    digest = hmac.new(key.encode(), b"pylon-board-login:" + nonce.encode(), hashlib.sha256).digest()
    import base64

    return base64.urlsafe_b64encode(digest[:18]).decode()  # 144 bits, 24 URL-safe characters


def mint(key: str) -> str:
    """A one-time login token for the board whose key is `key`."""
    nonce = secrets.token_urlsafe(12)
    return f"{nonce}.{_mac(key, nonce)}"


def login_link(port: int, key: str, host: str = "127.0.0.1") -> str:
    return f"http://{host}:{port}/?token={mint(key)}"


@dataclass
class Gate:
    port: int
    key: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    _pages: list[str] = field(default_factory=list)
    _sessions: OrderedDict[str, None] = field(default_factory=OrderedDict)
    _spent: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def hosts(self) -> tuple[str, str]:
        return (f"127.0.0.1:{self.port}", f"localhost:{self.port}")

    @property
    def origins(self) -> tuple[str, ...]:
        return tuple(f"http://{host}" for host in self.hosts)

    @property
    def address(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    @property
    def cookie(self) -> str:
        """The session cookie's name. Cookies ignore ports: two boards on one machine need two names."""
        return f"pylon-board-{self.port}"

    def url(self) -> str:
        """A new login link (one-time)."""
        return login_link(self.port, self.key)

    def check(self, host: str | None, origin: str | None, fetch_site: str | None) -> Refusal | None:
        """None when the request may go on to authentication, else why not (403: the board answers
        nobody else)."""
        if host not in self.hosts:
            return Refusal(
                403,
                "bad-host",
                f"This board answers only to Host {self.hosts[0]} or {self.hosts[1]} "
                f"(got {host or 'none'}): a foreign Host header is how DNS rebinding reaches a local server.",
            )
        if origin is not None and origin not in self.origins:
            return Refusal(
                403, "bad-origin", f"Requests from {origin} are refused: the board serves its own page only."
            )
        if fetch_site is not None and fetch_site not in FETCH_SITES:
            return Refusal(
                403,
                "bad-origin",
                f"The browser says this request comes from another site "
                f"(Sec-Fetch-Site: {fetch_site}); open the board's link from a terminal or the address bar.",
            )
        return None

    def authenticated(self, header_key: str | None, cookie_header: str | None) -> bool:
        """The board's key in the header, or a live session in the cookie."""
        if header_key is not None and hmac.compare_digest(header_key.encode(), self.key.encode()):
            return True
        sessions = cookie_values(cookie_header, self.cookie)
        if not sessions:
            return False
        with self._lock:  # every value: a page of another port may have set a decoy of the same name
            return any(hmac.compare_digest(v.encode(), s.encode()) for v in sessions for s in self._sessions)

    def login(self, token: str) -> str | None:
        """A new session for an unspent login token (which is spent now), else None."""
        nonce, dot, mac = token.partition(".")
        if not dot or not nonce or not hmac.compare_digest(mac.encode(), _mac(self.key, nonce).encode()):
            return None
        session = secrets.token_urlsafe(32)
        with self._lock:
            if nonce in self._spent:
                return None
            self._spent.add(nonce)
            self._sessions[session] = None
            while len(self._sessions) > SESSIONS_KEPT:
                self._sessions.popitem(last=False)
        return session

    def set_cookie(self, session: str) -> str:
        return f"{self.cookie}={session}; HttpOnly; SameSite=Strict; Path=/"

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


def cookie_values(header: str | None, name: str) -> list[str]:
    """The values of cookie `name` in a Cookie header (a name may come twice)."""
    found = []
    for part in (header or "").split(";"):
        key, eq, value = part.strip().partition("=")
        if eq and key == name:
            found.append(value.strip())
    return found
