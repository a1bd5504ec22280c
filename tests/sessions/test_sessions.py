"""`pylon sessions`: transcripts in the clients' shapes read into one document per session (counts,
dedupe, subagents, bad and partial lines, incremental reads, worktrees, exit codes and messages).
The same reading is checked on the real clients' own files in tests/e2e/test_sessions.py."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeRepo, git, run_cmd
from tests.sessions import transcripts as T


def sessions(repo: Path, home: Path, *extra: str) -> dict[str, Any]:
    done = run_cmd("pylon", "sessions", "--json", *extra, cwd=repo, env=T.claude_env(home))
    assert done.code == 0, done
    return json.loads(done.out)


def test_a_claude_session_is_counted_once_per_message_with_calls_errors_and_retries(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    repo, home = make_repo({"a.txt": "a\n"}), tmp_path / "h"
    big = {
        "input_tokens": 3,
        "cache_read_input_tokens": 1000,
        "cache_creation_input_tokens": 40,
        "output_tokens": 9,
        "output_tokens_details": {"thinking_tokens": 4},
        "cache_creation": {"ephemeral_5m_input_tokens": 30, "ephemeral_1h_input_tokens": 10},
    }
    T.claude_file(
        home,
        repo,
        [
            T.prompt(0, repo),
            # one message written as two lines (a thinking/text block, then its tool call): one request
            T.assistant(1, repo, "msg_1", text="looking", usage=big, stop=None),
            T.assistant(1.1, repo, "msg_1", tools=[("t1", "Bash", {"command": "cat nope"})], usage=big),
            T.result(2, repo, "t1", "cat: nope: No such file", error=True),
            T.assistant(3, repo, "msg_2", tools=[("t2", "Bash", {"command": "cat nope"})]),
            T.result(4, repo, "t2", "cat: nope: No such file", error=True),
            T.assistant(5, repo, "msg_3", tools=[("t3", "Read", {"file_path": str(repo / "a.txt")})]),
            T.result(6, repo, "t3", "a"),
            T.assistant(7, repo, "msg_4", text="all done"),
            T.bookkeeping(9),
        ],
    )
    doc = sessions(repo, home)
    assert doc["total"] == 1 and doc["repository"] == str(repo)
    s = doc["sessions"][0]
    assert (s["client"], s["id"], s["place"], s["worktree"]) == ("claude-code", T.SESSION, "checkout", None)
    assert s["tokens"] == {
        "input": 3 + 10 * 3,
        "cached_input": 1000,
        "cache_creation": 40,
        "output": 9 + 30,
        "reasoning": 4,
        "total": 33 + 1000 + 40 + 39,
    }
    assert (s["tool_calls"], s["tools"], s["errors"], s["retries"]) == (3, {"Bash": 2, "Read": 1}, 2, 1)
    assert s["started"] == "2025-06-01T01:00:00.000Z" and s["last_activity"] == "2025-06-01T01:00:09.000Z"
    assert s["model"] == "claude-sonnet-4-5" and s["skipped_lines"] == 0
    # $3 / $15 per million, cache reads $0.30, 5-minute writes $3.75, 1-hour writes $6
    assert s["cost"] == round((33 * 3 + 1000 * 0.3 + 30 * 3.75 + 10 * 6 + 39 * 15) / 1e6, 6)
    # no list of running sessions (older client), a turn answered in a session a person can continue
    assert s["phase"] == "done" and s["running"] is None  # ... but hours ago


def test_a_subagent_transcript_belongs_to_its_session_and_a_sidechain_replay_counts_once(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    repo, home = make_repo({"a.txt": "a\n"}), tmp_path / "h"
    T.claude_file(
        home,
        repo,
        [
            T.prompt(0, repo),
            T.assistant(
                1,
                repo,
                "msg_1",
                tools=[("t1", "Task", {"prompt": "x"})],
                request="req_1",
                usage={"cache_read_input_tokens": 20},
            ),
        ],
    )
    T.claude_file(
        home,
        repo,
        [
            # the subagent replays its parent's message under another request id, with a larger cache read
            T.assistant(2, repo, "msg_1", request="req_replay", side=True, usage={"cache_read_input_tokens": 50_000}),
            T.assistant(3, repo, "msg_sub", tools=[("t2", "Grep", {"pattern": "x"})], side=True, request="req_2"),
            T.result(4, repo, "t2", "found", side=True),
        ],
        sub="agent-1",
    )
    doc = sessions(repo, home)
    assert doc["total"] == 1
    s = doc["sessions"][0]
    assert s["transcripts"] == 2 and s["tool_calls"] == 2 and s["tools"] == {"Grep": 1, "Task": 1}
    assert s["tokens"]["cached_input"] == 20 and s["tokens"]["input"] == 20  # msg_1 once (the parent's), msg_sub


def test_unreadable_lines_are_counted_and_a_partial_line_waits(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo, home = make_repo({"a.txt": "a\n"}), tmp_path / "h"
    path = T.claude_file(
        home,
        repo,
        [
            T.prompt(0, repo),
            "not json at all",
            "[1, 2]",
            '{"type": "assistant", "message": 5}',
            T.assistant(1, repo, "msg_1"),
        ],
    )
    whole = T.assistant(2, repo, "msg_2", usage={"input_tokens": 7})
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(whole[:40])  # being written: no newline yet
    s = sessions(repo, home)["sessions"][0]
    assert s["skipped_lines"] == 3 and s["tokens"]["input"] == 10
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(whole[40:] + "\n")
    s = sessions(repo, home)["sessions"][0]
    assert s["skipped_lines"] == 3 and s["tokens"]["input"] == 17


def test_a_second_read_reads_only_what_was_appended(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo, home = make_repo({"a.txt": "a\n"}), tmp_path / "h"
    first = T.assistant(1, repo, "msg_1", usage={"input_tokens": 5})
    path = T.claude_file(home, repo, [T.prompt(0, repo), first, T.bookkeeping(2)])
    assert sessions(repo, home)["sessions"][0]["tokens"]["input"] == 5
    cached = list((Path(os.environ["XDG_STATE_HOME"]) / "pylon" / "sessions" / "files").iterdir())
    assert len(cached) == 1
    # the first line's bytes changed in place (same length), then a line appended: only the new
    # line is read, so the old count stands
    data = path.read_bytes()
    changed = first.replace('"input_tokens":5', '"input_tokens":6')
    assert changed != first
    path.write_bytes(data.replace(first.encode(), changed.encode()) + (T.assistant(3, repo, "msg_2") + "\n").encode())
    assert sessions(repo, home)["sessions"][0]["tokens"]["input"] == 15
    # a transcript replaced by another file (a new inode) is read anew
    replacement = path.with_suffix(".new")
    replacement.write_bytes(path.read_bytes())
    os.replace(replacement, path)
    assert sessions(repo, home)["sessions"][0]["tokens"]["input"] == 16


def test_codex_counts_requests_skips_replays_and_forks_and_reads_errors(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo, home = make_repo({"a.txt": "a\n"}), tmp_path / "h"
    T.codex_file(
        home,
        [
            T.meta(0, repo),
            T.turn_context(0.5, repo),
            T.event(1, "task_started"),
            T.call(2, "c1", "cat nope"),
            T.event(2.1, "exec_command_end", call_id="c1", exit_code=1),
            T.output(2.2, "c1", 1),
            T.tokens(3, [100, 60, 10, 4, 110], [100, 60, 10, 4, 110]),
            T.call(4, "c2", "cat nope"),
            T.output(4.2, "c2", 1),  # an older Codex: only the output's header says so
            T.tokens(5, [250, 160, 25, 9, 275], None),  # no `last`: the difference of the totals
            T.tokens(5.5, [250, 160, 25, 9, 275], [0, 0, 0, 0, 0]),  # nothing: skipped
            T.call(6, "c3", "sed -n 1,5p a.txt"),
            T.event(
                6.1,
                "item_completed",
                item={
                    "type": "CommandExecution",
                    "id": "c3",
                    "status": "completed",
                    "exit_code": 0,
                    "parsed_cmd": [{"type": "read", "cmd": "sed", "name": "a.txt", "path": "a.txt"}],
                },
            ),
            T.output(6.2, "c3", 0, "a"),
            T.tokens(7, [300, 200, 30, 9, 330], [50, 40, 5, 0, 55]),
            T.event(8, "task_complete"),
        ],
    )
    fork = "01a24905-aaaa-7973-ab3c-3cecf0fa492f"
    T.codex_file(
        home,
        [
            T.meta(0, repo, fork),
            T.turn_context(0.5, repo),  # a fork: the parent's history copied
            T.tokens(3, [100, 60, 10, 4, 110], [100, 60, 10, 4, 110]),
            T.tokens(9, [130, 60, 12, 4, 142], [30, 0, 2, 0, 32]),
        ],
        thread=fork,
    )
    spawned = "01a24905-bbbb-7973-ab3c-3cecf0fa492f"
    T.codex_file(
        home,
        [
            T.meta(0, repo, spawned, source={"subagent": {"thread_spawn": {"parent_thread_id": T.THREAD}}}),
            T.tokens(20.1, [100, 60, 10, 4, 110], [100, 60, 10, 4, 110]),  # the parent's, replayed
            T.tokens(20.4, [250, 160, 25, 9, 275], [150, 100, 15, 5, 165]),  # within one second
            T.tokens(23, [262, 160, 27, 9, 289], [12, 0, 2, 0, 14]),
        ],
        thread=spawned,
    )
    doc = sessions(repo, home)
    by_id = {s["id"]: s for s in doc["sessions"]}
    main = by_id[T.THREAD]
    # requests: 100/60/10, 150/100/15 (from the totals), 50/40/5; input without its cached part
    assert main["tokens"] == {
        "input": 40 + 50 + 10,
        "cached_input": 200,
        "cache_creation": 0,
        "output": 30,
        "reasoning": 9,
        "total": 330,
    }
    assert (main["tool_calls"], main["errors"], main["retries"], main["phase"]) == (3, 2, 1, "done")
    assert main["model"] == "gpt-5.1-codex"
    assert main["cost"] == round((100 * 1.25 + 200 * 0.125 + 30 * 10) / 1e6, 6)
    assert by_id[fork]["tokens"]["total"] == 32  # the copied count belongs to the parent
    assert by_id[spawned]["tokens"]["total"] == 14
    # only the session's own rollout: the read counts as a read in the meter
    meter = json.loads(run_cmd("pylon", "tokens", T.THREAD, "--json", cwd=repo, env=T.claude_env(home)).out)
    sizes = [len(json.dumps({"cmd": c})) for c in ("cat nope", "cat nope", "sed -n 1,5p a.txt")]
    outputs = [
        len(json.loads(T.output(0, c, code, text))["payload"]["output"])
        for c, code, text in (("c1", 1, ""), ("c2", 1, ""), ("c3", 0, "a"))
    ]
    assert meter["tools"] == [
        {
            "tool": "exec_command",
            "calls": 3,
            "input_bytes": sum(sizes),
            "result_bytes": sum(outputs),
            "errors": 2,
            "retries": 1,
            "input_tokens": (sum(sizes) + 3) // 4,
            "result_tokens": (sum(outputs) + 3) // 4,
        }
    ]


def test_sessions_of_every_worktree_are_placed_and_others_left_out(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo, home = make_repo({"a.txt": "a\n"}), tmp_path / "h"
    assert run_cmd("pylon", "ws", "new", "agent-1", cwd=repo).code == 0
    owned = Path(run_cmd("pylon", "ws", "path", "agent-1", cwd=repo).out.strip())
    plain = tmp_path / "plain"
    git(repo, "worktree", "add", "-q", str(plain))
    claude_own = repo / ".claude" / "worktrees" / "fix-1"  # Claude Code's own worktree, since removed
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for i, cwd in enumerate((repo / "sub", owned, plain, claude_own, elsewhere)):
        T.claude_file(
            home,
            cwd,
            [T.prompt(i, cwd, session=f"s{i}"), T.assistant(i + 0.5, cwd, f"m{i}", session=f"s{i}")],
            session=f"s{i}",
        )
    doc = sessions(repo, home)
    placed = {s["id"]: (s["place"], s["worktree"]) for s in doc["sessions"]}
    assert placed == {"s0": ("checkout", None), "s1": ("pylon", "agent-1"), "s2": ("git", None), "s3": ("claude", None)}
    assert [s["id"] for s in doc["sessions"]] == ["s3", "s2", "s1", "s0"]  # newest first
    assert sessions(owned, home) == doc  # from any worktree: the same repository
    everything = sessions(repo, home, "--all")
    assert everything["total"] == 5 and {s["id"]: s["place"] for s in everything["sessions"]}["s4"] is None
    text = run_cmd("pylon", "sessions", cwd=repo, env=T.claude_env(home))
    assert text.code == 0 and "agent-1" in text.out and "4 session(s) in" in text.out, text


def test_refusals_say_what_to_do(make_repo: MakeRepo, tmp_path: Path) -> None:
    home = tmp_path / "h"
    outside = tmp_path / "outside"
    outside.mkdir()
    done = run_cmd("pylon", "sessions", cwd=outside, env=T.claude_env(home))
    assert done.code == 2 and "error[not-a-git-checkout]" in done.err and "--all" in done.err, done
    assert run_cmd("pylon", "sessions", "--all", "--json", cwd=outside, env=T.claude_env(home)).code == 0
    repo = make_repo({"a.txt": "a\n"})
    done = run_cmd("pylon", "sessions", "--timeout", "1", cwd=repo)
    assert done.code == 2 and "--timeout applies to --watch only" in done.err, done
    done = run_cmd("pylon", "sessions", "elsewhere", cwd=repo)
    assert done.code == 2 and "error[usage]" in done.err, done
    prices = tmp_path / "prices.toml"
    prices.write_text('[models."x"]\ninput = "cheap"\noutput = 1\n')
    done = run_cmd("pylon", "sessions", "--json", cwd=repo, env={**T.claude_env(home), "PYLON_PRICES": str(prices)})
    assert done.code == 2 and json.loads(done.out)["error"]["code"] == "bad-prices" and "models.x.input" in done.out


def test_the_price_table_can_be_overridden(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo, home = make_repo({"a.txt": "a\n"}), tmp_path / "h"
    T.claude_file(
        home,
        repo,
        [
            T.assistant(1, repo, "m1", model="my-gateway-model-20260101"),
            T.assistant(2, repo, "m2", model="<synthetic>", usage={"input_tokens": 0, "output_tokens": 0}),
        ],
    )
    s = sessions(repo, home)["sessions"][0]
    assert s["cost"] is None and s["unpriced_models"] == ["my-gateway-model-20260101"]
    prices = tmp_path / "config" / "pylon" / "prices.toml"
    prices.parent.mkdir(parents=True)
    prices.write_text('[models."my-gateway-model"]\ninput = 2.0\noutput = 8.0\n')
    done = run_cmd(
        "pylon", "sessions", "--json", cwd=repo, env={**T.claude_env(home), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    )
    s = json.loads(done.out)["sessions"][0]
    assert s["cost"] == round((10 * 2.0 + 10 * 8.0) / 1e6, 6) and s["unpriced_models"] == []


def test_lines_split_across_reads_come_whole_and_a_partial_line_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pylon.sessions import jsonl

    lines = [f'{{"n": {i}, "pad": "{"x" * (i * 7 % 23)}"}}'.encode() for i in range(40)]
    data = b"\n".join(lines) + b"\n\n" + b'{"partial": tr'
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    for chunk in (5, 64, 1 << 20):  # lines straddling many reads, some, none
        monkeypatch.setattr(jsonl, "CHUNK", chunk)
        got: list[bytes] = []
        end, tail = jsonl.whole_lines(str(path), 0, got.extend)
        assert got == lines and end == len(data) - len(b'{"partial": tr') and tail == data[end - 64 : end]
        rest: list[bytes] = []
        assert jsonl.whole_lines(str(path), end, rest.extend) == (end, b"") and rest == []
