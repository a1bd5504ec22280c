"""pylon guard inside the real clients: the state before every shell command is kept and what it
changed is an op, so `pylon ws undo` (or the note's `pylon ws restore op-N PATH`) gives the tree
back byte for byte, whatever the classifier made of the command; an irreversible command is stopped
with pylon's reason reaching the model; a safe one passes with nothing said. Codex's `write_stdin`,
which fires no hook, is recorded by the next pylon command (issues 18 and 29)."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import pytest

from tests.conftest import MakeRepo, git, run_cmd, write_files
from tests.e2e.conftest import Agent, restore_command, tree
from tests.e2e.mockmodel import Bash, Batch, Terminal, Text


def checkout(make_repo: MakeRepo, agent: Agent) -> Path:
    """A repository with work git cannot give back (an edit, an untracked file, an ignored 600 .env,
    an empty folder, a link, an executable), pylon's guard installed for the client."""
    repo: Path = make_repo(
        {
            "src/app.py": "print('app')\n",
            "src/lib/util.py": "X = 1\n",
            "src/run.sh": "#!/bin/sh\n",
            ".gitignore": ".env\n.claude/\n.codex/\n",
            "README.md": "readme\n",
        }
    )
    (repo / "src/run.sh").chmod(0o755)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "modes")
    write_files(
        repo,
        {
            "src/app.py": "print('app, edited and not committed')\n",
            "src/new.txt": "untracked\n",
            "src/.env": "SECRET=1\n",
        },
    )
    (repo / "src/.env").chmod(0o600)
    (repo / "src/empty").mkdir()
    (repo / "src/link").symlink_to("app.py")
    installed = run_cmd("pylon", "guard", "install", agent.agent, cwd=repo)
    assert installed.code == 0, installed
    return repo


def test_a_reversible_command_runs_and_the_note_restores_the_tree(
    make_repo: MakeRepo, agent: Agent, tmp_path: Path
) -> None:
    repo = checkout(make_repo, agent)
    before = tree(repo)
    shutil.copytree(repo, tmp_path / "copy", symlinks=True)
    # Codex refuses every `rm -f` form itself, in every approval mode (after the hooks ran), so
    # the Codex run removes the folder with `rm -r`: the same removal for pylon.
    command = "rm -rf src" if agent.name == "claude" else "rm -r src"
    result = agent.run(repo, [Bash(command), Text("removed")])
    assert result.code == 0, result
    assert not (repo / "src").exists()  # the command ran
    assert "`pylon ws undo` right after brings it all back" in agent.seen()
    undone = run_cmd("pylon", "ws", "undo", cwd=repo)
    assert undone.code == 0, undone
    assert tree(repo) == before
    assert tree(repo) == tree(tmp_path / "copy")


def test_an_irreversible_command_is_stopped_and_the_model_reads_why(
    make_repo: MakeRepo, agent: Agent, tmp_path: Path
) -> None:
    repo = checkout(make_repo, agent)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main")
    tip = git(remote, "rev-parse", "main")
    git(repo, "commit", "-q", "--amend", "-m", "rewritten")  # a force push would replace the remote's tip
    result = agent.run(repo, [Bash("git push --force origin main"), Text("stopped")])
    assert result.code == 0, result
    assert git(remote, "rev-parse", "main") == tip  # the push never ran
    assert (
        agent.count(
            "pylon guard: irreversible: `git push --force origin main` overwrites the remote's history (force push)"
        )
        >= 1
    ), agent.seen()[-3000:]


def test_safe_commands_pass_untouched(make_repo: MakeRepo, agent: Agent) -> None:
    repo = checkout(make_repo, agent)
    result = agent.run(
        repo, [Bash("echo hello > notes.txt && cat notes.txt && git status --short | wc -l"), Text("ok")]
    )
    assert result.code == 0, result
    assert (repo / "notes.txt").read_text() == "hello\n"
    assert agent.model is not None
    results = agent.model.tool_results()
    assert len(results) == 1 and "hello" in results[0], results
    assert "pylon" not in agent.seen()  # no note, no reason: pylon said nothing
    assert git(repo, "for-each-ref", "refs/pylon") == ""  # and wrote nothing into the repository


def later_work(agent: Agent, repo: Path) -> bytes:
    """A run that removes src/lib, then edits README.md and adds src/later.txt; src/lib's bytes."""
    util = (repo / "src/lib/util.py").read_bytes()
    result = agent.run(
        repo, [Bash("rm -r src/lib"), Bash("echo later >> README.md && echo new > src/later.txt"), Text("done")]
    )
    assert result.code == 0, result
    return util


def test_the_notes_restore_of_the_paths_keeps_later_work(make_repo: MakeRepo, agent: Agent) -> None:
    repo = checkout(make_repo, agent)
    util = later_work(agent, repo)
    argv = restore_command(agent.seen(), paths=True)
    assert argv[4:] == ["src/lib"], argv  # the note names what the command destroyed
    restored = run_cmd(*argv, cwd=repo)
    assert restored.code == 0, restored
    assert (repo / "src/lib/util.py").read_bytes() == util
    assert (repo / "README.md").read_text() == "readme\nlater\n"  # the work done after it stays
    assert (repo / "src/later.txt").read_text() == "new\n"


