"""`canon hook claude-code|codex` fed the documented payloads (tests/agents/payloads/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agents.corpus import names, payload_text
from tests.canon.conftest import MakeStore
from tests.canon.helpers import article
from tests.conftest import run_cmd


def hook(root: Path, name: str, session: str = "sess-1", env: dict[str, str] | None = None) -> dict:
    agent = "codex" if name.startswith("codex") else "claude-code"
    result = run_cmd("canon", "hook", agent, cwd=root, input=payload_text(name, root, session), env=env)
    assert result.code == 0, result
    return json.loads(result.out)


def context(doc: dict) -> str:
    return doc["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("name", names())
def test_every_payload_is_answered_with_one_json_object(store: Path, name: str) -> None:
    doc = hook(store, name)
    assert isinstance(doc, dict)
    if "hookSpecificOutput" in doc:
        assert doc["hookSpecificOutput"]["hookEventName"] == json.loads(payload_text(name, store))["hook_event_name"]


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
@pytest.mark.parametrize(
    "data",
    [
        "",
        "{",
        "[]",
        '"x"',
        '{"hook_event_name": "Nope"}',
        '{"hook_event_name": 5}',
        '{"hook_event_name": "PostToolUse", "tool_input": [1], "cwd": "/nonexistent"}',
        '{"hook_event_name": "Stop", "session_id": "../../etc"}',
    ],
)
def test_malformed_or_unknown_events_are_a_noop_never_a_block(store: Path, agent: str, data: str) -> None:
    result = run_cmd("canon", "hook", agent, cwd=store, input=data)
    assert result.code == 0 and json.loads(result.out) == {}, result
    assert "Traceback" not in result.err


def test_no_store_means_nothing_to_say(project: Path) -> None:
    (project / "a.py").write_text("")
    for name in ("claude-code-session-start", "claude-code-post-write", "claude-code-stop"):
        assert hook(project, name) == {}


def test_session_start_says_nothing_and_persists_the_session_for_claude_code(store: Path, tmp_path: Path) -> None:
    # pi-canon measured a greeting as harmful (first-pass correctness 25/32 -> 8/32): none by default.
    env_file = tmp_path / "claude-env.sh"
    assert hook(store, "claude-code-session-start", env={"CLAUDE_ENV_FILE": str(env_file)}) == {}
    assert env_file.read_text() == "export PYLON_SESSION=sess-1\n"
    assert hook(store, "codex-session-start") == {}


def test_the_greeting_is_an_option(store: Path) -> None:
    (store / ".canon" / "config.toml").write_text("[surfacing]\ngreeting = true\n")
    text = context(hook(store, "claude-code-session-start"))
    assert "2 articles" in text and "canon read PATH" in text and "canon write ADDRESS" in text
    assert context(hook(store, "codex-session-start"))  # Codex: the same orientation


def test_post_tool_use_surfaces_once_and_stop_reminds_once(store: Path) -> None:
    first = context(hook(store, "claude-code-post-edit"))
    assert "- src/core (updated 2026-01-03): Core: config and pool." in first
    assert hook(store, "claude-code-post-edit") == {}  # shown already this session
    stop = hook(store, "claude-code-stop")
    assert stop["decision"] == "block"
    assert "- src/core: src/core/config.py" in stop["reason"] and "src/app" not in stop["reason"]
    assert hook(store, "claude-code-stop") == {}  # settled: never twice
    hook(store, "claude-code-post-edit")  # the same set armed again...
    assert hook(store, "claude-code-stop") == {}  # ...is not named a second time


def test_reading_does_not_arm_the_reminder(store: Path) -> None:
    assert "src/app (updated" in context(hook(store, "claude-code-post-read"))
    assert hook(store, "claude-code-stop") == {}


def test_bash_paths_are_surfaced_and_sed_in_place_arms(store: Path) -> None:
    doc = hook(store, "claude-code-post-bash")
    assert "src/core (updated" in context(doc)
    assert "src/core: src/core/config.py" in hook(store, "claude-code-stop")["reason"]


def _bash(store: Path, command: str) -> None:
    raw = json.loads(payload_text("claude-code-post-bash", store, "sess-1"))
    raw["tool_input"]["command"] = command
    result = run_cmd("canon", "hook", "claude-code", cwd=store, input=json.dumps(raw))
    assert result.code == 0, result


@pytest.mark.parametrize(
    "command",
    [
        "true || canon write src/core --capsule 'Core: config, pool.' --body-file notes.md",  # never ran
        "canon write src/core --capsule 'Core: config, pool.' --body-file missing.md",  # fails: no such file
        "echo canon write src/core",
    ],
)
def test_command_text_never_settles_the_article(store: Path, command: str) -> None:
    hook(store, "claude-code-post-edit")
    if "missing.md" in command:
        assert run_cmd("bash", "-c", command, cwd=store).code != 0  # what the agent's shell saw
    _bash(store, command)
    assert "- src/core: src/core/config.py" in hook(store, "claude-code-stop")["reason"]


@pytest.mark.parametrize(
    "command",
    [
        "git checkout -- src/core/config.py",
        "git rm -q src/core/config.py",
        "perl -pi -e 's/1/2/' src/core/config.py",
        "git mv src/core/config.py src/cfg.py",
    ],
)
def test_shell_writes_of_every_common_form_arm_the_reminder(store: Path, command: str) -> None:
    _bash(store, command)
    assert "- src/core: src/core/config.py" in hook(store, "claude-code-stop")["reason"]


def test_the_article_file_changing_settles_it_whatever_wrote_it(store: Path) -> None:
    hook(store, "claude-code-post-edit")
    # Written in another shell (no session, no hook saw a command): the file changed, so it is updated.
    wrote = run_cmd("canon", "write", "src/core", "--capsule", "Core: config, pool, retries.", cwd=store)
    assert wrote.code == 0, wrote
    assert hook(store, "claude-code-stop") == {}
    # A later asset change starts a new obligation from the article as it is now.
    hook(store, "claude-code-post-edit")
    assert "- src/core: src/core/config.py" in hook(store, "claude-code-stop")["reason"]


def test_canon_read_with_the_persisted_session_marks_seen(store: Path) -> None:
    assert run_cmd("canon", "read", "src/app.py", cwd=store, env={"PYLON_SESSION": "sess-1"}).code == 0
    assert hook(store, "claude-code-post-read") == {}


def test_codex_apply_patch_surfaces_and_arms_each_file(store: Path) -> None:
    text = context(hook(store, "codex-post-apply-patch"))
    assert "src/core (updated" in text
    stop = hook(store, "codex-stop")
    assert stop["decision"] == "block"
    assert "src/core: src/core/config.py" in stop["reason"]
    assert "src/app" not in stop["reason"]  # src/new_mod.py is governed by no article here


def test_post_tool_batch_surfaces_every_call(store: Path) -> None:
    text = context(hook(store, "claude-code-post-batch"))
    assert "src/app (updated" in text and "src/core (updated" in text


def _session_start(store: Path, source: str, agent: str = "claude-code") -> None:
    raw = json.loads(payload_text(f"{agent}-session-start", store, "sess-1"))
    raw["source"] = source
    result = run_cmd("canon", "hook", agent, cwd=store, input=json.dumps(raw))
    assert result.code == 0 and json.loads(result.out) == {}, result  # a new cycle surfaces nothing by itself


@pytest.mark.parametrize("source", ["compact", "clear", "startup"])
def test_compact_clear_and_startup_begin_a_new_cycle(store: Path, source: str) -> None:
    assert "src/app (updated" in context(hook(store, "claude-code-post-read"))
    assert hook(store, "claude-code-post-read") == {}  # at most once per cycle
    _session_start(store, source)
    assert "src/app (updated" in context(hook(store, "claude-code-post-read"))  # the next touch shows it again
    assert hook(store, "claude-code-post-read") == {}


def test_resume_stays_in_the_cycle(store: Path) -> None:
    assert "src/app (updated" in context(hook(store, "claude-code-post-read"))
    _session_start(store, "resume")
    assert hook(store, "claude-code-post-read") == {}


def test_mcp_tools_surface_and_writing_ones_arm(store: Path) -> None:
    raw = json.loads(payload_text("codex-post-bash", store, "sess-1"))
    raw["tool_name"] = "mcp__docs__lookup"
    raw["tool_input"] = {"query": "flags", "file": "src/app.py"}
    result = run_cmd("canon", "hook", "codex", cwd=store, input=json.dumps(raw))
    assert "src/app (updated" in json.loads(result.out)["hookSpecificOutput"]["additionalContext"]
    assert hook(store, "codex-stop") == {}  # a lookup names a path but changes nothing
    raw["tool_name"] = "mcp__filesystem__write_file"
    raw["tool_input"] = {"path": str(store / "src/core/config.py"), "content": "a = 2\n"}
    result = run_cmd("canon", "hook", "codex", cwd=store, input=json.dumps(raw))
    assert "src/core (updated" in json.loads(result.out)["hookSpecificOutput"]["additionalContext"]
    assert "src/core: src/core/config.py" in hook(store, "codex-stop")["reason"]


def test_waiting_capsules_come_with_a_call_that_names_no_path(make_store: MakeStore) -> None:
    # A packet is bounded (message_chars); what does not fit waits, and the next tool call delivers
    # it even when that call names no path at all.
    root = make_store(
        articles={f"m{i}": article("c" * 100 + f" {i}") for i in range(3)},
        files={**{f"m{i}.py": "" for i in range(3)}, ".canon/config.toml": "[surfacing]\nmessage_chars = 400\n"},
    )
    raw = json.loads(payload_text("claude-code-post-batch", root, "sess-1"))
    raw["tool_calls"] = [
        {"tool_name": "Read", "tool_input": {"file_path": f"{root}/m{i}.py"}, "tool_use_id": f"t{i}"} for i in range(3)
    ]
    first = json.loads(run_cmd("canon", "hook", "claude-code", cwd=root, input=json.dumps(raw)).out)
    assert "more waiting" in context(first)
    raw["tool_calls"] = [{"tool_name": "TodoWrite", "tool_input": {"todos": []}, "tool_use_id": "t9"}]
    for left in ("m1", "m2"):
        rest = json.loads(run_cmd("canon", "hook", "claude-code", cwd=root, input=json.dumps(raw)).out)
        assert f"- {left} (updated" in context(rest)
    assert json.loads(run_cmd("canon", "hook", "claude-code", cwd=root, input=json.dumps(raw)).out) == {}


def test_hook_uses_the_event_cwd_not_the_process_cwd(store: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run_cmd("canon", "hook", "claude-code", cwd=elsewhere, input=payload_text("claude-code-post-read", store))
    assert "src/app (updated" in json.loads(result.out)["hookSpecificOutput"]["additionalContext"]


def test_pre_tool_use_is_a_noop(store: Path) -> None:
    assert hook(store, "claude-code-pre-bash") == {} and hook(store, "codex-pre-bash") == {}


def test_articles_edited_directly_count_as_written(store: Path) -> None:
    hook(store, "claude-code-post-edit")
    raw = json.loads(payload_text("claude-code-post-edit", store, "sess-1"))
    article_file = store / ".canon" / "articles" / "src" / "core.md"
    raw["tool_input"]["file_path"] = str(article_file)
    # An Edit event whose edit left the file as it was settles nothing...
    assert run_cmd("canon", "hook", "claude-code", cwd=store, input=json.dumps(raw)).code == 0
    assert "src/core" in hook(store, "claude-code-stop")["reason"]
    # ...the same event after the file really changed does.
    hook(store, "claude-code-post-edit")
    article_file.write_text(article_file.read_text() + "Pool size is now read from the environment.\n")
    assert run_cmd("canon", "hook", "claude-code", cwd=store, input=json.dumps(raw)).code == 0
    assert hook(store, "claude-code-stop") == {}
