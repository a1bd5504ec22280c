"""The plugin manifests: this repository as a Claude Code marketplace and a Codex marketplace.

The schema test always runs (JSON parses, names and paths exist, versions match pyproject, the
hooks and the MCP server call the installed `pylon`). The validation tests run the real clients'
own checks when a client is at hand (`claude plugin validate`; Codex's `plugin marketplace add`,
`plugin add` and `mcp list`, which refuse a manifest they cannot load), else they skip with the
reason: the e2e tier installs both clients (PYLON_E2E_NPM, tests/e2e/.npm).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pylon import __version__ as VERSION  # the one version source; the manifests must follow it
from pylon.cli import commands as registry
from pylon.cli.spec import Command
from tests.conftest import MakeRepo, run_cmd

ROOT = Path(__file__).resolve().parents[2]
# Read at import: the isolated_env fixture drops PYLON_* variables before each test.
NPM_DIRS = [Path(p) for p in (os.environ.get("PYLON_E2E_NPM"), ROOT / "tests" / "e2e" / ".npm") if p]
CLAUDE_MARKET = ROOT / ".claude-plugin" / "marketplace.json"
CODEX_MARKET = ROOT / ".agents" / "plugins" / "marketplace.json"
# The events pylon's hooks answer in each client (docs/reference/agents.md; the guard on PreToolUse).
EVENTS = {
    "claude-code": {
        "SessionStart",
        "PreToolUse",
        "PostToolBatch",  # the guard's op and canon's capsules: no PostToolUse in Claude Code
        "Stop",
        "WorktreeCreate",
        "WorktreeRemove",
    },
    "codex": {"SessionStart", "PreToolUse", "PostToolUse", "Stop"},
}


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def plugin_dirs() -> dict[str, Path]:
    claude = load(CLAUDE_MARKET)["plugins"]
    codex = load(CODEX_MARKET)["plugins"]
    assert len(claude) == len(codex) == 1
    return {
        "claude-code": (ROOT / claude[0]["source"]).resolve(),
        "codex": (ROOT / codex[0]["source"]["path"]).resolve(),
    }


def test_manifests_parse_and_agree_with_the_package() -> None:
    claude_market, codex_market = load(CLAUDE_MARKET), load(CODEX_MARKET)
    assert claude_market["name"] == codex_market["name"] == "pylon"
    assert claude_market["plugins"][0]["name"] == codex_market["plugins"][0]["name"] == "pylon"
    assert claude_market["plugins"][0]["version"] == VERSION
    dirs = plugin_dirs()
    for agent, folder in dirs.items():
        assert folder.is_dir() and ROOT in folder.parents, folder
        manifest = load(folder / (".claude-plugin" if agent == "claude-code" else ".codex-plugin") / "plugin.json")
        assert manifest["name"] == "pylon" and manifest["version"] == VERSION
        # Each folder holds one client's files only: Claude Code loads hooks/hooks.json by default,
        # so the other client's hooks must not sit beside them.
        other = ".codex-plugin" if agent == "claude-code" else ".claude-plugin"
        assert not (folder / other).exists()
        hooks = load(folder / "hooks" / "hooks.json")["hooks"]
        assert set(hooks) == EVENTS[agent]
        for event, groups in hooks.items():
            for group in groups:
                for handler in group["hooks"]:
                    # The one hook entry (`pylon hook AGENT`) through the plugin's fail-closed wrapper
                    assert handler == {
                        "type": "command",
                        "timeout": handler["timeout"],
                        "command": f'sh "${{CLAUDE_PLUGIN_ROOT}}/hooks/pylon-hook.sh" {agent}',
                    }
                    assert 1 <= handler["timeout"] <= (600 if event.startswith("Worktree") else 60)
        wrapper = folder / "hooks" / "pylon-hook.sh"
        assert wrapper.read_text().startswith("#!/bin/sh\n") and f"agent=${{1:-{agent}}}" in wrapper.read_text()
        servers = manifest["mcpServers"] if agent == "codex" else load(folder / ".mcp.json")["mcpServers"]
        assert servers == {"pylon": {"command": "pylon", "args": ["mcp", "--harness", agent]}}
    # the two wrappers are one script (each plugin folder must hold its own: a client copies only it)
    one, two = (dirs[a] / "hooks" / "pylon-hook.sh" for a in ("claude-code", "codex"))
    assert one.read_text().replace("${1:-claude-code}", "${1:-codex}") == two.read_text()
    mcp = registry.lookup("mcp")
    assert isinstance(mcp, Command) and mcp.option("--harness") is not None


def test_the_plugin_server_command_line_parses(make_repo: MakeRepo) -> None:
    # What the plugins run, with stdin at EOF: the server starts, sees the client gone, exits 0.
    repo = make_repo({"a.txt": "x\n"})
    for agent in ("claude-code", "codex"):
        result = run_cmd("pylon", "mcp", "--harness", agent, cwd=repo, input="")
        assert result.code == 0 and result.out == "" and "Traceback" not in result.err, result


def client(name: str) -> str:
    """A real client's executable, or skip with the reason."""
    for folder in NPM_DIRS:
        candidate = folder / "node_modules" / ".bin" / name
        if candidate.exists():
            return str(candidate)
    found = shutil.which(name)
    if found:
        return found
    from tests.e2e.clients import CI, Unavailable, install

    if not CI:
        pytest.skip(f"the {name} client is not installed (the e2e tier installs it: PYLON_E2E_NPM or tests/e2e/.npm)")
    try:  # in CI the clients must be there: install them as the e2e tier does (once, under its lock)
        return str(install()[name])
    except Unavailable as exc:
        pytest.fail(f"plugin tests: {exc} (CI=true: they must run)", pytrace=False)


