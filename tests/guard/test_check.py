"""`pylon guard check` and `pylon guard explain` through the installed console script."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import MakeRepo
from tests.conftest import run_cmd as run


def repo(make_repo: MakeRepo) -> Path:
    return make_repo({"src/app.py": "x = 1\n", ".gitignore": ".env\n", ".env": "SECRET=1\n"})


def test_safe_command_exits_0_and_says_so(make_repo: MakeRepo) -> None:
    r = run("pylon", "guard", "check", "--command", "git status && npm test | tail", cwd=repo(make_repo))
    assert r.code == 0, r
    assert r.out.startswith("safe: git status")


def test_reversible_command_names_the_words_and_what_it_destroys(make_repo: MakeRepo) -> None:
    r = run("pylon", "guard", "check", "--command", "echo start\nrm -rf src/", cwd=repo(make_repo))
    assert r.code == 1, r
    assert r.out.splitlines()[0] == "reversible: echo start"
    assert "`rm -rf src/` removes src inside the checkout (line 2)" in r.out
    assert "it destroys: src" in r.out
    assert "hook answer: keep (allowed: the state before it is kept" in r.out


def test_the_description_fits_every_target_kind(make_repo: MakeRepo) -> None:
    """Each kind of target is worded as what it is (a `git checkout -- .` is not a `git clean`)."""
    root = repo(make_repo)
    cases = {
        "git checkout -- .": "the uncommitted changes of tracked files in .",
        "git restore src": "the uncommitted changes of tracked files in src",
        "git reset --hard": "every uncommitted change of tracked files (and the staged index)",
        "git clean -fdx": "the files `git clean -d -x -n` lists in .",
        "git clean -f src": "the files `git clean -n` lists in . below src",
        "find src -name '*.pyc' -delete": "the files `find src -name *.pyc -print` lists",
        "rm -rf src": "src",
    }
    for command, kept in cases.items():
        r = run("pylon", "guard", "check", "--command", command, cwd=root)
        assert f"  it destroys: {kept}\n" in r.out, (command, r.out)


def test_words_after_double_dash_are_one_command(make_repo: MakeRepo) -> None:
    r = run("pylon", "guard", "check", "--json", "--", "git", "push", "--force", "origin", "main", cwd=repo(make_repo))
    doc = r.json()
    assert r.code == 1 and doc["ok"] and doc["verdict"] == "irreversible"
    assert doc["commands"] == [["git", "push", "--force", "origin", "main"]]
    assert doc["reasons"][0]["words"] == "git push --force origin main"
    assert doc["action"] == "ask"


def test_tool_input_takes_the_bash_input_or_a_whole_event(make_repo: MakeRepo) -> None:
    root = repo(make_repo)
    plain = run("pylon", "guard", "check", "--json", "--tool-input", json.dumps({"command": "rm -f .env"}), cwd=root)
    event = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -f .env"}}
    whole = run("pylon", "guard", "check", "--json", "--tool-input", json.dumps(event), cwd=root)
    for r in (plain, whole):
        doc = r.json()
        assert doc["verdict"] == "reversible" and doc["targets"] == [{"kind": "path", "path": ".env"}], r


def test_unknown_is_reported_never_safe(make_repo: MakeRepo) -> None:
    r = run("pylon", "guard", "check", "--json", "--command", 'eval "$cmd"', cwd=repo(make_repo))
    assert r.code == 1 and r.json()["verdict"] == "unknown"
    assert r.json()["reasons"][0]["words"] == 'eval "$cmd"'


def test_no_command_or_two_commands_is_a_usage_error(make_repo: MakeRepo) -> None:
    root = repo(make_repo)
    none = run("pylon", "guard", "check", cwd=root)
    two = run("pylon", "guard", "check", "--json", "--command", "ls", "--", "ls", cwd=root)
    assert none.code == 2 and "error[guard-no-command]" in none.err and "hint: pylon guard check" in none.err
    assert two.code == 2 and two.json()["error"]["code"] == "guard-no-command"
    bad = run("pylon", "guard", "check", "--tool-input", "{not json", cwd=root)
    assert bad.code == 2 and "error[guard-bad-tool-input]" in bad.err and "Traceback" not in bad.err


def test_policy_files_and_explain(make_repo: MakeRepo, isolated_env: dict[str, str]) -> None:
    root = repo(make_repo)
    (root / ".pylon").mkdir()
    (root / ".pylon" / "guard.toml").write_text(
        '[verdicts]\nirreversible = "deny"\n\n[[rules]]\nmatch = ["git", "push", "**"]\naction = "allow"\n'
    )
    user = Path(isolated_env["XDG_CONFIG_HOME"]) / "pylon"
    user.mkdir(parents=True)
    (user / "guard.toml").write_text('[verdicts]\nirreversible = "allow"\nunknown = "deny"\n')
    push = run("pylon", "guard", "check", "--json", "--command", "git push -f origin main", cwd=root).json()
    rm = run("pylon", "guard", "check", "--json", "--command", "rm -rf /etc/x", cwd=root).json()
    dyn = run("pylon", "guard", "check", "--json", "--command", "$X", cwd=root).json()
    assert push["action"] == "allow" and "rule git push **" in push["policy"][0]
    assert rm["action"] == "deny"  # the project's setting wins over the user's
    assert dyn["action"] == "deny"  # the user's applies where the project says nothing
    text = run("pylon", "guard", "explain", cwd=root)
    assert text.code == 0
    assert f"irreversible deny     from {root / '.pylon' / 'guard.toml'}" in text.out
    assert f"unknown      deny     from {user / 'guard.toml'}" in text.out
    doc = run("pylon", "guard", "explain", "--json", cwd=root).json()
    assert doc["rules"][0]["match"] == ["git", "push", "**"] and doc["verdicts"]["reversible"]["action"] == "snapshot"


def test_invalid_policy_is_a_configuration_error(make_repo: MakeRepo) -> None:
    root = repo(make_repo)
    (root / ".pylon").mkdir()
    for text in ('[verdicts]\nirreversible = "maybe"\n', "not toml [", '[[rules]]\nmatch = "git"\naction = "allow"\n'):
        (root / ".pylon" / "guard.toml").write_text(text)
        r = run("pylon", "guard", "explain", cwd=root)
        assert r.code == 2 and "error[guard-policy-invalid]" in r.err and "Traceback" not in r.err, r


def test_the_printed_hook_answer_is_the_one_the_hook_gives(make_repo: MakeRepo) -> None:
    """`guard check` names the answer the hook gives, found the same way and writing nothing: a
    removal of a folder holding a nested repository or a FIFO is asked (no kept state holds them),
    one of ignored data over the `[keep]` budget too, anything else inside the checkout is allowed
    with its state kept. The real hook is the oracle."""
    import os

    from tests.conftest import git

    root = repo(make_repo)
    nested = root / "vendor" / "lib"
    nested.mkdir(parents=True)
    git(nested, "init", "-q")
    (nested / "x.c").write_text("int x;\n")
    (root / ".gitignore").write_text("big/\n")
    (root / "big").mkdir()
    (root / "big" / "blob.bin").write_bytes(os.urandom(4096))
    (root / "pipes").mkdir()
    os.mkfifo(root / "pipes" / "fifo")
    (root / ".pylon").mkdir()
    (root / ".pylon" / "guard.toml").write_text("[keep]\nignored_file_max = 2048\n")
    cases = {"rm -rf vendor": "ask", "rm -rf pipes": "ask", "rm -rf big": "ask", "rm -rf src": "keep"}
    for command, expected in cases.items():
        checked = run("pylon", "guard", "check", "--json", "--command", command, cwd=root).json()
        event = json.dumps(
            {
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "session_id": "s",
                "cwd": str(root),
                "tool_input": {"command": command},
            }
        )
        answer = run("pylon", "hook", "claude-code", cwd=root, input=event)
        out = answer.json() if answer.out.strip() else {}
        decision = out.get("hookSpecificOutput", {}).get("permissionDecision")
        hook_said = "keep" if "pylon ws undo` right after" in answer.out else decision
        assert (checked["action"], hook_said) == (expected, expected), (command, checked, out)
    text = run("pylon", "guard", "check", "--command", "rm -rf vendor", cwd=root).out
    assert "hook answer: ask (pylon cannot keep what this command would destroy" in text
    assert "vendor/lib/.git (a repository of its own)" in text
    text = run("pylon", "guard", "check", "--command", "rm -rf big", cwd=root).out
    assert "big/blob.bin (4096 bytes: over 2048 bytes)" in text, text
