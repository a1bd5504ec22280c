"""`pylon serve` without a browser: the security checks, each data answer against the CLI command
it stands for (the same library, so the same document), actions, one board per checkout, Ctrl-C."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import MakeRepo, git, inotify_masks, run_cmd
from tests.serve.conftest import Board, stop_board, wait_for

VOLATILE = {"age", "last_change", "time"}  # seconds tick between the two reads


def _steady(doc: object) -> object:
    """The document less the values that tick between two reads (ages, times)."""
    if isinstance(doc, dict):
        return {k: _steady(v) for k, v in doc.items() if k not in VOLATILE}
    if isinstance(doc, list):
        return [_steady(x) for x in doc]
    return doc


def _cli(repo: Path, *args: str) -> dict[str, Any]:
    result = run_cmd(*args, cwd=repo)
    doc = json.loads(result.out)
    doc.pop("ok", None)
    return doc


def test_requests_without_the_token_a_foreign_host_or_origin_are_refused(
    scene: tuple[Path, dict[str, str]], board_factory: Callable[..., Board]
) -> None:
    repo, _ = scene
    board: Board = board_factory(repo)
    assert board.base.startswith("http://127.0.0.1:") and len(board.token) >= 32
    for path in ("/", "/api/agents", "/api/events"):
        status, headers, data = board.get(path, token=False)
        assert status == 403 and json.loads(data)["error"]["code"] == "bad-token"
        assert "access-control-allow-origin" not in headers
    status, _, data = board.get("/api/meta?token=wrong", token=False)
    assert status == 403
    for host in ("evil.example:80", f"evil.example:{board.port}", "127.0.0.1", f"127.0.0.2:{board.port}"):
        status, _, data = board.get("/api/meta", headers={"Host": host})
        assert status == 403 and json.loads(data)["error"]["code"] == "bad-host", host
    status, _, data = board.get("/api/meta", headers={"Origin": "http://evil.example"})
    assert status == 403 and json.loads(data)["error"]["code"] == "bad-origin"
    status, headers, _ = board.get(
        "/api/meta", headers={"Host": f"localhost:{board.port}", "Origin": f"http://localhost:{board.port}"}
    )
    assert status == 200 and "access-control-allow-origin" not in headers
    status, headers, page = board.get("/")
    assert status == 200 and "nonce-" in headers["content-security-policy"]
    assert b"pylon-csrf" in page and b"{{" not in page
    # only 127.0.0.1 listens: the port is closed on every other address of the machine
    other = socket.gethostbyname(socket.gethostname())
    if not other.startswith("127."):
        with socket.socket() as sock:
            sock.settimeout(2)
            assert sock.connect_ex((other, board.port)) != 0


def test_each_answer_is_the_cli_document(
    scene: tuple[Path, dict[str, str]], board_factory: Callable[..., Board]
) -> None:
    repo, _ = scene
    board = board_factory(repo)
    agents = board.api("agents")
    assert [w.pop("watcher") for w in agents["worktrees"]] == [None, None, None]  # no `ws new --watch` here
    assert set(agents.pop("survey")) == {"kept", "age_ms"}  # the board's own note on how it was made
    assert agents.pop("departed") == []  # the board's own list of foreign worktrees (test_departed.py)
    assert _steady(agents) == _steady(_cli(repo, "pylon", "ws", "list", "--json"))
    conflicts = _cli(repo, "pylon", "ws", "conflicts", "--json")
    served = board.api("conflicts")
    served.pop("survey")
    assert served.pop("departed") == []
    assert served == conflicts and conflicts["conflicting"] == 1
    timeline = board.api("timeline?limit=50")
    cli_log = _cli(repo, "pylon", "ws", "log", "--json")
    assert _steady(timeline) == _steady(cli_log) and any(e["kind"] == "guard" for e in cli_log["entries"])
    diff = board.api("diff?id=agent-1")
    cli_diff = run_cmd("pylon", "ws", "diff", "--in", "agent-1", "--json", cwd=repo).json()
    assert diff["diff"] == cli_diff["diff"] and "+    return 2" in diff["diff"]
    lint = board.api("lint")
    assert lint["findings"] == _cli(repo, "canon", "lint", "--json")["findings"] and lint["findings"]
    coverage = board.api("coverage")
    assert {k: coverage[k] for k in ("tracked", "governed", "articles", "ungoverned")} == {
        k: v
        for k, v in _cli(repo, "canon", "coverage", "--json").items()
        if k in ("tracked", "governed", "articles", "ungoverned")
    }
    hood = board.api("graph?address=src")
    assert {k: hood[k] for k in ("nodes", "edges", "dead")} == {
        k: v for k, v in _cli(repo, "canon", "graph", "src", "--json").items() if k in ("nodes", "edges", "dead")
    }
    assert board.api("search?q=retry+count&limit=10") == _cli(
        repo, "canon", "search", "retry", "count", "--journal", "--json"
    )
    found = board.api("article?address=src/app")
    assert found["capsule"] == "The app's entry point." and "Raised the retry count" in found["journal"][0]["body"]


def test_the_graph_folds_folders_until_they_are_opened(
    make_repo: MakeRepo, board_factory: Callable[..., Board]
) -> None:
    from tests.serve.conftest import make_scene

    repo = make_repo(name="big")
    make_scene(repo, articles=43)  # lib/m0..m3 hold 40 articles
    board = board_factory(repo)
    top = board.api("graph")
    ids = {n["id"]: n for n in top["nodes"]}
    assert ids["lib/"]["folder"] and ids["lib/"]["articles"] == 40 and top["counts"]["articles"] == 43
    assert {"src", "docs", "lib/"} <= set(ids) and not any(i.startswith("lib/m") for i in ids)
    assert {"source": "lib/", "target": "src", "links": 40} in top["edges"]
    opened = {n["id"] for n in board.api("graph?open=lib")["nodes"]}
    assert {"lib/m0/", "lib/m3/"} <= opened and "lib/" not in opened
    deeper = {n["id"] for n in board.api("graph?open=lib,lib/m0")["nodes"]}
    assert "lib/m0/f0" in deeper and "lib/m1/" in deeper


def test_actions_are_refused_without_allow_actions_and_need_the_page_token(
    scene: tuple[Path, dict[str, str]], board_factory: Callable[..., Board]
) -> None:
    repo, _ = scene
    board = board_factory(repo)
    body = json.dumps({"action": "undo"}).encode()
    status, _, data = board.get("/api/action", method="POST", body=body, headers={"Content-Type": "application/json"})
    assert status == 403 and json.loads(data)["error"]["code"] == "bad-csrf"
    _, _, page = board.get("/")
    csrf = page.split(b'name="pylon-csrf" content="')[1].split(b'"')[0].decode()
    status, _, data = board.get(
        "/api/action", method="POST", body=body, headers={"Content-Type": "text/plain", "X-Pylon-Csrf": csrf}
    )
    assert status == 415  # a form post of another site cannot send JSON without a preflight
    status, _, data = board.get(
        "/api/action", method="POST", body=body, headers={"Content-Type": "application/json", "X-Pylon-Csrf": csrf}
    )
    assert status == 403 and json.loads(data)["error"]["code"] == "actions-off"


def test_an_action_runs_through_the_library_and_is_an_op_in_the_log(
    make_repo: MakeRepo, board_factory: Callable[..., Board]
) -> None:
    from tests.conftest import git

    repo = make_repo({"a.txt": "one\n"})
    made = run_cmd("pylon", "ws", "new", "s1", "--json", cwd=repo).json()
    Path(made["path"], "a.txt").write_text("two\n", encoding="utf-8")
    board = board_factory(repo, "--allow-actions")
    _, _, page = board.get("/")
    csrf = page.split(b'name="pylon-csrf" content="')[1].split(b'"')[0].decode()
    headers = {"Content-Type": "application/json", "X-Pylon-Csrf": csrf}
    status, _, data = board.get(
        "/api/action", method="POST", headers=headers, body=json.dumps({"action": "apply", "id": "s1"}).encode()
    )
    assert status == 200, data
    assert (repo / "a.txt").read_text() == "two\n" and git(repo, "status", "--porcelain") == " M a.txt\n"
    log = run_cmd("pylon", "ws", "log", "--json", cwd=repo).json()
    assert log["entries"][0]["made_by"] == "pylon ws apply s1" and log["entries"][0]["status"] == "done"
    status, _, data = board.get(
        "/api/action", method="POST", headers=headers, body=json.dumps({"action": "undo"}).encode()
    )
    assert status == 200 and (repo / "a.txt").read_text() == "one\n" and git(repo, "status", "--porcelain") == ""
    status, _, data = board.get(
        "/api/action", method="POST", headers=headers, body=json.dumps({"action": "rm", "id": "nope"}).encode()
    )
    assert status == 409 and json.loads(data)["error"]["code"] == "unknown-worktree"


def test_a_second_board_says_where_the_first_runs_and_ctrl_c_stops_cleanly(
    scene: tuple[Path, dict[str, str]], board_factory: Callable[..., Board]
) -> None:
    repo, _ = scene
    board = board_factory(repo)
    second = run_cmd("pylon", "serve", cwd=repo, timeout=30)
    assert second.code == 1 and "error[serve-running]" in second.err and f"{board.base}/ (pid " in second.err
    record = repo / ".git" / "pylon" / "serve.json"
    assert json.loads(record.read_text())["pid"] == board.proc.pid
    assert oct(record.stat().st_mode & 0o777) == "0o600"  # it holds the board's key
    # the refusal carries a new login link to the board that runs: it opens the board once
    link = run_cmd("pylon", "serve", "--json", cwd=repo, timeout=30).json()["error"]["url"]
    assert link.startswith(board.base + "/?token=") and "/?token=" in second.err
    status, headers, _ = board.get(link[len(board.base) :], token=False)
    assert status == 303 and headers["set-cookie"].startswith(f"pylon-board-{board.port}=")
    code, err = stop_board(board)
    assert code == 0 and "stopped" in err and "Traceback" not in err
    assert not record.exists()
    with socket.socket() as sock:
        assert sock.connect_ex(("127.0.0.1", board.port)) != 0


def test_a_file_change_reaches_an_open_event_stream(
    scene: tuple[Path, dict[str, str]], board_factory: Callable[..., Board]
) -> None:
    import http.client

    repo, paths = scene
    board = board_factory(repo)
    conn = http.client.HTTPConnection("127.0.0.1", board.port, timeout=30)
    conn.request("GET", "/api/events", headers={"X-Pylon-Token": board.token})
    res = conn.getresponse()
    assert res.status == 200 and (res.getheader("Content-Type") or "").startswith("text/event-stream")
    assert res.readline() == b"retry: 2000\n" and res.readline() == b": connected\n" and res.readline() == b"\n"
    time.sleep(1.0)  # the watcher starts in the background
    listener = http.client.HTTPConnection("127.0.0.1", board.port, timeout=30)
    listener.connect()
    sock = listener.sock  # the response reads through it (http.client drops its own reference)
    listener.request("GET", "/api/events", headers={"X-Pylon-Token": board.token})
    other = listener.getresponse()
    heard = [other.readline() for _ in range(3)]  # retry, connected, blank
    sock.settimeout(2)  # only the wait for an event that must not come is short: a slow host just waits
    for name in ("agents", "conflicts", "timeline", "diff?id=agent-1", "graph", "lint", "coverage", "stale"):
        board.api(name)  # what a page reads: reading must never look like a change (no reload loop)
    try:
        heard.append(other.readline())
    except TimeoutError:
        pass
    listener.close()
    assert len(heard) == 3 or not heard[3].startswith(b"event"), f"an event after reads alone: {heard}"
    Path(paths["agent-2"], "src", "util.py").write_text("X = 2\n", encoding="utf-8")
    lines: list[bytes] = []

    def a_data_line() -> bool:
        lines.append(res.readline())
        return lines[-1].startswith(b"data:")

    wait_for(a_data_line, what="a change event")
    event = json.loads(lines[-1][5:])
    assert event["kinds"] == ["workspace"]
    conn.close()


def test_json_prints_one_document_when_the_board_listens(make_repo: MakeRepo) -> None:
    import http.client
    import signal
    import subprocess

    from tests.conftest import start_cmd

    repo = make_repo({"a.txt": "x\n"})
    proc = start_cmd(
        "pylon", "serve", "--json", "--allow-actions", cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert proc.stdout is not None
        doc = json.loads(proc.stdout.readline())
        assert doc["ok"] and doc["allow_actions"] is True and doc["address"] == f"http://127.0.0.1:{doc['port']}/"
        assert doc["url"].startswith(doc["address"] + "?token=") and doc["token"] not in doc["url"]
        conn = http.client.HTTPConnection("127.0.0.1", doc["port"], timeout=30)
        conn.request("GET", "/api/meta", headers={"X-Pylon-Token": doc["token"]})
        assert json.loads(conn.getresponse().read())["allow_actions"] is True
        conn.close()
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 0


def test_the_agents_answer_names_each_worktrees_watcher(
    make_repo: MakeRepo, board_factory: Callable[..., Board]
) -> None:
    repo = make_repo({"a.txt": "x\n"})
    made = run_cmd("pylon", "ws", "new", "w1", "--watch", "--json", cwd=repo).json()
    try:
        board = board_factory(repo)
        rows = board.api("agents")["worktrees"]
        assert rows[0]["watcher"] == made["watcher"]["pid"] and isinstance(rows[0]["watcher"], int)
    finally:
        assert run_cmd("pylon", "ws", "rm", "w1", cwd=repo).code == 0  # stops the watcher


def _listed(board: Board) -> dict[str, Any]:
    doc = board.api("agents")
    for row in doc["worktrees"]:
        row.pop("watcher")
    assert doc.pop("departed") == []
    return doc


def test_a_survey_is_kept_until_the_watcher_sees_a_change(
    make_repo: MakeRepo, board_factory: Callable[..., Board]
) -> None:
    # The worktree table is answered from the last survey while the board's watcher has seen no
    # change since it began; any change (a file, a commit, a new worktree) makes the next one anew.
    repo = make_repo({"a.txt": "x\n"})
    path = Path(run_cmd("pylon", "ws", "new", "w1", "--json", cwd=repo).json()["path"])
    board = board_factory(repo)
    wait_for(lambda: board.api("meta")["watching"], what="the board watching the checkout and its worktrees")
    masks = inotify_masks(board.proc.pid)  # reads are not asked of the kernel (tests/workspace/test_watch.py)
    assert masks and all(mask & 0x30 == 0 for mask in masks), [hex(m) for m in masks]
    _listed(board)
    kept = _listed(board)
    assert kept.pop("survey")["kept"] is True, "nothing changed between two answers, yet the survey was made again"
    assert _steady(kept) == _steady(_cli(repo, "pylon", "ws", "list", "--json"))
    assert board.api("agents?fresh=1")["survey"]["kept"] is False  # fresh=1 always surveys
    (path / "new.txt").write_text("n\n")
    row = wait_for(
        lambda: (r := _listed(board)["worktrees"][0])["dirty"]["untracked"] == 1 and r, what="the new file counted"
    )
    git(path, "add", "-A")
    git(path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "work")
    wait_for(lambda: _listed(board)["worktrees"][0]["commits_since_baseline"] == 1, what="the commit counted")
    assert isinstance(row, dict) and row["dirty"] == {"tracked": 0, "untracked": 1}
    run_cmd("pylon", "ws", "new", "w2", cwd=repo)
    wait_for(lambda: len(_listed(board)["worktrees"]) == 2, what="the new worktree listed")
    (repo / "a.txt").write_text("changed in the checkout\n")  # read again: the checkout's side only
    wait_for(lambda: [r["behind_checkout"] for r in _listed(board)["worktrees"]] == [1, 1], what="behind counted")
    now = _listed(board)
    now.pop("survey")
    assert _steady(now) == _steady(_cli(repo, "pylon", "ws", "list", "--json"))


def test_an_inotify_overflow_makes_every_view_out_of_date(tmp_path: Path) -> None:
    # watchdog says the kernel dropped events only in a log warning; the board's watcher turns it
    # into a change of both kinds, so no kept survey or graph outlives events it never saw.
    import logging

    from pylon.serve.events import Broker, Watcher

    seen: list[tuple[str, str]] = []
    broker = Broker()
    watcher = Watcher(broker, [str(tmp_path / ".git")], lambda kind, path: seen.append((kind, path)))
    watcher.start([str(tmp_path)])
    try:
        logging.getLogger("watchdog.observers.inotify_c").warning(
            "Inotify queue overflowed; filesystem events were lost"
        )
        assert sorted(seen) == [("memory", ""), ("workspace", "")]
    finally:
        watcher.stop()
        broker.close()


def test_the_memory_answers_are_made_again_after_a_change(
    scene: tuple[Path, dict[str, str]], board_factory: Callable[..., Board]
) -> None:
    # lint, stale and coverage are kept between changes like the surveys: an article written
    # after a first answer is in the next one, as `canon lint` and `canon coverage` see it.
    repo, _ = scene
    board = board_factory(repo)
    wait_for(lambda: board.api("meta")["watching"], what="the board watching")
    before = board.api("lint")["findings"]
    board.api("coverage")
    (repo / ".canon" / "articles" / "lib" / "late.md").write_text(
        "---\ncapsule: Written after the first answer.\nupdated: 2026-01-01\n---\nSee [[no/such/page]].\n"
    )
    wait_for(lambda: board.api("lint")["findings"] != before, what="the new article's finding")
    assert board.api("lint")["findings"] == _cli(repo, "canon", "lint", "--json")["findings"]
    assert board.api("coverage")["articles"] == _cli(repo, "canon", "coverage", "--json")["articles"]