def checkout(tmp_path: Path) -> Path:
    """The manifests and plugin folders as a git repository of their own (what a client clones)."""
    copy = tmp_path / "market"
    copy.mkdir()
    for name in (".claude-plugin", ".agents", "plugins"):
        shutil.copytree(ROOT / name, copy / name)
    shutil.copy(ROOT / "README.md", copy / "README.md")
    subprocess.run(["git", "init", "-q"], cwd=copy, check=True)
    subprocess.run(["git", "add", "-A"], cwd=copy, check=True)
    subprocess.run(["git", "commit", "-qm", "market"], cwd=copy, check=True)
    return copy


@pytest.mark.slow
def test_claude_code_validates_and_installs_the_marketplace(tmp_path: Path) -> None:
    claude = client("claude")
    market = checkout(tmp_path)
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(tmp_path / "claude-config")}
    for target in (market, market / "plugins" / "claude-code"):
        proc = subprocess.run(
            [claude, "plugin", "validate", str(target)], env=env, capture_output=True, text=True, timeout=120
        )
        assert proc.returncode == 0 and "Validation passed" in proc.stdout, proc.stdout + proc.stderr
    for argv in (["marketplace", "add", str(market)], ["install", "pylon@pylon", "--scope", "user"]):
        proc = subprocess.run([claude, "plugin", *argv], env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = subprocess.run(
        [claude, "plugin", "details", "pylon@pylon"], env=env, capture_output=True, text=True, timeout=120
    )
    hooks_line = next(line for line in proc.stdout.splitlines() if line.strip().startswith("Hooks"))
    assert sorted(hooks_line.split(")", 1)[1].split("(")[0].replace(",", " ").split()) == sorted(EVENTS["claude-code"])
    assert "MCP servers (1)" in proc.stdout


@pytest.mark.slow
def test_codex_installs_the_plugin_with_its_mcp_server(tmp_path: Path) -> None:
    codex = client("codex")
    market = checkout(tmp_path)
    home = tmp_path / "codex-home"
    home.mkdir()
    env = {**os.environ, "CODEX_HOME": str(home)}
    for argv in (["plugin", "marketplace", "add", str(market)], ["plugin", "add", "pylon@pylon"]):
        proc = subprocess.run([codex, *argv], env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0 and "Error" not in proc.stderr, proc.stdout + proc.stderr
    proc = subprocess.run([codex, "mcp", "list"], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    assert any(line.split()[:4] == ["pylon", "pylon", "mcp", "--harness"] for line in proc.stdout.splitlines()), (
        proc.stdout
    )
    cached = home / "plugins" / "cache" / "pylon" / "pylon" / VERSION
    assert load(cached / "hooks" / "hooks.json") == load(plugin_dirs()["codex"] / "hooks" / "hooks.json")
