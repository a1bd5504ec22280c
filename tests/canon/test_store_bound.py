"""canon's store is bounded by the repository: the search for `.canon/` stops at the repository's
top (`.git`, a folder or a file), so a stray store above a repository never becomes its store; a
store outside comes only from a mount. A plain folder keeps the nearest `.canon/` above it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.agents.corpus import payload_text
from tests.canon.helpers import article, snapshot
from tests.conftest import git, run_cmd, write_files


@pytest.fixture
def stray(tmp_path: Path) -> Path:
    """A folder holding a store of its own (an article for `src/app`, a greeting, a broken article)."""
    outer = tmp_path / "outer"
    write_files(
        outer / ".canon",
        {
            "articles/src/app.md": article("The OUTER store's article."),
            "articles/src/core.md": article("Outer core."),
            "articles/broken.md": "---\ncapsule: [unclosed\n",
            "config.toml": "[surfacing]\ngreeting = true\n",
        },
    )
    (outer / ".canon" / "journal").mkdir()
    return outer


def _repo(folder: Path, files: dict[str, str | bytes] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q", "-b", "main")
    write_files(folder, files or {"src/app.py": "x = 1\n", "src/core/config.py": "a = 1\n"})
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "start")
    return folder


def _status(cwd: Path, env: dict[str, str] | None = None) -> dict[str, object]:
    r = run_cmd("canon", "status", "--json", cwd=cwd, env=env)
    assert r.code == 0, r
    return r.json()


def test_a_stray_store_above_a_repository_is_never_its_store(stray: Path) -> None:
    repo = _repo(stray / "work" / "repo")
    kept = snapshot(stray / ".canon")
    for where in (repo, repo / "src", repo / "src" / "core"):
        doc = _status(where)
        assert doc["root"] == str(repo) and doc["store"] == str(repo / ".canon") and doc["exists"] is False
    r = run_cmd("canon", "read", "src/app.py", cwd=repo)
    assert r.code == 1 and "error[no-article]" in r.err and "OUTER" not in r.out
    # `canon init` makes the repository's own store (it used to say "already exists")
    r = run_cmd("canon", "init", cwd=repo / "src")
    assert r.code == 0 and r.out.startswith("created .canon/\n"), r
    assert (repo / ".canon" / "schema.json").is_file()
    r = run_cmd("canon", "write", "src/app.py", "--capsule", "The repository's own.", "--body", "Inner.\n", cwd=repo)
    assert r.code == 0 and r.out == "Wrote src/app.\n", r
    r = run_cmd("canon", "read", "app.py", cwd=repo / "src")
    assert r.code == 0 and "The repository's own." in r.out and "OUTER" not in r.out
    r = run_cmd("canon", "journal", "Moved the flag parser.", "--subject", "src/app", cwd=repo)
    assert r.code == 0, r
    assert len(os.listdir(repo / ".canon" / "journal")) == 1
    # lint (and the pre-commit hooks, which run it at the top) see the repository's store alone
    r = run_cmd("canon", "lint", "--json", cwd=repo)
    assert r.code == 0 and r.json()["articles"] == 1 and not r.json()["findings"], r
    assert snapshot(stray / ".canon") == kept  # the outer store: not one byte changed


def test_a_write_under_a_stray_store_creates_the_repositorys_own(stray: Path) -> None:
    repo = _repo(stray / "repo")
    r = run_cmd("canon", "write", "app.py", "--capsule", "Own.", "--body", "Own.\n", cwd=repo / "src")
    assert r.code == 0 and "created .canon/" in r.err, r
    assert (repo / ".canon" / "articles" / "src" / "app.md").is_file()
    assert "Own." not in (stray / ".canon" / "articles" / "src" / "app.md").read_text()


def test_the_hooks_never_surface_a_stray_stores_articles(stray: Path) -> None:
    repo = _repo(stray / "repo")
    for name in ("claude-code-session-start", "claude-code-post-edit", "claude-code-stop"):
        r = run_cmd("pylon", "hook", "claude-code", cwd=repo, input=payload_text(name, repo))
        assert r.code == 0 and json.loads(r.out) == {}, (name, r)
    # with the repository's own store, its own articles (one, not the outer store's three)
    write_files(
        repo / ".canon",
        {"articles/src/core.md": article("Inner core."), "config.toml": "[surfacing]\ngreeting = true\n"},
    )
    r = run_cmd("pylon", "hook", "claude-code", cwd=repo, input=payload_text("claude-code-session-start", repo))
    assert "(1 article;" in json.loads(r.out)["hookSpecificOutput"]["additionalContext"], r
    r = run_cmd("pylon", "hook", "claude-code", cwd=repo, input=payload_text("claude-code-post-edit", repo))
    text = json.loads(r.out)["hookSpecificOutput"]["additionalContext"]
    assert "Inner core." in text and "Outer core." not in text


def test_a_linked_worktree_is_its_own_project(stray: Path) -> None:
    repo = _repo(stray / "repo")
    write_files(repo / ".canon", {"articles/src/app.md": article("Main checkout's.")})
    outside = stray / "wt-out"
    inside = repo / ".claude" / "worktrees" / "agent"  # where Claude Code puts its own worktrees
    git(repo, "worktree", "add", "-q", str(outside))
    git(repo, "worktree", "add", "-q", str(inside))
    assert (outside / ".git").is_file() and (inside / ".git").is_file()
    for wt in (outside, inside):
        doc = _status(wt / "src")
        assert doc["root"] == str(wt) and doc["exists"] is False, doc  # the store is not committed
        r = run_cmd("canon", "init", cwd=wt)
        assert r.code == 0 and (wt / ".canon" / "articles").is_dir(), r
    assert _status(repo)["articles"] == 1  # the main checkout keeps its own


def test_a_submodule_is_its_own_project(stray: Path, tmp_path: Path) -> None:
    lib = _repo(tmp_path / "lib-origin", {"lib.py": "L = 1\n"})
    repo = _repo(stray / "repo")
    write_files(repo / ".canon", {"articles/src/app.md": article("Superproject's.")})
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib")
    sub = repo / "vendor" / "lib"
    assert (sub / ".git").is_file()
    assert _status(sub)["root"] == str(sub)
    r = run_cmd("canon", "write", "lib.py", "--capsule", "The library.", "--body", "L.\n", cwd=sub)
    assert r.code == 0 and (sub / ".canon" / "articles" / "lib.md").is_file(), r
    assert not (repo / ".canon" / "articles" / "vendor").exists()


def test_a_plain_folder_keeps_the_nearest_store_above(stray: Path) -> None:
    plain = stray / "notes" / "deep"
    plain.mkdir(parents=True)
    doc = _status(plain)
    assert doc["root"] == str(stray) and doc["exists"] is True and doc["articles"] == 3
    bare = Path(str(stray.parent)) / "elsewhere"
    bare.mkdir()
    assert _status(bare)["root"] == str(bare)  # no store above, no repository: the folder itself


def test_a_configured_mount_outside_the_repository_still_works(stray: Path, tmp_path: Path) -> None:
    lake = tmp_path / "data" / "lake"
    write_files(lake, {".canon/articles/prices.md": article("Daily prices."), "prices.parquet": "x"})
    repo = _repo(stray / "repo")
    write_files(repo, {".canon/config.toml": 'mounts = ["../../data/lake"]\n', ".canon/articles/.keep": ""})
    r = run_cmd("canon", "read", "lake:prices", cwd=repo / "src")
    assert r.code == 0 and "Daily prices." in r.out, r
    r = run_cmd("canon", "write", "lake:raw", "--capsule", "Raw feed.", "--body", "Raw.\n", cwd=repo)
    assert r.code == 0 and (lake / ".canon" / "articles" / "raw.md").is_file(), r
    r = run_cmd("canon", "read", "src/app.py", "--mount", str(stray), cwd=repo)  # a store above, named as a mount
    assert r.code == 1 and "error[no-article]" in r.err, r  # src/app.py is the repository's, not the mount's
    r = run_cmd("canon", "read", "outer:src/app", "--mount", str(stray), cwd=repo)
    assert r.code == 0 and "OUTER" in r.out, r
    r = run_cmd("canon", "read", "../src/app.py", "--root", str(stray), cwd=repo)  # --root names it outright
    assert r.code == 0 and "OUTER" in r.out, r


def test_inherited_git_variables_do_not_move_the_boundary(stray: Path, tmp_path: Path) -> None:
    """A git hook exports GIT_DIR (and GIT_WORK_TREE, GIT_INDEX_FILE); canon finds the project by
    the folder's own `.git`, as every other part of pylon does (gitenv.py scrubs them for git)."""
    repo = _repo(stray / "repo")
    other = _repo(tmp_path / "other")
    env = {"GIT_DIR": str(other / ".git"), "GIT_WORK_TREE": str(other), "GIT_INDEX_FILE": str(other / ".git/index")}
    assert _status(repo / "src", env)["root"] == str(repo)
    plain = stray / "plain"
    plain.mkdir()
    assert _status(plain, {"GIT_DIR": str(other / ".git"), "GIT_WORK_TREE": str(plain)})["root"] == str(stray)


