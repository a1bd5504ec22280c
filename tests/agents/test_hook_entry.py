"""`pylon hook AGENT`: one entry per event in the settings for guard and canon together, installed in
place (Codex keys trust by position), older installs migrated, answers combined in the agent's
format, and only what the event needs imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pylon.cli.spec import Command
from tests.agents.corpus import payload_text
from tests.conftest import MakeRepo, script
from tests.conftest import run_cmd as run

# A user's hooks.json: their groups before and after pylon's (written by an older pylon as two
# separate commands), on the events pylon uses and on one it does not.
OLD_CODEX = {
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "user-before"}]},
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "pylon guard hook codex", "timeout": 30}]},
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "user-after"}]},
        ],
        "SessionStart": [{"hooks": [{"type": "command", "command": "canon hook codex", "timeout": 10}]}],
        "PostToolUse": [
            {"hooks": [{"type": "command", "command": "user-post"}]},
            {"hooks": [{"type": "command", "command": "canon hook codex", "timeout": 10}]},
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "user-post-after"}]},
        ],
        "Stop": [
            {"hooks": [{"type": "command", "command": "canon hook codex", "timeout": 10}]},
            {"hooks": [{"type": "command", "command": "user-stop"}]},
        ],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "user-prompt"}]}],
    }
}


def positions(data: dict) -> dict[str, tuple[str, int, int]]:
    """command -> (event, group index, handler index): what Codex keys a hook's trust by."""
    return {
        h["command"]: (event, g, i)
        for event, groups in data.get("hooks", {}).items()
        for g, group in enumerate(groups)
        for i, h in enumerate(group["hooks"])
    }


def users(data: dict) -> dict[str, tuple[str, int, int]]:
    return {c: p for c, p in positions(data).items() if c.startswith("user-")}


def pylon_handlers(data: dict) -> list[tuple[str, str]]:
    return [
        (event, h["command"])
        for event, groups in data["hooks"].items()
        for group in groups
        for h in group["hooks"]
        if not h["command"].startswith("user-")
    ]


def test_codex_install_migrates_in_place_and_never_moves_the_users_hooks(make_repo: MakeRepo) -> None:
    root = make_repo({"a.txt": "a\n"})
    path = root / ".codex" / "hooks.json"
    path.parent.mkdir()
    path.write_text(json.dumps(OLD_CODEX, indent=2) + "\n")
    theirs = users(OLD_CODEX)
    assert run("pylon", "guard", "install", "codex", cwd=root).code == 0
    data = json.loads(path.read_text())
    assert users(data) == theirs
    # one command per event, where the old ones stood; the guard's matcher now reaches apply_patch
    assert sorted(pylon_handlers(data)) == sorted(
        (e, "pylon hook codex") for e in ("PreToolUse", "SessionStart", "PostToolUse", "Stop")
    )
    assert positions(data)["pylon hook codex"] and data["hooks"]["PreToolUse"][1]["matcher"] == "Bash|apply_patch"
    assert data["hooks"]["PostToolUse"][1] == {
        "hooks": [{"type": "command", "command": "pylon hook codex", "timeout": 10}]
    }
    first = path.read_bytes()
    for argv in (("pylon", "guard", "install", "codex"), ("canon", "hook", "install", "codex")):
        assert run(*argv, cwd=root).code == 0 and path.read_bytes() == first  # byte-identical
    # removing the guard keeps canon, and the user's hooks keep their places (an empty group holds it)
    assert run("pylon", "guard", "uninstall", "codex", cwd=root).code == 0
    data = json.loads(path.read_text())
    assert users(data) == theirs and data["hooks"]["PreToolUse"][1] == {"hooks": []}
    assert ("Stop", "pylon hook codex") in pylon_handlers(data)
    assert all(event != "PreToolUse" for event, _ in pylon_handlers(data))
    # installing again takes the same place back
    assert run("pylon", "guard", "install", "codex", cwd=root).code == 0 and path.read_bytes() == first
    assert run("canon", "hook", "uninstall", "codex", cwd=root).code == 0
    assert run("pylon", "guard", "uninstall", "codex", cwd=root).code == 0
    data = json.loads(path.read_text())
    assert users(data) == theirs and not [h for h in positions(data) if not h.startswith("user-")]
    assert "SessionStart" not in data["hooks"]  # an event pylon alone used is gone


