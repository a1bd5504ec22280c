"""`pylon tokens`: where a session's tokens went (per tool, repeated reads, failed edits, pylon read
against whole files), from counts and hashes only: planted secrets never reach its output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import MakeRepo, run_cmd
from tests.sessions import transcripts as T

SECRETS = ("PROMPT-SECRET-1", "FILE-SECRET-2", "COMMAND-SECRET-3", "EDIT-SECRET-4")
PYLON_READ_OUT = (
    "[src/app.py#880553fca8fc]\n1:x = 1\n2:y = 2\n[lines 1-2 of 250; next: pylon read src/app.py --offset 3 --limit 2]"
)


def test_the_meter_counts_sizes_repeats_failed_edits_and_pylon_reads(make_repo: MakeRepo, tmp_path: Path) -> None:
    app = "".join(f"line_{n} = {n}\n" for n in range(250))
    repo, home = make_repo({"a.txt": "a\n", "b.txt": "b\n", "src/app.py": app}), tmp_path / "h"
    a, b = str(repo / "a.txt"), str(repo / "b.txt")
    lines = [T.prompt(0, repo, f"Fix it. {SECRETS[0]}")]
    steps: list[tuple[str, dict[str, Any], str, bool]] = [
        ("Read", {"file_path": a}, f"1\t{SECRETS[1]}", False),
        ("Read", {"file_path": a}, f"1\t{SECRETS[1]}", False),  # the same region again: repeated
        ("Edit", {"file_path": a, "old_string": "a", "new_string": SECRETS[3]}, "ok", False),
        ("Read", {"file_path": a}, "1\tz", False),  # after an edit: not a repeat
        ("Read", {"file_path": a, "offset": 10, "limit": 5}, "", False),  # another region
        ("Edit", {"file_path": b, "old_string": "nope", "new_string": "x"}, "String not found", True),
        ("Edit", {"file_path": b, "old_string": "nope", "new_string": "x"}, "String not found", True),  # retried
        ("Edit", {"file_path": b, "old_string": "b", "new_string": "x"}, "ok", False),  # retried, succeeded
        (
            "Bash",
            {"command": f"echo {SECRETS[2]} && pylon read src/app.py --offset 1 --limit 2"},
            PYLON_READ_OUT,
            False,
        ),
        ("mcp__pylon__read", {"path": "src/app.py", "offset": 1, "limit": 2}, PYLON_READ_OUT, False),
        ("Bash", {"command": "pylon edit src/app.py#880553fca8fc --delete 1"}, "error[stale-tag]: ...", True),
    ]
    at = 1.0
    for i, (tool, given, out, failed) in enumerate(steps):
        lines.append(T.assistant(at, repo, f"m{i}", tools=[(f"t{i}", tool, given)]))
        lines.append(T.result(at + 0.5, repo, f"t{i}", out, error=failed))
        at += 1
    T.claude_file(home, repo, lines)
    done = run_cmd("pylon", "tokens", "--json", cwd=repo, env=T.claude_env(home))
    assert done.code == 0, done
    doc = json.loads(done.out)
    rows = {r["tool"]: r for r in doc["tools"]}
    assert {t: (r["calls"], r["errors"], r["retries"]) for t, r in rows.items()} == {
        "Read": (4, 0, 0),
        "Edit": (4, 2, 2),
        "Bash": (2, 1, 0),
        "mcp__pylon__read": (1, 0, 0),
    }
    read_in = sum(len(json.dumps(s[1], separators=(",", ":"))) for s in steps if s[0] == "Read")
    assert rows["Read"]["input_bytes"] == read_in and rows["Read"]["input_tokens"] == (read_in + 3) // 4
    assert rows["Edit"]["result_bytes"] == len("okString not foundString not foundok")
    # a.txt's first lines again, and src/app.py's lines 1-2 again (pylon read from the shell, then over MCP)
    repeated = doc["repeated_reads"]
    assert repeated["count"] == 2
    assert repeated["tokens"] == (len(f"1\t{SECRETS[1]}") + 3) // 4 + (len(PYLON_READ_OUT) + 3) // 4
    assert sorted((r["region"], r["reads"]) for r in repeated["regions"]) == [("1:", 2), ("1:2", 2)]
    fe = doc["failed_edits"]
    assert (fe["count"], fe["retried"]) == (3, 2) and len(fe["files"]) == 2  # b.txt twice, pylon edit once
    pr = doc["pylon"]["read"]
    assert (pr["calls"], pr["files"], pr["measured_calls"]) == (2, 1, 2)
    assert (
        pr["whole_file_tokens"] == 2 * ((len(app) + 3) // 4)
        and pr["saved_tokens"] == pr["whole_file_tokens"] - pr["tokens"]
    )
    assert doc["pylon"]["edit"] == {"calls": 1, "failed": 1, "retried": 0}
    assert doc["session"]["tool_calls"] == len(steps) and doc["bytes_per_token"] == 4
    text = run_cmd("pylon", "tokens", T.SESSION[:6], cwd=repo, env=T.claude_env(home))
    assert text.code == 0 and "repeated reads: 2" in text.out and "failed edits: 3, retried 2" in text.out, text
    assert "pylon read: 2 call(s) on 1 file(s)" in text.out
    for secret in SECRETS:
        assert secret not in done.out + text.out, secret
    for name in ("a.txt", "b.txt", "app.py"):  # files are named by hashes
        assert name not in json.dumps({k: v for k, v in doc.items() if k != "session"}) and name not in text.out


def test_which_session_is_metered(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo, home = make_repo({"a.txt": "a\n"}), tmp_path / "h"
    empty = run_cmd("pylon", "tokens", cwd=repo, env=T.claude_env(home))
    assert empty.code == 1 and "error[unknown-session]" in empty.err and "pylon sessions --all" in empty.err, empty
    for sid, at in (("abc-1", 1), ("abc-2", 2)):
        T.claude_file(home, repo, [T.assistant(at, repo, f"m{sid}", session=sid)], session=sid)
    newest = json.loads(run_cmd("pylon", "tokens", "--json", cwd=repo, env=T.claude_env(home)).out)
    assert newest["session"]["id"] == "abc-2"
    two = run_cmd("pylon", "tokens", "abc", "--json", cwd=repo, env=T.claude_env(home))
    error = json.loads(two.out)["error"]
    assert two.code == 1 and error["code"] == "ambiguous-session" and error["matches"] == ["abc-2", "abc-1"], two
    assert "pylon tokens abc-2" in error["hint"]
    none = run_cmd("pylon", "tokens", "zzz", cwd=repo, env=T.claude_env(home))
    assert none.code == 1 and "No session's id is or starts with 'zzz'" in none.err, none
    # an id names a session wherever it ran
    elsewhere = tmp_path / "elsewhere"
    T.claude_file(home, elsewhere, [T.assistant(3, elsewhere, "mx", session="other-1")], session="other-1")
    assert (
        json.loads(run_cmd("pylon", "tokens", "other", "--json", cwd=repo, env=T.claude_env(home)).out)["session"]["id"]
        == "other-1"
    )


def test_a_session_of_a_removed_file_is_read_from_pylon_reads_own_numbers(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo, home = make_repo({"a.txt": "a\n"}), tmp_path / "h"
    T.claude_file(
        home,
        repo,
        [
            T.assistant(1, repo, "m1", tools=[("t1", "Bash", {"command": "pylon read gone.py"})]),
            T.result(2, repo, "t1", PYLON_READ_OUT),
        ],
    )
    doc = json.loads(run_cmd("pylon", "tokens", "--json", cwd=repo, env=T.claude_env(home)).out)
    # 250 lines at the average size of the two shown ("x = 1", "y = 2": 6 bytes with their newline)
    assert doc["pylon"]["read"]["whole_file_tokens"] == (250 * 6 + 3) // 4
