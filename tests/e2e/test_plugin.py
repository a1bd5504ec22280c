"""The pylon plugin installed from this repository's marketplaces in the real clients, and failing
closed when `pylon` is not on the client's PATH (issue 30 item 5): the destructive command does not
run, and the model reads why (not a bare "hook error", not silence)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.conftest import MakeRepo, run_cmd
from tests.e2e.clients import base_env
from tests.e2e.conftest import Agent
from tests.e2e.mockmodel import Bash, Text

ROOT = Path(__file__).resolve().parents[2]
MISSING = "pylon is not on the PATH this client gave its hooks"


def market(tmp_path: Path) -> Path:
    """This repository's marketplaces and plugin folders as a git repository of their own."""
    copy = tmp_path / "market"
    copy.mkdir()
    for name in (".claude-plugin", ".agents", "plugins"):
        shutil.copytree(ROOT / name, copy / name)
    for argv in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "m"]):
        subprocess.run(["git", *argv], cwd=copy, check=True, capture_output=True)
    return copy


def install_plugin(agent: Agent, tmp_path: Path) -> None:
    env = base_env(agent.home, [str(agent.binary.parent)])
    source = str(market(tmp_path))
    if agent.name == "claude":
        env["CLAUDE_CONFIG_DIR"] = str(agent.home / ".claude")
        steps = [["plugin", "marketplace", "add", source], ["plugin", "install", "pylon@pylon", "--scope", "user"]]
    else:
        env["CODEX_HOME"] = str(agent.home / ".codex")
        (agent.home / ".codex").mkdir(parents=True, exist_ok=True)
        steps = [["plugin", "marketplace", "add", source], ["plugin", "add", "pylon@pylon"]]
        agent.config_extra = '[plugins."pylon@pylon"]\nenabled = true\n'  # each run rewrites config.toml
    for argv in steps:
        proc = subprocess.run([str(agent.binary), *argv], env=env, capture_output=True, text=True, timeout=180)
        assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_plugin_fails_closed_without_pylon(make_repo: MakeRepo, agent: Agent, tmp_path: Path) -> None:
    repo = make_repo({"src/lib/util.py": "y\n", "src/app.py": "x\n"})
    install_plugin(agent, tmp_path)
    agent.without_pylon = True
    result = agent.run(repo, [Bash("rm -r src/lib"), Text("done")])
    assert result.code == 0, result
    assert (repo / "src/lib/util.py").read_text() == "y\n"  # the command never ran
    assert MISSING in agent.seen(), agent.seen()[-3000:]  # and the model was told why
    assert "Stop hook error" not in result.out + result.err


def test_the_plugin_guards_with_pylon(make_repo: MakeRepo, agent: Agent, tmp_path: Path) -> None:
    repo = make_repo({"src/lib/util.py": "y\n", "notes.txt": "x\n"})
    (repo / "notes.txt").write_text("uncommitted\n")
    install_plugin(agent, tmp_path)
    result = agent.run(repo, [Bash("rm -r src/lib"), Text("done")])
    assert result.code == 0, result
    assert not (repo / "src/lib").exists()
    assert "`pylon ws undo` right after brings it all back" in agent.seen()  # the wrapper ran pylon's own hook
    undo = run_cmd("pylon", "ws", "undo", cwd=repo)  # and what the command changed is an op
    assert undo.code == 0, undo
    assert (repo / "src/lib/util.py").read_text() == "y\n" and (repo / "notes.txt").read_text() == "uncommitted\n"
    doctor = run_cmd(
        "pylon",
        "doctor",
        "--json",
        cwd=repo,
        env={"CLAUDE_CONFIG_DIR": str(agent.home / ".claude"), "CODEX_HOME": str(agent.home / ".codex")},
    )
    hooks = [f for f in doctor.json()["findings"] if f["check"] == "hooks"]
    assert any(agent.agent in f["message"] and "plugin" in f["message"] for f in hooks), hooks