def test_claude_code_gets_one_command_per_event_and_each_part_uninstalls_alone(make_repo: MakeRepo) -> None:
    root = make_repo({"a.txt": "a\n"})
    path = root / ".claude" / "settings.json"
    assert run("canon", "hook", "install", "claude-code", cwd=root).code == 0
    assert run("pylon", "guard", "install", "claude-code", cwd=root).code == 0
    data = json.loads(path.read_text())
    assert sorted(pylon_handlers(data)) == sorted(
        (e, "pylon hook claude-code") for e in ("PreToolUse", "SessionStart", "PostToolBatch", "Stop")
    )
    assert data["hooks"]["PreToolUse"][0]["matcher"] == "Bash|Write|Edit|MultiEdit|NotebookEdit"
    # no PostToolUse: the op of a shell command is recorded at the agent's next command or the batch's end
    assert "PostToolUse" not in data["hooks"]
    assert run("canon", "hook", "uninstall", "claude-code", cwd=root).code == 0
    assert sorted(pylon_handlers(json.loads(path.read_text()))) == [
        ("PostToolBatch", "pylon hook claude-code"),  # the guard's own now: the op at the batch's end
        ("PreToolUse", "pylon hook claude-code"),
    ]
    assert run("pylon", "guard", "uninstall", "claude-code", cwd=root).code == 0
    assert not json.loads(path.read_text()).get("hooks")  # nothing of pylon's is left


def test_a_claude_code_install_of_the_guard_before_the_batch_op_loses_its_post_tool_use(make_repo: MakeRepo) -> None:
    """Settings an older pylon wrote (the guard's op on PostToolUse Bash): installing again leaves one
    handler per event and none on PostToolUse, so no shell call pays a third hook process."""
    root = make_repo({"a.txt": "a\n"})
    path = root / ".claude" / "settings.json"
    path.parent.mkdir()
    hook = [{"type": "command", "command": "pylon hook claude-code", "timeout": 10}]
    old = {
        "PreToolUse": [{"matcher": "Bash|Write|Edit|MultiEdit|NotebookEdit", "hooks": hook}],
        "PostToolUse": [{"matcher": "Bash", "hooks": hook}],
    }
    path.write_text(json.dumps({"hooks": old}))
    assert run("pylon", "guard", "install", "claude-code", cwd=root).code == 0
    assert sorted(pylon_handlers(json.loads(path.read_text()))) == [
        ("PostToolBatch", "pylon hook claude-code"),
        ("PreToolUse", "pylon hook claude-code"),
    ]


def test_combine_keeps_the_strictest_decision_and_joins_the_texts() -> None:
    from pylon.hooks.entry import combine

    guard = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "pylon guard: irreversible",
        }
    }
    canon = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "additionalContext": "capsule",
        },
        "systemMessage": "seen",
    }
    both = combine([guard, {}, canon])
    assert both == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "pylon guard: irreversible",
            "additionalContext": "capsule",
        },
        "systemMessage": "seen",
    }
    assert combine([{"decision": "block", "reason": "a"}, {"decision": "block", "reason": "b"}]) == {
        "decision": "block",
        "reason": "a\nb",
    }
    assert combine([]) == {} and combine([{}, guard]) == guard


