"""`pylon doctor`'s reading of Codex's hook trust, checked against Codex itself (issue 30 item 5).

Codex's app server answers `hooks/list` with each hook's key, its current hash and its trust status.
For pylon's handlers installed by `pylon hook install codex` (project and user), and the pylon
plugin's: the keys and hashes pylon computes (pylon/doctor/installs.py) must be Codex's, and a trust
record written with pylon's hash must make Codex call the hook trusted, while doctor agrees."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import MakeRepo, run_cmd
from tests.e2e.clients import base_env
from tests.e2e.conftest import Agent


def hooks_list(agent: Agent, repo: Path, env: dict[str, str]) -> list[dict]:
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "pylon-test", "version": "1"}, "capabilities": {"experimentalApi": True}},
        },
        {"jsonrpc": "2.0", "method": "initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [str(repo)]}},
    ]
    proc = subprocess.Popen(
        [str(agent.binary), "app-server"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
    proc.stdin.flush()
    try:
        for line in proc.stdout:
            doc = json.loads(line)
            if doc.get("id") == 2:
                return [h for h in doc["result"]["data"][0]["hooks"] if "pylon" in h["command"]]
    finally:
        proc.kill()
        proc.wait()
    raise AssertionError("no answer to hooks/list")


@pytest.mark.parametrize("agent", ["codex"], indirect=True)
def test_doctor_reads_codex_trust_as_codex_does(make_repo: MakeRepo, agent: Agent) -> None:
    repo = make_repo({"a.txt": "a\n"})
    env = base_env(agent.home, [str(agent.binary.parent)])
    codex_home = agent.home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    config = codex_home / "config.toml"
    config.write_text(f'[projects.{json.dumps(str(repo.resolve()))}]\ntrust_level = "trusted"\n')
    env["CODEX_HOME"] = str(codex_home)
    for scope in ([], ["--user"]):
        assert (
            run_cmd("pylon", "hook", "install", "codex", *scope, cwd=repo, env={"CODEX_HOME": str(codex_home)}).code
            == 0
        )
    listed = hooks_list(agent, repo, env)
    assert len(listed) == 8 and all(h["trustStatus"] == "untrusted" for h in listed), listed

    from pylon.doctor import installs

    mine = {
        installs.trust_key(i, h, env): installs.handler_hash(h)
        for i in installs.find(str(repo), env)
        if i.client == "codex"
        for h in i.handlers
    }
    assert mine == {h["key"]: h["currentHash"] for h in listed}  # the same keys and the same hashes as Codex
    doctor = run_cmd("pylon", "doctor", "--json", cwd=repo, env={"CODEX_HOME": str(codex_home)}).json()
    assert sum("untrusted" in f["message"] for f in doctor["findings"] if f["check"] == "codex-trust") == 2

    # trust them with pylon's hashes: Codex agrees, and so does doctor
    config.write_text(
        config.read_text()
        + "".join(f'[hooks.state.{json.dumps(key)}]\ntrusted_hash = "{value}"\n' for key, value in mine.items())
    )
    assert all(h["trustStatus"] == "trusted" for h in hooks_list(agent, repo, env))
    doctor = run_cmd("pylon", "doctor", "--json", cwd=repo, env={"CODEX_HOME": str(codex_home)}).json()
    assert not [f for f in doctor["findings"] if f["check"] == "codex-trust"], doctor
