"""`pylon doctor` on planted faults (issue 30 item 5): each is found, named with the command that
fixes it, the exit status is 1 while it is there, and running that command clears it."""

from __future__ import annotations

import json
import os
import shlex
import time
from pathlib import Path

import pytest

from tests.conftest import MakeRepo, git, run_cmd, script, write_files


def doctor(repo: Path, env: dict[str, str] | None = None) -> tuple[int, list[dict[str, str]]]:
    res = run_cmd("pylon", "doctor", "--json", cwd=repo, env=env)
    assert res.code in (0, 1), res
    doc = res.json()
    assert doc["healthy"] is (res.code == 0)
    return res.code, doc["findings"]


def problems(findings: list[dict[str, str]], check: str) -> list[dict[str, str]]:
    return [f for f in findings if f["check"] == check and f["status"] == "problem"]


def run_fix(repo: Path, fix: str) -> None:
    command = fix.split("   (")[0]  # the exact command, before any parenthesised advice
    argv = shlex.split(command)
    res = run_cmd(*argv, cwd=repo)
    assert res.code == 0, (command, res)


def test_a_healthy_checkout_exits_0(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "a\n"})
    code, found = doctor(repo)
    assert code == 0, found
    assert found[0]["check"] == "versions" and "git" in found[0]["message"]
    text = run_cmd("pylon", "doctor", cwd=repo)
    assert text.code == 0 and text.out.endswith("no problems found\n")
    # no hooks anywhere: a note naming the install, not a problem
    assert any(f["status"] == "note" and f["fix"] == "pylon hook install codex" for f in found)


def test_an_interrupted_op(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "a\n"})
    planted = run_cmd(
        "python",
        "-c",
        "from pylon.workspace.repo import locate\nfrom pylon.workspace.ops import oplog\n"
        "oplog.begin(locate(), 'restore', [], title='restore planted')",
        cwd=repo,
    )
    assert planted.code == 0, planted
    code, found = doctor(repo)
    bad = problems(found, "ops")
    assert code == 1 and len(bad) == 1 and "restore planted" in bad[0]["message"], found
    run_fix(repo, bad[0]["fix"])
    assert not problems(doctor(repo)[1], "ops")


def test_a_git_lock_left_behind(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "a\n"})
    lock = repo / ".git" / "index.lock"
    lock.write_text("")
    old = time.time() - 600
    os.utime(lock, (old, old))
    code, found = doctor(repo)
    bad = problems(found, "locks")
    assert code == 1 and str(lock) in bad[0]["message"], found
    run_fix(repo, bad[0]["fix"])
    assert not lock.exists() and not problems(doctor(repo)[1], "locks")


def test_half_made_and_vanished_worktrees(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "a\n"})
    made = run_cmd("pylon", "ws", "new", "gone", "--json", cwd=repo).json()
    run_cmd("rm", "-rf", made["path"])
    record = Path(git(repo, "rev-parse", "--git-common-dir").strip())
    record = (record if record.is_absolute() else repo / record) / "pylon" / "owned" / "half.json"
    record.write_text(
        json.dumps(
            {
                "version": 1,
                "id": "half",
                "path": str(Path(made["path"]).parent / "half"),
                "branch": "pylon-session-half",
                "token": "t",
                "state": "creating",
            }
        )
    )
    code, found = doctor(repo)
    bad = problems(found, "worktrees")
    assert code == 1 and "gone" in bad[0]["message"] and "half" in bad[0]["message"], found
    run_fix(repo, bad[0]["fix"])
    assert not problems(doctor(repo)[1], "worktrees")


def test_a_dead_watcher(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "a\n"})
    made = run_cmd("pylon", "ws", "new", "w", "--watch", "--json", cwd=repo)
    assert made.code == 0, made
    pid = made.json()["watcher"]["pid"]
    os.kill(pid, 9)
    for _ in range(200):  # the kernel drops its lock once it is gone
        if not problems(doctor(repo)[1], "watchers"):
            time.sleep(0.05)
            continue
        break
    bad = problems(doctor(repo)[1], "watchers")
    assert bad and "w" in bad[0]["message"] and "pylon ws watch" in bad[0]["fix"], bad
    run_cmd("pylon", "ws", "rm", "w", cwd=repo)


def test_hooks_installed_twice(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "a\n"})
    assert run_cmd("pylon", "hook", "install", "claude-code", cwd=repo).code == 0
    again = run_cmd("pylon", "guard", "install", "claude-code", "--user", cwd=repo)
    assert again.code == 0 and "warning:" in again.err and "twice" in again.err, again  # said at install time
    code, found = doctor(repo)
    bad = problems(found, "hooks")
    assert code == 1 and "PreToolUse" in bad[0]["message"], found
    run_fix(repo, bad[0]["fix"])
    assert not problems(doctor(repo)[1], "hooks")


def test_codex_hooks_not_trusted(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "a\n"})
    assert run_cmd("pylon", "hook", "install", "codex", cwd=repo).code == 0
    code, found = doctor(repo)
    bad = problems(found, "codex-trust")
    assert code == 1 and "untrusted" in bad[0]["message"] and "/hooks" in bad[0]["fix"], found


def test_the_plugin_without_pylon_on_path(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = make_repo({"a.txt": "a\n"})
    home = Path(os.environ["HOME"]) / ".claude"
    plugin = tmp_path / "cache" / "pylon"
    write_files(
        plugin,
        {
            "hooks/hooks.json": json.dumps(
                {
                    "hooks": {
                        "PreToolUse": [
                            {
                                "matcher": "Bash",
                                "hooks": [
                                    {
                                        "type": "command",
                                        "command": 'sh "${CLAUDE_PLUGIN_ROOT}/hooks/pylon-hook.sh" claude-code',
                                    }
                                ],
                            }
                        ]
                    }
                }
            )
        },
    )
    write_files(
        home,
        {
            "plugins/installed_plugins.json": json.dumps(
                {"version": 2, "plugins": {"pylon@pylon": [{"scope": "user", "installPath": str(plugin)}]}}
            ),
            "settings.json": json.dumps({"enabledPlugins": {"pylon@pylon": True}}),
        },
    )
    bare = {"PATH": "/usr/bin:/bin"}
    res = run_cmd(script("pylon"), "doctor", "--json", cwd=repo, env=bare)
    found = res.json()["findings"]
    assert res.code == 1 and problems(found, "plugin"), found
    assert any("the pylon plugin" in f["message"] for f in found if f["check"] == "hooks")


def test_a_broken_canon_store(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "a\n"})
    assert run_cmd("canon", "init", cwd=repo).code == 0
    write_files(repo, {".canon/articles/a.md": "---\ncapsule: [unclosed\n---\nbody\n"})
    code, found = doctor(repo)
    bad = problems(found, "canon")
    assert code == 1 and bad and bad[0]["fix"].startswith("canon lint"), found


def test_a_settings_file_that_does_not_parse(make_repo: MakeRepo) -> None:
    repo = make_repo({"a.txt": "a\n"})
    write_files(repo, {".codex/hooks.json": "{not json"})
    code, found = doctor(repo)
    assert code == 1 and any("does not parse" in f["message"] for f in problems(found, "hooks")), found


def test_old_git_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    from pylon.doctor import checks
    from pylon.workspace.merge import conflicts

    monkeypatch.setattr(conflicts, "_VERSION", [(2, 30, 0)])
    found = [f for f in checks.versions() if f["check"] == "git"]
    assert found and "older than 2.38" in found[0]["message"] and "git hook run" in found[0]["message"]