def test_the_entry_routes_each_event_to_its_part(make_repo: MakeRepo) -> None:
    root = make_repo({"src/app.py": "x = 1\n"})
    assert run("canon", "init", cwd=root).code == 0
    for agent, name in (("claude-code", "claude-code-pre-bash"), ("codex", "codex-pre-bash")):
        doc = json.loads(payload_text(name, root))
        doc["tool_input"]["command"] = "git reset --hard"
        r = run("pylon", "hook", agent, cwd=root, input=json.dumps(doc))
        assert r.code == 0 and "pylon ws undo" in json.loads(r.out)["hookSpecificOutput"]["additionalContext"], r
        assert (
            json.loads(
                run("pylon", "hook", agent, cwd=root, input=payload_text(name.replace("pre-bash", "stop"), root)).out
            )
            == {}
        )  # canon: nothing to settle
    # the old commands stay as aliases, each answering for its own part only
    stop = payload_text("codex-stop", root)
    assert run("pylon", "guard", "hook", "codex", cwd=root, input=stop).out == ""
    assert json.loads(run("canon", "hook", "codex", cwd=root, input=stop).out) == {}


@pytest.mark.parametrize("agent,decision", [("claude-code", "ask"), ("codex", "deny")])
@pytest.mark.parametrize(
    "event",
    [
        '{"tool_name": "Bash", "tool_input": {"command": "rm -rf src"}}',
        '{"hook_event_name": "PreToolUse", "tool_input": {"command": "rm -rf src"}}',
        '{"hook_event_name": "PreToolUse", "tool_name": "Bash"}',
        "not json",
        "",
    ],
)
def test_an_event_missing_fields_is_refused_in_the_agents_format(
    make_repo: MakeRepo, agent: str, decision: str, event: str
) -> None:
    root = make_repo({"src/app.py": "x = 1\n"})
    r = run("pylon", "hook", agent, cwd=root, input=event)
    out = json.loads(r.out)["hookSpecificOutput"]
    assert r.code == 0 and out["permissionDecision"] == decision and "not checked" in out["permissionDecisionReason"]


def test_a_typo_in_the_agent_is_a_usage_error() -> None:
    r = run("pylon", "hook", "codx", input="{}")
    assert r.code == 2 and r.out == "" and "did you mean codex?" in r.err


def test_the_fast_path_answers_what_the_registry_declares() -> None:
    from pylon.cli import hook
    from pylon.cli.commands import AGENTS, lookup

    assert hook.AGENTS == AGENTS
    for agent in AGENTS:  # `pylon hook AGENT`: one command per agent beside `hook install|uninstall`
        declared = lookup(f"hook {agent}")
        assert isinstance(declared, Command) and declared.handler == f"pylon.cli.hook:hook_{agent.replace('-', '_')}"
        assert not declared.args


def _imports(argv: list[str], cwd: Path, event: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", script("pylon"), *argv],
        cwd=cwd,
        input=event,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    return {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}


def test_each_event_imports_only_its_part(make_repo: MakeRepo) -> None:
    root = make_repo({"a.txt": "a\n"})
    assert run("canon", "init", cwd=root).code == 0
    doc = json.loads(payload_text("claude-code-pre-bash", root))
    doc["tool_input"]["command"] = "git status && ls"
    shell = _imports(["hook", "claude-code"], root, json.dumps(doc))
    assert {"pylon.guard.shell", "pylon.native"} <= shell
    # the state before it is kept (pylon.workspace.keep and the capture), but nothing of canon, the
    # command registry, the ops that change a checkout, or the policy (read only when a file exists)
    assert {"pylon.workspace.keep.chain", "pylon.workspace.state"} <= shell
    assert not {
        n
        for n in shell
        if n.startswith(
            (
                "pylon.canon",
                "pylon.cli.commands",
                "pylon.cli.argv",
                "pylon.workspace.ops.restore",
                "pylon.workspace.ops.undo",
                "pylon.workspace.worktrees",
                "pylon.guard.policy",
                "sqlglot",
                "yaml",
            )
        )
    }
    stop = _imports(["hook", "claude-code"], root, payload_text("claude-code-stop", root))
    assert "pylon.canon.agent.hook" in stop and not {
        n for n in stop if n.startswith(("tree_sitter", "pylon.guard", "pylon.cli.commands"))
    }
