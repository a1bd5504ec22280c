"""`pylon guard install` and `canon hook install` beside a user's own hooks, in the real clients:
installing twice is byte-identical, the user's groups keep their order (Codex keys hook trust by
position), and the user's hooks before and after pylon's keep running (issue 18 item 7, issue 21)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from tests.conftest import MakeRepo, git, run_cmd
from tests.e2e.conftest import Agent, restore_command
from tests.e2e.mockmodel import Bash, Text


def user_group(marker: Path) -> dict:
    return {"matcher": "Bash", "hooks": [{"type": "command", "command": f"echo ran >> {shlex.quote(str(marker))}"}]}


def install_all(repo: Path, agent: Agent) -> None:
    for line in (("pylon", "guard", "install", agent.agent), ("canon", "hook", "install", agent.agent)):
        done = run_cmd(*line, cwd=repo)
        assert done.code == 0, done


def test_install_twice_is_byte_identical_and_the_users_hooks_keep_running(
    make_repo: MakeRepo, agent: Agent, tmp_path: Path
) -> None:
    repo = make_repo({"src/app.py": "x\n", "src/lib/util.py": "y\n", ".gitignore": ".claude/\n.codex/\n"})
    (repo / ".canon" / "articles").mkdir(parents=True)
    before, after = tmp_path / "before.log", tmp_path / "after.log"
    settings = agent.settings_file(repo)
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [user_group(before)]}}, indent=2) + "\n")
    install_all(repo, agent)
    doc = json.loads(settings.read_text())
    doc["hooks"]["PreToolUse"].append(user_group(after))  # the user adds a hook after pylon's
    settings.write_text(json.dumps(doc, indent=2) + "\n")
    written = settings.read_bytes()
    install_all(repo, agent)
    install_all(repo, agent)
    assert settings.read_bytes() == written
    groups = json.loads(written)["hooks"]["PreToolUse"]
    assert groups[0] == user_group(before) and groups[-1] == user_group(after)
    assert any(
        h["command"].endswith(f" hook {agent.agent}") for g in groups[1:-1] for h in g["hooks"]
    )  # pylon's one entry

    result = agent.run(repo, [Bash("rm -r src/lib"), Text("done")])
    assert result.code == 0, result
    assert before.read_text() == "ran\n" and after.read_text() == "ran\n"  # both user hooks ran, once
    assert not (repo / "src/lib").exists()
    restored = run_cmd(*restore_command(agent.seen()), cwd=repo)  # and pylon's hook answered too
    assert restored.code == 0, restored
    assert (repo / "src/lib/util.py").read_text() == "y\n"


@pytest.mark.parametrize("agent", ["codex"], indirect=True)
def test_codex_runs_no_hook_that_was_not_trusted(make_repo: MakeRepo, agent: Agent) -> None:
    # What `guard install codex` must tell users: in a trusted project, a hook nobody reviewed in
    # /hooks does not run, silently; the command runs with no snapshot.
    repo = make_repo({"src/lib/util.py": "y\n", ".gitignore": ".codex/\n"})
    install_all(repo, agent)
    agent.trust_hooks = False
    result = agent.run(repo, [Bash("rm -r src/lib"), Text("done")])
    assert result.code == 0, result
    assert not (repo / "src/lib").exists()
    assert git(repo, "for-each-ref", "refs/pylon/guard") == ""
    assert "pylon" not in agent.seen()
