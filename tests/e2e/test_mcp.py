"""`pylon mcp` in the real clients: a model's MCP `tools/call` reaches canon and the answer comes
back (issue 21, item 3). Skipped while `pylon mcp` does not exist in this checkout."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.canon.helpers import article
from tests.conftest import MakeRepo, run_cmd
from tests.e2e.clients import claude_env
from tests.e2e.conftest import Agent
from tests.e2e.mockmodel import Mcp, Text

CAPSULE = "Entry point; parses the flags."
BODY = "The flags are parsed once, at start.\n"


def register(agent: Agent, repo: Path) -> None:
    """Register `pylon mcp` the way a person would: `claude mcp add`, or Codex's [mcp_servers]."""
    if agent.name == "claude":
        env = claude_env(agent.home, "http://127.0.0.1:9", agent.path_dirs())
        added = subprocess.run(
            [str(agent.binary), "mcp", "add", "--scope", "user", "pylon", "--", "pylon", "mcp"],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert added.returncode == 0, added
        agent.allowed = ("Bash", "mcp__pylon")
    else:
        agent.config_extra = (
            '[mcp_servers.pylon]\ncommand = "pylon"\nargs = ["mcp"]\nrequired = true\nstartup_timeout_sec = 30\n'
        )


def test_a_model_mcp_call_reaches_canon_and_the_answer_comes_back(make_repo: MakeRepo, agent: Agent) -> None:
    if run_cmd("pylon", "mcp", "--help").code != 0:
        pytest.skip("`pylon mcp` is not in this checkout yet (issue 21, item 3)")
    repo = make_repo(
        {
            ".canon/articles/src/app.md": article(CAPSULE, body=BODY),
            ".canon/journal/.keep": "",
            "src/app.py": "print('app')\n",
        }
    )
    register(agent, repo)
    result = agent.run(repo, [Mcp("pylon", "canon_read", {"address": "src/app.py"}), Text("read it")])
    assert result.code == 0, result
    assert agent.model is not None
    results = agent.model.tool_results()
    assert len(results) == 1, (results, agent.seen()[-3000:])
    assert CAPSULE in results[0] and "The flags are parsed once" in results[0], results[0]


def test_the_real_clients_reach_only_the_project_through_mcp(make_repo: MakeRepo, agent: Agent, tmp_path: Path) -> None:
    # The model asks for a file outside the project by absolute path and through a symlink; each
    # tool result the client hands back is the refusal, and a read inside still works.
    secret = tmp_path / "outside-secret.txt"
    secret.write_text("TOP-SECRET-LINE\n")
    repo = make_repo({"src/app.py": "print('app')\n"})
    (repo / "src" / "link.txt").symlink_to(secret)
    register(agent, repo)
    result = agent.run(
        repo,
        [
            Mcp("pylon", "read", {"path": str(secret)}),
            Mcp("pylon", "read", {"path": "src/link.txt"}),
            Mcp("pylon", "read", {"path": "src/app.py"}),
            Text("done"),
        ],
    )
    assert result.code == 0, result
    assert agent.model is not None
    results = agent.model.tool_results()
    assert len(results) == 3, (results, agent.seen()[-3000:])
    assert all("path-outside" in r and "TOP-SECRET-LINE" not in r for r in results[:2]), results
    assert "print('app')" in results[2], results[2]