def test_the_notes_first_restore_keeps_later_work(make_repo: MakeRepo, agent: Agent) -> None:
    repo = checkout(make_repo, agent)
    util = later_work(agent, repo)
    restored = run_cmd(*restore_command(agent.seen()), cwd=repo)
    assert restored.code == 0, restored
    assert (repo / "src/lib/util.py").read_bytes() == util
    assert (repo / "README.md").read_text() == "readme\nlater\n"
    assert (repo / "src/later.txt").read_text() == "new\n"


def test_a_command_no_reading_understands_is_undone_by_the_agent_itself(make_repo: MakeRepo, agent: Agent) -> None:
    repo = checkout(make_repo, agent)
    before = tree(repo)
    script = "import shutil, sys; shutil.rmtree(sys.argv[1])"
    result = agent.run(
        repo, [Bash(f"python3 -c '{script}' src && sort -o README.md README.md"), Bash("pylon ws undo"), Text("done")]
    )
    assert result.code == 0, result
    assert tree(repo) == before  # pylon's own undo, run through the hooks, recorded no op of its own


@pytest.mark.parametrize("agent", ["claude"], indirect=True)
def test_claude_codes_batch_of_shell_calls_is_one_op_per_command(make_repo: MakeRepo, agent: Agent) -> None:
    """Claude Code gets no PostToolUse from pylon: each command's op ends at the next command's
    PreToolUse or the batch's PostToolBatch. Two destructive commands in one model turn are two ops,
    and each undo gives back exactly the state before its command (the client runs them one after
    another: its order of hooks is what this checks)."""
    repo = checkout(make_repo, agent)
    settings = (repo / ".claude" / "settings.json").read_text()
    assert "PostToolUse" not in settings and "PostToolBatch" in settings
    before = tree(repo)
    first = "python3 -c 'import shutil; shutil.rmtree(\"src/lib\")'"
    second = "sort -o README.md README.md && echo more >> README.md && rm -f src/run.sh"
    result = agent.run(repo, [Batch((first, second)), Text("done")])
    assert result.code == 0, result
    assert not (repo / "src/lib").exists() and not (repo / "src/run.sh").exists()  # both ran
    listed = run_cmd("pylon", "ws", "log", "--json", cwd=repo).json()["entries"]
    shells = [e["title"] for e in listed if e.get("op_kind") == "shell" and e["status"] == "done"]
    assert shells == [f"shell: {second}", f"shell: {first}"], listed  # newest first
    assert run_cmd("pylon", "ws", "undo", cwd=repo).code == 0
    middle = tree(repo)
    assert not (repo / "src/lib").exists() and (repo / "src/run.sh").exists() and middle != before
    assert run_cmd("pylon", "ws", "undo", cwd=repo).code == 0
    assert tree(repo) == before


@pytest.mark.parametrize("agent", ["codex"], indirect=True)
def test_codex_write_stdin_is_kept_and_undone(make_repo: MakeRepo, agent: Agent) -> None:
    repo = checkout(make_repo, agent)
    before = tree(repo)
    result = agent.run(repo, [Terminal(start="bash"), Terminal(chars="rm -r src; exit\n"), Text("done")])
    assert result.code == 0, result
    assert not (repo / "src").exists()  # typed into the terminal: no hook saw it
    # what was typed ran inside the terminal's `bash`: its op (Codex ends the exec_command when the
    # session exits), or, had no hook seen the session at all, an op of changes no hook saw
    listed = run_cmd("pylon", "ws", "log", "--json", cwd=repo).json()["entries"]
    ops = [e for e in listed if e["kind"] == "op" and e["status"] == "done"]
    assert ops and ops[0]["title"] in ("shell: bash", "outside: changes made between commands (no hook saw them)"), ops
    assert ops[0]["paths"] >= 4, ops
    undone = run_cmd("pylon", "ws", "undo", cwd=repo)
    assert undone.code == 0, undone
    assert tree(repo) == before


def test_through_the_resident_helper_every_command_is_kept_and_undone(
    make_repo: MakeRepo,
    agent: Agent,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same with the hook's resident helper on (pylon/hooks/helper.py): the first PreToolUse
    starts it, the later ones are answered by it; each command is undone, newest first, exactly."""
    from tests.agents.test_hook_helper import helper_pids

    monkeypatch.setenv("PYLON_HOOK_HELPER", "1")
    monkeypatch.setenv("PYLON_HOOK_HELPER_IDLE", "20")
    repo = checkout(make_repo, agent)
    before = tree(repo)
    helpers = agent.home / ".local" / "state" / "pylon" / "helpers"  # the client's hooks' state (clients.py)
    try:
        result = agent.run(
            repo,
            [
                Bash("python3 -c 'import shutil; shutil.rmtree(\"src/lib\")'"),
                Bash("sleep 1; echo more >> README.md"),
                Bash('python3 -c \'import os; os.remove("src/run.sh"); os.remove("src/.env")\''),
                Text("done"),
            ],
        )
        assert result.code == 0, result
        assert not (repo / "src/lib").exists() and not (repo / "src/run.sh").exists()  # they ran
        assert helper_pids(helpers), "no helper served the client"
        for _ in range(3):
            undone = run_cmd("pylon", "ws", "undo", cwd=repo)
            assert undone.code == 0, undone
        assert tree(repo) == before
    finally:
        for pid in helper_pids(helpers):
            os.killpg(pid, signal.SIGKILL)