@pytest.mark.parametrize("kind", ["symlink", "gitfile-broken"])
def test_any_git_entry_marks_the_repositorys_top(stray: Path, tmp_path: Path, kind: str) -> None:
    """`.git` as a link to a git dir (a dotfiles layout), or a gitfile that git itself would refuse:
    the folder is a repository's top either way, never a folder to walk past."""
    top = stray / "repo"
    (top / "src").mkdir(parents=True)
    if kind == "symlink":
        real = _repo(tmp_path / "real")
        os.symlink(real / ".git", top / ".git")
    else:
        (top / ".git").write_text("gitdir: /nonexistent/worktrees/x\n")
    assert _status(top / "src")["root"] == str(top)


def test_the_board_sees_the_repositorys_store_alone(stray: Path) -> None:
    from pylon.serve.data import Board, meta

    repo = _repo(stray / "repo")
    assert meta(Board(str(repo)), {})["store"] is False
    (repo / ".canon").mkdir()
    assert meta(Board(str(repo)), {})["store"] is True


def test_the_search_is_one_function_used_by_every_entry_point() -> None:
    """The CLI and the board (open_project), the guard's hook (pylon.findroot, without importing
    pylon.canon): one search, so they always agree on where the store is."""
    import pylon.canon.store as store
    import pylon.findroot as findroot

    assert store.store_root is findroot.store_root
    source = Path(findroot.__file__).parent
    callers = sorted(
        str(p.relative_to(source)) for p in source.rglob("*.py") if "store_root(" in p.read_text(encoding="utf-8")
    )
    assert callers == ["canon/store.py", "findroot.py", "hooks/guard.py"]


