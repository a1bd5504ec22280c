"""The board's door, from outside, on raw sockets: the login link (one-time, exchanged for a
cookie, gone from the address), bodies of refused requests never read as the next request, clients
that leave mid-answer, and a listen backlog that takes a burst of connections."""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import MakeRepo, run_cmd
from tests.serve.conftest import Board, start_board, stop_board


@pytest.fixture
def board(make_repo: MakeRepo, board_factory: Callable[..., Board]) -> Board:
    return board_factory(make_repo({"a.txt": "x\n"}))


def _get(board: Board, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", board.port, timeout=30)
    conn.request("GET", path, headers=headers or {})
    res = conn.getresponse()
    data = res.read()
    conn.close()
    return res.status, {k.lower(): v for k, v in res.getheaders()}, data


def _code(data: bytes) -> str:
    return str(json.loads(data)["error"]["code"])


def test_the_login_link_is_exchanged_once_for_a_cookie_and_leaves_the_address(board: Board) -> None:
    link = board.url[len(board.base) :]
    assert link.startswith("/?token=") and board.token not in link  # the key itself is never in a URL
    status, headers, body = _get(board, link)
    assert status == 303 and headers["location"] == "/" and body == b""
    cookie = headers["set-cookie"]
    name, _, rest = cookie.partition("=")
    session, *attributes = rest.split("; ")
    assert name == f"pylon-board-{board.port}" and sorted(attributes) == ["HttpOnly", "Path=/", "SameSite=Strict"]
    jar = {"Cookie": f"{name}={session}"}
    status, headers, page = _get(board, "/", jar)
    assert status == 200 and b"pylon-csrf" in page and "set-cookie" not in headers
    assert _get(board, "/api/meta", jar)[0] == 200
    # spent: the same link again is refused without the cookie, and only strips itself with it
    status, _, data = _get(board, link)
    assert status == 403 and _code(data) == "bad-token" and "used already" in json.loads(data)["error"]["message"]
    status, headers, _ = _get(board, link.replace("/?", "/api/meta?x=1&"), jar)
    assert status == 303 and headers["location"] == "/api/meta?x=1" and "set-cookie" not in headers
    # a made-up token, the key in the query, a cookie of another board: refused
    for path, headers in (
        (f"/?token={board.token}", {}),
        ("/?token=abc.def", {}),
        ("/api/meta", {"Cookie": f"pylon-board-1={session}"}),
        ("/api/meta", {"Cookie": f"{name}=forged"}),
    ):
        status, _, data = _get(board, path, headers)
        assert status == 403 and _code(data) == "bad-token", (path, headers)
    # a decoy cookie of the same name (set by a page on another port) does not hide the real one
    assert _get(board, "/api/meta", {"Cookie": f"{name}=decoy; {name}={session}"})[0] == 200


def test_a_login_link_never_redirects_off_the_board(board: Board) -> None:
    link = board.url[len(board.base) + 1 :]
    status, headers, _ = _get(board, "//evil.example/x" + link)
    assert status == 303 and headers["location"] == "/evil.example/x"
    status, headers, _ = _get(board, "/\\evil.example" + board.url[len(board.base) + 1 :].replace("token", "t"))
    assert status == 403  # no token: nothing to strip, no redirect


def test_another_site_is_refused_even_with_the_cookie(board: Board) -> None:
    status, headers, _ = _get(board, board.url[len(board.base) :])
    jar = {"Cookie": headers["set-cookie"].split(";")[0]}
    for site in ("same-site", "cross-site"):  # another port of 127.0.0.1 is the same *site*
        status, _, data = _get(board, "/api/meta", {**jar, "Sec-Fetch-Site": site})
        assert status == 403 and _code(data) == "bad-origin"
    for site in ("same-origin", "none"):
        assert _get(board, "/api/meta", {**jar, "Sec-Fetch-Site": site})[0] == 200


def test_the_printed_link_opens_the_board_with_one_click(make_repo: MakeRepo) -> None:
    """The plain `pylon serve` (no --json): its first line is the link a terminal makes clickable."""
    import subprocess

    from tests.conftest import start_cmd

    repo = make_repo({"a.txt": "x\n"})
    proc = start_cmd("pylon", "serve", cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    board = Board(proc.stdout.readline().decode().strip(), "", "", 0, proc, repo)
    try:
        board.base, _, _ = board.url.partition("/?token=")
        board.port = int(board.base.rsplit(":", 1)[1])
        status, headers, _ = _get(board, board.url[len(board.base) :])
        assert status == 303 and headers["location"] == "/"
        status, _, page = _get(board, "/", {"Cookie": headers["set-cookie"].split(";")[0]})
        assert status == 200 and b"pylon-csrf" in page
    finally:
        code, err = stop_board(board)
    assert code == 0 and "opens the board once" in err and "Traceback" not in err


def _responses(sock: socket.socket, count: int) -> list[tuple[int, bytes]]:
    """Read `count` answers off a raw connection, then prove nothing else comes."""
    out = []
    for _ in range(count):
        res = http.client.HTTPResponse(sock)
        res.begin()
        out.append((res.status, res.read()))
    sock.settimeout(1.5)
    try:
        extra = sock.recv(65536)
    except (TimeoutError, ConnectionResetError):
        extra = b""
    assert extra == b"", f"an answer nobody asked for: {extra[:200]!r}"
    return out


def _csrf(board: Board) -> str:
    _, _, page = board.get("/")
    return page.split(b'name="pylon-csrf" content="')[1].split(b'"')[0].decode()


def _smuggled(board: Board) -> bytes:
    """A request hidden in a body: answered only if the body were parsed as the next request."""
    return (
        f"GET /api/meta?smuggled=1 HTTP/1.1\r\nHost: 127.0.0.1:{board.port}\r\nX-Pylon-Token: {board.token}\r\n\r\n"
    ).encode()


def _request(
    board: Board,
    method: str,
    path: str,
    body: bytes = b"",
    headers: dict[str, str] | None = None,
    length: int | None = None,
) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{board.port}", f"X-Pylon-Token: {board.token}"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    if body or length is not None:
        lines.append(f"Content-Length: {len(body) if length is None else length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


@pytest.mark.parametrize(
    "case", ["actions-off", "bad-csrf", "bad-token", "not-found", "bad-method", "get-with-body", "bad-json"]
)
def test_a_refused_requests_body_is_never_read_as_the_next_request(
    board: Board, make_repo: MakeRepo, board_factory: Callable[..., Board], case: str
) -> None:
    if case == "bad-json":  # refused after the actions check: a board that allows them
        board = board_factory(make_repo({"a.txt": "x\n"}, name="acting"), "--allow-actions")
    csrf = _csrf(board)
    json_headers = {"Content-Type": "application/json", "X-Pylon-Csrf": csrf}
    body = _smuggled(board)
    first = {
        "actions-off": _request(board, "POST", "/api/action", body, json_headers),
        "bad-csrf": _request(board, "POST", "/api/action", body, {"Content-Type": "application/json"}),
        "bad-token": _request(board, "POST", "/api/action", body, json_headers).replace(board.token.encode(), b"x"),
        "not-found": _request(board, "POST", "/api/nothing", body, json_headers),
        "bad-method": _request(board, "PUT", "/api/action", body, json_headers),
        "get-with-body": _request(board, "GET", "/api/journal", body),
        "bad-json": _request(board, "POST", "/api/action", body, json_headers),
    }[case]
    then = _request(board, "GET", "/api/timeline?limit=1")
    with socket.create_connection(("127.0.0.1", board.port), timeout=30) as sock:
        sock.sendall(first + then)  # pipelined: both requests on the wire before any answer
        closes = case in ("bad-csrf", "bad-token")  # a refusal at the door closes the connection
        answers = _responses(sock, 1 if closes else 2)
    assert all(b"smuggled" not in data and b'"version"' not in data for _, data in answers), answers
    if not closes:
        assert answers[1][0] == 200 and b'"entries"' in answers[1][1]  # the real second request, answered


@pytest.mark.parametrize("framing", ["too-long", "chunked", "two-lengths", "no-number"])
def test_a_body_that_cannot_be_read_within_the_bound_closes_the_connection(board: Board, framing: str) -> None:
    csrf = _csrf(board)
    headers = {"Content-Type": "application/json", "X-Pylon-Csrf": csrf}
    body = _smuggled(board) + b" " * 70_000
    first = {
        "too-long": _request(board, "POST", "/api/action", body, headers),
        "chunked": _request(board, "POST", "/api/action", b"", {**headers, "Transfer-Encoding": "chunked"})
        + f"{len(body):x}\r\n".encode()
        + body
        + b"\r\n0\r\n\r\n",
        "two-lengths": _request(board, "POST", "/api/action", _smuggled(board), {**headers, "Content-Length": "0"}),
        "no-number": _request(board, "POST", "/api/action", _smuggled(board), headers, length=-1),
    }[framing]
    with socket.create_connection(("127.0.0.1", board.port), timeout=30) as sock:
        sock.sendall(first + _request(board, "GET", "/api/meta?second=1"))
        ((status, data),) = _responses(sock, 1)  # the answer arrives whole (the rest is drained), then the close
    assert status == 403 and _code(data) == "actions-off" and b"smuggled" not in data


def test_a_client_that_goes_away_mid_answer_is_one_quiet_line(make_repo: MakeRepo) -> None:
    import struct

    board = start_board(make_repo({"a.txt": "x\n" * 1000}))
    try:
        for n in range(60):
            sock = socket.create_connection(("127.0.0.1", board.port), timeout=30)
            sock.sendall(_request(board, "GET", "/" if n % 2 else "/api/agents"))
            if n % 3 == 0:
                sock.recv(1)  # the answer began
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()  # a reset: the next write of the board's meets a closed connection
        assert board.get("/api/meta")[0] == 200  # still serving
    finally:
        code, err = stop_board(board)
    lines = [ln for ln in err.splitlines() if ln and ln != "pylon: stopped"]
    assert code == 0 and "Traceback" not in err and "Error" not in err.replace("Error)", ""), err
    assert lines and all(ln.startswith("pylon serve: ") and "went away mid-answer" in ln for ln in lines), lines


def test_the_listen_backlog_takes_200_simultaneous_connections(make_repo: MakeRepo) -> None:
    """With no accept() at all, the kernel completes as many handshakes as the backlog allows (and
    drops the other SYNs: their clients retry only after 1 s, 3 s, 7 s...)."""
    import select

    from pylon.serve.app import BoardServer
    from pylon.serve.data import Board as Served

    server = BoardServer(0, Served(str(make_repo({"a.txt": "x\n"}))))
    socks = []
    try:
        for _ in range(200):
            sock = socket.socket()
            sock.setblocking(False)
            sock.connect_ex(server.server_address)
            socks.append(sock)
        pending, connected = list(socks), 0
        for _ in range(20):  # half a second: a dropped SYN is not retried within it
            _, writable, _ = select.select([], pending, [], 0.025)
            for sock in writable:
                pending.remove(sock)
                connected += sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
        assert connected == 200 and not pending
    finally:
        for sock in socks:
            sock.close()
        server.server_close()


def test_200_simultaneous_requests_are_all_answered(board: Board) -> None:
    barrier = threading.Barrier(200)
    answers: list[int] = []

    def one() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", board.port, timeout=60)
        barrier.wait()
        conn.request("GET", "/api/meta", headers={"X-Pylon-Token": board.token})
        answers.append(conn.getresponse().status)
        conn.close()

    threads = [threading.Thread(target=one) for _ in range(200)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == [200] * 200


def test_a_second_serve_mints_a_link_from_the_record_alone(board: Board) -> None:
    """The refusal's link is an HMAC under the key in the record (mode 0600): the board that runs
    takes it without having been told, and only once."""
    record = json.loads(Path(board.repo, ".git", "pylon", "serve.json").read_text())
    assert record["key"] == board.token and record["url"] == board.base + "/" and "token" not in record["url"]
    doc = run_cmd("pylon", "serve", "--json", cwd=board.repo).json()
    assert doc["error"]["code"] == "serve-running" and doc["error"]["pid"] == board.proc.pid
    link = doc["error"]["url"][len(board.base) :]
    assert _get(board, link)[0] == 303 and _get(board, link)[0] == 403
