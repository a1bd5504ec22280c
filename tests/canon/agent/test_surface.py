"""`canon surface` / `canon settle` through the installed command: once per session, the budget,
the message cap, the reminder, and the marks `canon read` / `canon write` set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article
from tests.conftest import Result, run_cmd


def env(session: str = "s1") -> dict[str, str]:
    return {"PYLON_SESSION": session}


@pytest.fixture
def store(make_store: MakeStore) -> Path:
    return make_store(
        articles={
            "src/app": article("Entry point; parses flags.", updated="2026-01-02"),
            "src/core": article("Core: config and pool.", updated="2026-01-03"),
            "docs": article(None, body="No capsule here.\n"),
        },
        files={"src/app.py": "x\n", "src/core/config.py": "y\n", "docs/intro.md": "z\n", "README.md": "r\n"},
    )


def surface(root: Path, *args: str, session: str = "s1") -> Result:
    return run_cmd("canon", "surface", *args, cwd=root, env=env(session))


def test_each_article_is_shown_once_per_session(store: Path) -> None:
    first = surface(store, "src/app.py", "src/core/config.py")
    assert first.code == 0, first
    assert "- src/app (updated 2026-01-02): Entry point; parses flags." in first.out
    assert "- src/core (updated 2026-01-03): Core: config and pool." in first.out
    again = surface(store, "src/app.py", "src/core/config.py")
    assert again.code == 0 and again.out == ""
    other = surface(store, "src/app.py", session="s2")  # another session sees it again
    assert "src/app (updated" in other.out


def test_json_document_and_ungoverned_paths(store: Path) -> None:
    doc = surface(store, "src/app.py", "README.md", "docs/intro.md", "--json").json()
    assert doc["ok"] and doc["shown"] == ["src/app"] and doc["pointers"] == ["docs"]
    assert doc["ungoverned"] == ["README.md"] and doc["waiting"] == 0 and doc["session"] == "s1"
    assert "docs (updated 2020-01-01): no capsule; read it: canon read docs" in doc["message"]


def test_budget_then_pointer_lines(make_store: MakeStore) -> None:
    capsule = "c" * 900
    root = make_store(
        articles={f"m{i}": article(capsule + str(i)) for i in range(6)}, files={f"m{i}.py": "" for i in range(6)}
    )
    shown: list[str] = []
    pointers: list[str] = []
    for i in range(6):
        doc = surface(root, f"m{i}.py", "--json").json()
        shown += doc["shown"]
        pointers += doc["pointers"]
    assert shown == ["m0", "m1", "m2", "m3"]  # 4 x 901 characters fit in 4000; the fifth does not
    assert pointers == ["m4", "m5"]
    last = surface(root, "m5.py", session="fresh")
    assert capsule in last.out
    pointer = run_cmd("canon", "surface", "m4.py", cwd=root, env=env("s9"))
    assert pointer.code == 0
    status = run_cmd("canon", "status", "--json", cwd=root, env=env()).json()
    assert status["surfacing"]["spent"] == 4 * 901 and status["surfacing"]["budget"] == 4000
    assert status["surfacing"]["shown"] == 6


def test_message_cap_leaves_the_rest_waiting_and_says_how_many(make_store: MakeStore) -> None:
    root = make_store(
        articles={f"a{i}": article(f"capsule {i} " + "w" * 380) for i in range(8)},
        files={f"a{i}.py": "" for i in range(8)},
    )
    first = surface(root, *[f"a{i}.py" for i in range(8)], "--json").json()
    assert len(first["message"]) <= 2000
    assert first["waiting"] == 8 - len(first["shown"]) > 0
    assert f"({first['waiting']} more waiting" in first["message"]
    second = surface(root, "--json").json()  # no path: what waits comes next
    assert set(first["shown"]).isdisjoint(second["shown"])
    assert len(first["shown"]) + len(second["shown"]) + second["waiting"] == 8


def test_config_changes_the_limits(make_store: MakeStore) -> None:
    root = make_store(
        articles={"a": article("x" * 50), "b": article("y" * 50)},
        files={"a.py": "", "b.py": "", ".canon/config.toml": "[surfacing]\nsession_budget = 60\n"},
    )
    doc = surface(root, "a.py", "b.py", "--json").json()
    assert doc["shown"] == ["a"] and doc["pointers"] == ["b"]


def test_tool_input_paths_whole_values_and_command_tokens(store: Path) -> None:
    edit = json.dumps({"file_path": str(store / "src" / "core" / "new_file.py"), "old_string": "src/app.py"})
    doc = surface(store, "--tool-input", edit, "--json").json()
    assert doc["shown"] == ["src/core"]  # the new file's folder exists; old_string is content, not a path
    bash = json.dumps({"command": "grep -n flags src/app.py | head -3 && cat 'docs/intro.md'"})
    doc = surface(store, "--tool-input", bash, "--json").json()
    assert doc["shown"] == ["src/app"] and doc["pointers"] == ["docs"]
    bad = surface(store, "--tool-input", "{nope")
    assert bad.code == 2 and "error[bad-tool-input]" in bad.err
    both = surface(store, "src/app.py", "--tool-input", "{}")
    assert both.code == 2 and "error[usage]" in both.err


def test_changed_arms_settle_which_names_each_article_once(store: Path) -> None:
    surface(store, "--changed", "src/app.py", "src/core/config.py")
    surface(store, "src/core/config.py")  # touched again, not changed: nothing new to arm
    first = run_cmd("canon", "settle", "--json", cwd=store, env=env()).json()
    assert [a["address"] for a in first["articles"]] == ["src/app", "src/core"]
    assert first["articles"][1]["paths"] == ["src/core/config.py"] and not first["repeated"]
    text = run_cmd("canon", "settle", cwd=store, env=env())
    assert text.code == 0 and text.out == "" and "no article waits" in text.err  # the list was cleared


def test_write_settles_and_read_marks_seen(store: Path) -> None:
    surface(store, "--changed", "src/app.py", "src/core/config.py")
    wrote = run_cmd("canon", "write", "src/core", "--capsule", "Core: config, pool, retries.", cwd=store, env=env())
    assert wrote.code == 0, wrote
    doc = run_cmd("canon", "settle", "--json", cwd=store, env=env()).json()
    assert [a["address"] for a in doc["articles"]] == ["src/app"]
    assert run_cmd("canon", "read", "docs/intro.md", cwd=store, env=env("s3")).code == 0
    assert surface(store, "docs/intro.md", "--json", session="s3").json()["pointers"] == []  # read: seen


def test_state_is_per_project(make_store: MakeStore, tmp_path: Path) -> None:
    one = make_store(articles={"a": article("One.")}, files={"a.py": ""})
    two = make_store(articles={"a": article("Two.")}, files={"a.py": ""}, root=tmp_path / "two")
    assert "One." in surface(one, "a.py").out
    assert "Two." in surface(two, "a.py").out
    assert surface(one, "a.py").out == ""


def test_a_corrupt_state_file_counts_as_a_fresh_session(store: Path) -> None:
    surface(store, "src/app.py")
    state_root = Path(run_cmd("sh", "-c", "echo $XDG_STATE_HOME").out.strip()) / "pylon" / "canon" / "sessions" / "s1"
    (state_file,) = state_root.glob("*.json")
    state_file.write_text("{torn")
    assert "src/app (updated" in surface(store, "src/app.py").out


def test_bad_session_name_is_a_usage_error(store: Path) -> None:
    bad = run_cmd("canon", "surface", "src/app.py", cwd=store, env={"PYLON_SESSION": "a/b"})
    assert bad.code == 2 and "error[bad-session]" in bad.err
