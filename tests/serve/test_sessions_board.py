"""The board's Agents view shows each worktree's sessions (issue 32): `/api/sessions` is `pylon
sessions --json`, and in headless Chromium a live session's phase stands beside its worktree."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeRepo, run_cmd
from tests.serve.conftest import Board
from tests.serve.test_browser import browser, css, shot  # noqa: F401 - the fixture, used by name
from tests.sessions import transcripts as T


def _scene(make_repo: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    repo, home = make_repo({"a.txt": "a\n"}, name="repo"), tmp_path / "h"
    assert run_cmd("pylon", "ws", "new", "agent-1", cwd=repo).code == 0
    owned = Path(run_cmd("pylon", "ws", "path", "agent-1", cwd=repo).out.strip())
    T.claude_file(
        home,
        owned,
        [
            T.prompt(0, owned, session="live-1"),
            T.assistant(
                1,
                owned,
                "m1",
                tools=[("t1", "Bash", {"command": "make"})],
                session="live-1",
                usage={"input_tokens": 1200},
            ),
        ],
        session="live-1",
    )
    T.claude_file(
        home, repo, [T.prompt(0, repo, session="old-1"), T.assistant(1, repo, "m2", session="old-1")], session="old-1"
    )
    registry = home / ".claude" / "sessions"  # Claude Code's own list: live-1 runs (in this very process)
    registry.mkdir(parents=True)
    stat = Path("/proc/self/stat")
    started = stat.read_text().rsplit(")", 1)[1].split()[19] if stat.exists() else None
    (registry / f"{os.getpid()}.json").write_text(
        json.dumps({"pid": os.getpid(), "procStart": started, "sessionId": "live-1", "status": "busy"})
    )
    for key, value in T.claude_env(home).items():
        monkeypatch.setenv(key, value)
    return repo, home


def test_the_sessions_answer_is_the_cli_document(
    make_repo: MakeRepo, tmp_path: Path, board_factory: Callable[..., Board], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _ = _scene(make_repo, tmp_path, monkeypatch)
    board = board_factory(repo)
    doc = board.api("sessions")
    cli = json.loads(run_cmd("pylon", "sessions", "--json", cwd=repo).out)
    cli.pop("ok")
    assert doc == cli
    assert [(s["id"], s["worktree"], s["phase"]) for s in doc["sessions"]] == [
        ("live-1", "agent-1", "working"),
        ("old-1", None, "done"),
    ]


@pytest.mark.browser
def test_the_agents_view_shows_each_worktrees_live_session(
    make_repo: MakeRepo,
    tmp_path: Path,
    board_factory: Callable[..., Board],
    browser: Any,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, _ = _scene(make_repo, tmp_path, monkeypatch)
    board = board_factory(repo)
    browser.get(board.url)
    rows = css(browser, "#session-table tr[data-session]")
    assert [
        (r.get_attribute("data-session"), r.get_attribute("data-worktree"), r.get_attribute("data-phase")) for r in rows
    ] == [("live-1", "agent-1", "working"), ("old-1", "checkout", "done")]
    assert "1.2k" in rows[0].text
    badge = css(browser, '#worktree-table tr[data-id="agent-1"] .session-badge')[0]
    assert badge.text == "working"
    shot(browser, "agents-sessions")
