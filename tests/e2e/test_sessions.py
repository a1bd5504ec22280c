"""`pylon sessions` and `pylon tokens` on what nobody here wrote (issue 32): the transcripts the real
Claude Code and Codex write while the mock model reports known usage, checked against that usage,
against the transcripts themselves, and against ccusage run on the same files."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import BIN, MakeRepo, run_cmd
from tests.e2e import ccusage
from tests.e2e.clients import CI, Unavailable, base_env
from tests.e2e.conftest import Agent
from tests.e2e.mockmodel import Bash, Step, Text, Usage

PYLON = str(BIN / "pylon")  # Codex's login shell does not keep the PATH it was given
PROMPT_SECRET, FILE_SECRET, COMMAND_SECRET = "PROMPT-SECRET-7f3a", "FILE-SECRET-91bc", "COMMAND-SECRET-c0de"


def first_usage(turn: int) -> Usage:
    return Usage(
        input=100 + turn,
        output=7 + turn,
        cache_read=1000 * turn,
        cache_write=50 if turn == 0 else 3,
        reasoning=2 * turn,
    )


def second_usage(turn: int) -> Usage:
    return Usage(input=40 + 3 * turn, output=5, cache_read=300 * turn, reasoning=1)


@pytest.fixture(scope="session")
def ccusage_bin() -> Path:
    try:
        return ccusage.install()
    except Unavailable as exc:
        if CI:
            pytest.fail(f"ccusage: {exc} (CI=true: the check must run)", pytrace=False)
        pytest.skip(f"ccusage: {exc}")


def expected(client: str, reported: dict[int, Usage]) -> dict[str, int]:
    """The tokens pylon must give for a run whose mock reported `reported` (turn -> usage)."""
    turns = reported.values()
    given = sum(u.input for u in turns)
    cached = sum(u.cache_read for u in turns)
    output = sum(u.output for u in turns)
    if client == "claude-code":  # the Messages API's cache writes; no thinking reported by the mock
        written = sum(u.cache_write for u in turns)
        return {
            "input": given,
            "cached_input": cached,
            "cache_creation": written,
            "output": output,
            "reasoning": 0,
            "total": given + cached + written + output,
        }
    return {
        "input": given,
        "cached_input": cached,
        "cache_creation": 0,
        "output": output,
        "reasoning": sum(u.reasoning for u in turns),
        "total": given + cached + output,
    }


def transcript_calls(path: Path, client: str) -> int:
    """Tool calls counted straight from a transcript file: tool_use blocks or function-call items."""
    ids = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if client == "claude-code" and entry.get("type") == "assistant":
            ids |= {b["id"] for b in entry["message"]["content"] if b.get("type") == "tool_use"}
        elif (
            client == "codex"
            and entry.get("type") == "response_item"
            and entry["payload"].get("type") in ("function_call", "custom_tool_call", "local_shell_call")
        ):
            ids.add(entry["payload"]["call_id"])
    return len(ids)


def test_sessions_agree_with_the_mock_the_transcripts_and_ccusage(
    make_repo: MakeRepo, agent: Agent, ccusage_bin: Path
) -> None:
    repo = make_repo({"notes.txt": f"hello\n{FILE_SECRET}\n", ".gitignore": ".claude/\n.codex/\n"})
    first: list[Step] = [
        Bash("cat notes.txt"),
        Bash("cat missing.txt"),
        Bash("cat missing.txt"),
        Bash(f"{PYLON} read notes.txt"),
        Bash(f"{PYLON} read notes.txt"),
        Bash(f"echo {COMMAND_SECRET} > /dev/null"),
        Text("done"),
    ]
    result = agent.run(repo, first, prompt=f"Do the task. {PROMPT_SECRET}", usage=first_usage)
    assert result.code == 0, result
    assert agent.model is not None
    reported = [dict(agent.model.reported)]
    # the second run with pylon's hooks installed: they leave a mark of the session's last event
    assert run_cmd("canon", "hook", "install", agent.agent, cwd=repo).code == 0
    result = agent.run(repo, [Bash("ls"), Text("ok")], usage=second_usage)
    assert result.code == 0, result
    reported.append(dict(agent.model.reported))

    env = base_env(agent.home, [])
    env.update(CLAUDE_CONFIG_DIR=str(agent.home / ".claude"), CODEX_HOME=str(agent.home / ".codex"))
    listed = run_cmd("pylon", "sessions", "--json", cwd=repo, env=env)
    assert listed.code == 0, listed
    doc = json.loads(listed.out)
    sessions = doc["sessions"]
    assert [s["client"] for s in sessions] == [agent.agent] * 2, sessions
    second, one = sessions  # newest first
    for session, report in ((one, reported[0]), (second, reported[1])):
        assert session["tokens"] == expected(agent.agent, report), (session, report)
        assert session["phase"] == "done" and session["running"] is False, session
        assert session["place"] == "checkout" and os.path.realpath(session["cwd"]) == os.path.realpath(repo), session
        assert session["skipped_lines"] == 0, session
        assert session["tool_calls"] == transcript_calls(Path(session["transcript"]), agent.agent), session
    assert one["tool_calls"] == 6 and second["tool_calls"] == 1, sessions
    assert (one["errors"], one["retries"]) == (2, 1), one  # the two failing cats: the second is a retry
    assert sum(one["tools"].values()) == 6 and second["errors"] == 0, (one, second)
    if agent.agent == "claude-code":
        assert one["cost"] is not None and one["cost"] > 0, one  # claude-sonnet-4-5 is in the table
    else:
        assert one["cost"] is None and one["unpriced_models"] == ["mock-model"], one

    # ccusage on the same files: the same sessions, the same tokens
    theirs = ccusage.report(ccusage_bin, "claude" if agent.agent == "claude-code" else "codex", env)["sessions"]
    assert len(theirs) == len(sessions), theirs
    for session in sessions:
        match = [t for t in theirs if session["id"] in t["sessionId"]]
        assert len(match) == 1, (session["id"], theirs)
        t, mine = match[0], session["tokens"]
        assert (t["inputTokens"], t["outputTokens"], t["cacheReadTokens"], t["totalTokens"]) == (
            mine["input"],
            mine["output"],
            mine["cached_input"],
            mine["total"],
        ), (t, mine)
        if agent.agent == "claude-code":
            assert t["cacheCreationTokens"] == mine["cache_creation"], (t, mine)
            assert abs(t["totalCost"] - session["cost"]) < 1e-5, (t, session["cost"])
        else:
            assert t["reasoningOutputTokens"] == mine["reasoning"], (t, mine)

    # the hooks' mark of the second session: its last event was the turn's Stop
    mark = agent.home / ".local" / "state" / "pylon" / "sessions" / "marks" / f"{agent.agent}.{second['id']}"
    assert mark.read_text().split()[0] == "Stop", mark.read_text()

    # where the first session's tokens went, with counts and hashes only
    texts = [run_cmd("pylon", "tokens", one["id"][:12], *extra, cwd=repo, env=env) for extra in ([], ["--json"])]
    assert all(t.code == 0 for t in texts), texts
    meter: dict[str, Any] = json.loads(texts[1].out)
    assert meter["pylon"]["read"]["calls"] == 2 and meter["pylon"]["read"]["files"] == 1, meter["pylon"]
    assert meter["repeated_reads"]["count"] == 1, meter["repeated_reads"]
    assert sum(r["calls"] for r in meter["tools"]) == 6 and meter["tools"][0]["result_bytes"] > 0, meter["tools"]
    status = run_cmd(
        "pylon",
        "sessions",
        "statusline",
        cwd=repo,
        env=env,
        input=json.dumps(
            {"session_id": one["id"], "transcript_path": one["transcript"], "workspace": {"current_dir": str(repo)}}
        ),
    )
    assert status.code == 0 and status.out.startswith(f"{repo.name} · "), status
    if agent.agent == "claude-code":  # Claude Code's status line: its session's phase and tokens
        assert status.out.split(" · ")[1:3] == ["done", f"{one['tokens']['total'] / 1000:.1f}k tok"], status
    shown = "".join(t.out + t.err for t in texts) + listed.out + status.out
    cached = "".join(
        p.read_text(errors="replace") for p in (agent.home / ".local" / "state" / "pylon").rglob("*") if p.is_file()
    )
    for secret in (PROMPT_SECRET, FILE_SECRET, COMMAND_SECRET):
        assert secret not in shown and secret not in cached, secret
    assert any(secret in Path(one["transcript"]).read_text() for secret in (PROMPT_SECRET, COMMAND_SECRET)), (
        "the secrets were not planted where the client writes them"
    )