def _pi_canon(script: Path, cwd: Path, calls: list[dict[str, object]]) -> list[str]:
    """pi-canon 0.3.0's own MCP server (run with tsx) started in `cwd`: the text of each tool call."""
    import subprocess

    from tests.canon.helpers import pi_canon_tsx

    lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}]
    lines += [
        {"jsonrpc": "2.0", "id": n + 1, "method": "tools/call", "params": {"name": "pi_canon", "arguments": c}}
        for n, c in enumerate(calls)
    ]
    proc = subprocess.run(
        [pi_canon_tsx(), str(script)],
        input="".join(json.dumps(x) + "\n" for x in lines),
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        env={**os.environ, "PI_CANON_CALLER": "mcp"},
    )
    answers = {d["id"]: d for d in map(json.loads, proc.stdout.splitlines())}
    return [answers[n + 1]["result"]["content"][0]["text"] for n in range(len(calls))]


def test_pi_canon_and_canon_agree_on_the_store_of_a_repository_under_a_stray_one(stray: Path, tmp_path: Path) -> None:
    """pi-canon takes `<cwd>/.canon` (no search at all); in a repository's top the two agree: the
    stray store above is neither's, and the store pi-canon writes there is the one canon reads."""
    from tests.canon.helpers import pi_canon_source

    (tmp_path / "pi").mkdir()
    folder = pi_canon_source(tmp_path / "pi", "plugins/pi-canon/core", "plugins/pi-canon/scripts", "package.json")
    server = folder / "plugins/pi-canon/scripts/pi-canon-mcp.mjs"
    repo = _repo(stray / "repo")
    before = _pi_canon(server, repo, [{"action": "read", "path": "src/app"}])
    assert before[0].startswith("No article governs") and "OUTER" not in before[0]
    assert run_cmd("canon", "read", "src/app.py", cwd=repo).code == 1
    _pi_canon(
        server,
        repo,
        [{"action": "write", "path": "src/app", "capsule": "Written by pi-canon.", "body": "From pi-canon.\n"}],
    )
    assert (repo / ".canon" / "articles" / "src" / "app.md").is_file()
    r = run_cmd("canon", "read", "app.py", cwd=repo / "src")
    assert r.code == 0 and "Written by pi-canon." in r.out, r
