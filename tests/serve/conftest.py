"""A real repository for the board: three owned worktrees (two in one real conflict), a shell op and a
guard snapshot,
a store of articles with links and a journal; and the real `pylon serve` started on it."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.canon.helpers import article, entry
from tests.conftest import git, run_cmd, start_cmd, write_files


@dataclass
class Board:
    url: str  # the login link `pylon serve` announced (it opens the board once)
    base: str
    token: str  # the board's key, for the X-Pylon-Token header
    port: int
    proc: Any  # subprocess.Popen, or the fork server's Forked (tests/conftest.py start_cmd)
    repo: Path

    def get(
        self,
        path: str,
        *,
        token: bool = True,
        headers: dict[str, str] | None = None,
        method: str = "GET",
        body: bytes | None = None,
    ) -> tuple[int, dict[str, str], bytes]:
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.request(
            method, path, body=body, headers={**({"X-Pylon-Token": self.token} if token else {}), **(headers or {})}
        )
        res = conn.getresponse()
        data = res.read()
        conn.close()
        return res.status, {k.lower(): v for k, v in res.getheaders()}, data

    def api(self, name: str) -> dict[str, Any]:
        status, _, data = self.get(f"/api/{name}")
        doc = json.loads(data)
        assert status == 200, doc
        doc.pop("ok")
        return doc


def make_scene(repo: Path, articles: int = 12) -> dict[str, str]:
    """Commits, a store (`articles` articles, links, a journal), two worktrees editing the same line
    (a real conflict), a third editing another file, a guard snapshot. Returns the worktrees' paths by id."""
    files: dict[str, str | bytes] = {
        "src/app.py": "def main():\n    return 1\n",
        "src/util.py": "X = 1\n",
        "docs/intro.md": "# Intro\n",
        "README.md": "hello\n",
    }
    for i in range(articles - 3):
        files[f"lib/m{i // 10}/f{i}.py"] = f"V = {i}\n"
    write_files(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "start")
    store = {
        "src": article("The sources.", body="Entry in [[src/app]]; see [[docs]].\n"),
        "src/app": article("The app's entry point.", body="Part of [[src]].\n"),
        "docs": article("Docs.", body="Dead: [[missing/page]].\n"),
    }
    for i in range(articles - 3):
        store[f"lib/m{i // 10}/f{i}"] = article(f"Module {i}.", body="Uses [[src]] and [[lib/m0/f0]].\n")
    write_files(repo / ".canon" / "articles", {f"{a}.md": t for a, t in store.items()})
    write_files(
        repo / ".canon" / "journal",
        {
            "2026-01-02-entry.md": entry("src/app", "2026-01-02T10:00:00Z", "Raised the retry count to 3.\n"),
            "2026-01-03-entry.md": entry("docs", "2026-01-03T10:00:00Z", "Docs moved.\n"),
        },
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "memory")
    paths = {}
    for wid, line in (("agent-1", "    return 2\n"), ("agent-2", "    return 3\n")):
        made = run_cmd("pylon", "ws", "new", wid, "--json", cwd=repo)
        assert made.code == 0, made.err
        paths[wid] = json.loads(made.out)["path"]
        Path(paths[wid], "src/app.py").write_text("def main():\n" + line, encoding="utf-8")
    Path(paths["agent-1"], "src/new_file.py").write_text("import os\nNAME = 'new'\n", encoding="utf-8")
    made = run_cmd("pylon", "ws", "new", "agent-3", "--json", cwd=repo)  # a third session, in no conflict
    assert made.code == 0, made.err
    paths["agent-3"] = json.loads(made.out)["path"]
    Path(paths["agent-3"], "README.md").write_text("hello, from a third session\n", encoding="utf-8")
    (repo / "build").mkdir()
    (repo / "build" / "out.txt").write_text("generated\n", encoding="utf-8")
    write_files(repo, {".gitignore": "build/\n"})
    for name in ("PreToolUse", "PostToolUse"):  # an agent's shell command: its op, kept by the hooks
        if name == "PostToolUse":
            Path(repo, "src", "util.py").unlink()  # what bash would do between the two events
        hooked = run_cmd(
            "pylon",
            "hook",
            "claude-code",
            cwd=repo,
            env={"PYLON_KEEP_DETACH": "0"},
            input=json.dumps(
                {
                    "hook_event_name": name,
                    "tool_name": "Bash",
                    "cwd": str(repo),
                    "session_id": "scene",
                    "tool_use_id": "toolu_scene",
                    "tool_input": {"command": "rm -rf src/util.py"},
                }
            ),
        )
        assert hooked.code == 0, hooked.err
    write_files(repo, {"docs/intro.md": "# Intro, edited and not committed\n"})
    snap = run_cmd(
        "pylon",
        "hook",
        "claude-code",
        cwd=repo,
        input=json.dumps(  # a file tool: a guard snapshot
            {
                "hook_event_name": "PreToolUse",
                "tool_name": "Write",
                "cwd": str(repo),
                "session_id": "scene",
                "tool_input": {"file_path": str(repo / "docs" / "intro.md"), "content": "x"},
            }
        ),
    )
    assert snap.code == 0, snap.err
    return paths


def start_board(repo: Path, *flags: str) -> Board:
    proc = start_cmd("pylon", "serve", "--json", *flags, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode().strip()
    if not line.startswith('{"ok": true'):
        proc.kill()
        raise AssertionError(f"pylon serve printed {line!r}: {proc.stderr.read().decode() if proc.stderr else ''}")
    doc = json.loads(line)
    return Board(doc["url"], doc["address"].rstrip("/"), doc["token"], doc["port"], proc, repo)


def stop_board(board: Board) -> tuple[int, str]:
    board.proc.send_signal(signal.SIGINT)
    try:
        code = board.proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        board.proc.kill()
        raise
    err = board.proc.stderr.read().decode() if board.proc.stderr else ""
    return code, err


@pytest.fixture
def scene(make_repo: Callable[..., Path]) -> tuple[Path, dict[str, str]]:
    repo = make_repo(name="repo")
    return repo, make_scene(repo)


@pytest.fixture
def board_factory() -> Iterator[Callable[..., Board]]:
    started: list[Board] = []

    def factory(repo: Path, *flags: str) -> Board:
        board = start_board(repo, *flags)
        started.append(board)
        return board

    yield factory
    for board in started:
        if board.proc.poll() is None:
            stop_board(board)


def wait_for(check: Callable[[], object], timeout: float = 20, what: str = "condition") -> object:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)
