"""Every MCP tool reaches only the project (pylon/boundary.py, docs/boundary.md).

Each tool is probed with what a model could pass: absolute paths, `..`, symlinks inside the project
leading out (to a file and to a folder), `body_file`/`ops_file` outside, `root`/`mount`
arguments, Codex's `sandboxCwd`, a store above the project; each is refused with `path-outside`,
and nothing outside changes. The same calls inside the project, and the CLI used by a person, work.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeRepo, run_cmd, script
from tests.mcp.wire import tool_calls

SECRET = "secret-outside-the-project\n"


@pytest.fixture
def world(make_repo: MakeRepo, tmp_path: Path) -> dict[str, Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    (outside / "ops.txt").write_text("replace 1\n+pwned = 1\n")
    root = make_repo({"src/app.py": "print('hi')\n", "README.md": "top\n"})
    (root / "src" / "out").symlink_to(outside)  # a folder link leading out
    (root / "src" / "pw").symlink_to(outside / "secret.txt")  # a file link leading out
    (root / "src" / "app_link.py").symlink_to("app.py")  # a link that stays inside
    assert run_cmd("canon", "write", "src/app.py", "--capsule", "Entry point.", "--body", "Prints.", cwd=root).code == 0
    return {"root": root, "outside": outside, "tmp": tmp_path}


def outside_state(outside: Path) -> dict[str, bytes]:
    return {str(p.relative_to(outside)): p.read_bytes() for p in sorted(outside.rglob("*")) if p.is_file()}


def refused(doc: dict[str, Any], reason: str | None = None) -> None:
    assert doc["ok"] is False and doc["error"]["code"] == "path-outside", doc
    if reason:
        assert doc["error"]["reason"] == reason, doc
    assert SECRET.strip() not in json.dumps(doc)


def test_read_reaches_only_the_project(world: dict[str, Path]) -> None:
    root, outside = world["root"], world["outside"]
    docs = tool_calls(
        root,
        [
            ("read", {"path": str(outside / "secret.txt")}),
            ("read", {"path": "/etc/passwd"}),
            ("read", {"path": "../outside/secret.txt"}),
            ("read", {"path": "src/../../outside/secret.txt"}),
            ("read", {"path": "../../../../../../../../etc/passwd"}),
            ("read", {"path": "src/pw"}),
            ("read", {"path": "src/out/secret.txt"}),
            ("read", {"path": ".git/config"}),
            ("read", {"path": "src/app.py"}),
            ("read", {"path": str(root / "src/app.py")}),
            ("read", {"path": "src/app_link.py"}),
            ("read", {"path": "src/../README.md"}),
        ],
    )
    for doc, reason in zip(
        docs, ["absolute", "absolute", "dotdot", "dotdot", "dotdot", "symlink-outside", "symlink-outside", "git-dir"]
    ):
        refused(doc, reason)
    for doc in docs[8:11]:
        assert doc["ok"] is True and doc["lines"] == [[1, "print('hi')"]], doc
    assert docs[11]["lines"] == [[1, "top"]]


def test_edit_and_create_write_nothing_outside(world: dict[str, Path]) -> None:
    root, outside = world["root"], world["outside"]
    before = outside_state(outside)
    ops = "replace 1\n+pwned = 1\n"
    docs = tool_calls(
        root,
        [
            ("edit", {"target": str(outside / "secret.txt"), "tag": "0" * 12, "ops": ops}),
            ("edit", {"target": "../outside/secret.txt", "tag": "0" * 12, "ops": ops}),
            ("edit", {"target": "src/pw", "tag": "0" * 12, "ops": ops}),
            ("edit", {"target": "src/out/secret.txt", "tag": "0" * 12, "ops": ops}),
            ("edit", {"target": str(outside / "new.py"), "create": True, "ops": "insert after 0\n+x = 1\n"}),
            ("edit", {"target": "../outside/new.py", "create": True, "ops": "insert after 0\n+x = 1\n"}),
            ("edit", {"target": "src/out/new.py", "create": True, "ops": "insert after 0\n+x = 1\n"}),
            ("edit", {"target": "src/out/deeper/new.py", "create": True, "ops": "insert after 0\n+x = 1\n"}),
            ("edit", {"target": ".git/hooks/pre-commit", "create": True, "ops": "insert after 0\n+x = 1\n"}),
            ("edit", {"target": "src/app.py", "tag": "0" * 12, "ops_file": str(outside / "ops.txt")}),
            ("edit", {"target": "src/app.py", "tag": "0" * 12, "ops_file": "src/out/ops.txt"}),
            ("edit", {"target": "src/new.py", "create": True, "ops": "insert after 0\n+x = 1\n"}),
        ],
    )
    for doc in docs[:-1]:
        refused(doc)
    assert docs[-1]["ok"] is True and (root / "src/new.py").read_text() == "x = 1\n"
    assert outside_state(outside) == before
    assert not (outside / "deeper").exists() and not (root / ".git/hooks/pre-commit").exists()


def test_no_tool_writes_the_configuration_that_widens_its_reach(world: dict[str, Path]) -> None:
    """canon's mounts, the guard's policy and the clients' hooks and MCP servers are the user's: a
    tool call that could write them could then reach (or run) anything (docs/boundary.md)."""
    root, outside = world["root"], world["outside"]
    (root / ".canon" / "config.toml").write_text("# settings\n")
    (root / "src" / "cfg").symlink_to("../.canon/config.toml")  # a link inside that leads to it
    mount = f'mounts = ["{outside}"]\n'
    docs = tool_calls(
        root,
        [
            ("edit", {"target": ".canon/config.toml", "create": True, "ops": f"insert after 0\n+{mount}"}),
            ("edit", {"target": ".pylon/guard.toml", "create": True, "ops": "insert after 0\n+x = 1\n"}),
            ("edit", {"target": ".claude/settings.json", "create": True, "ops": "insert after 0\n+{}\n"}),
            ("edit", {"target": ".codex/hooks.json", "create": True, "ops": "insert after 0\n+{}\n"}),
            ("edit", {"target": ".mcp.json", "create": True, "ops": "insert after 0\n+{}\n"}),
            ("read", {"path": ".canon/config.toml"}),
        ],
    )
    for doc in docs[:5]:
        refused(doc, "config")
    assert docs[5]["ok"] is True, docs[5]  # reading it is fine
    tag = docs[5]["tag"]
    more = tool_calls(
        root,
        [
            ("edit", {"target": f".canon/config.toml#{tag}", "ops": f"insert after 0\n+{mount}"}),
            ("edit", {"target": f"src/cfg#{tag}", "ops": f"insert after 0\n+{mount}"}),
            ("edit", {"target": ".claude/worktrees/a/src/app.py", "create": True, "ops": "insert after 0\n+x = 1\n"}),
        ],
    )
    refused(more[0], "config")
    refused(more[1], "config")
    assert (root / ".canon" / "config.toml").read_text() == "# settings\n"
    assert not (root / ".pylon").exists() and not (root / ".claude" / "settings.json").exists()
    assert not (root / ".codex").exists() and not (root / ".mcp.json").exists()
    assert more[2]["ok"] is True, more[2]  # a file in a client's worktree is an ordinary file
    assert (
        run_cmd("pylon", "edit", ".pylon/guard.toml", "--create", input="insert after 0\n+x = 1\n", cwd=root).code == 0
    )  # a person at the CLI may


def test_an_edit_inside_through_a_link_that_stays_inside(world: dict[str, Path]) -> None:
    root = world["root"]
    tag = tool_calls(root, [("read", {"path": "src/app_link.py"})])[0]["tag"]
    doc = tool_calls(root, [("edit", {"target": f"src/app_link.py#{tag}", "ops": "replace 1\n+print('ho')\n"})])[0]
    assert doc["ok"] is True, doc
    assert (root / "src/app.py").read_text() == "print('ho')\n" and (root / "src/app_link.py").is_symlink()


def test_canon_tools_take_no_file_and_no_store_from_outside(world: dict[str, Path]) -> None:
    root, outside, tmp = world["root"], world["outside"], world["tmp"]
    before = outside_state(outside)
    (outside / ".canon" / "articles").mkdir(parents=True)  # a store outside: not to be written or read
    (outside / ".canon" / "articles" / "x.md").write_text("---\ncapsule: outer\n---\n" + SECRET)
    root_canon = Path("/.canon")
    existed = root_canon.exists()
    docs = tool_calls(
        root,
        [
            ("canon_write", {"address": "src/app.py", "capsule": "c", "mount": ["/"]}),
            ("canon_write", {"address": "x", "capsule": "c", "mount": [str(outside)]}),
            ("canon_write", {"address": "x", "capsule": "c", "root": str(outside)}),
            ("canon_write", {"address": "x", "capsule": "c", "root": "src/out"}),
            ("canon_write", {"address": "src/app.py", "body_file": str(outside / "secret.txt")}),
            ("canon_write", {"address": "src/app.py", "body_file": "src/pw"}),
            ("canon_write", {"address": "src/app.py", "body_file": "../outside/secret.txt"}),
            ("canon_journal", {"body_file": "/etc/passwd"}),
            ("canon_journal", {"text": "x", "root": "/"}),
            ("canon_read", {"address": "x", "root": str(outside)}),
            ("canon_map", {"mount": ["/"]}),
            ("canon_search", {"query": ["secret"], "root": str(outside)}),
            ("canon_resolve", {"paths": ["x"], "mount": [str(outside)]}),
            ("canon_lint", {"root": str(outside)}),
            ("canon_check", {"root": str(outside)}),
            ("canon_write", {"address": "src/app.py", "body": "inside", "mount": ["src"]}),
        ],
    )
    for doc in docs[:-1]:
        refused(doc)
    assert docs[-1]["ok"] is True, docs[-1]
    assert root_canon.exists() == existed
    assert {k: v for k, v in outside_state(outside).items() if not k.startswith(".canon")} == before
    assert (outside / ".canon" / "articles").is_dir() and os.listdir(outside / ".canon" / "articles") == ["x.md"]
    assert not (outside / ".canon" / "journal").exists()
    assert not list((tmp).glob(".canon"))


@pytest.mark.parametrize("address", ["/etc/passwd", "../../../../etc/passwd", "src/out/secret.txt", "src/pw"])
def test_addresses_outside_the_project_read_nothing_outside(world: dict[str, Path], address: str) -> None:
    docs = tool_calls(
        world["root"],
        [
            ("canon_read", {"address": address}),
            ("canon_resolve", {"paths": [address]}),
            ("canon_map", {"prefix": address}),
            ("canon_lint", {"addresses": [address]}),
        ],
    )
    for doc in docs:
        assert SECRET.strip() not in json.dumps(doc) and "root:x:0:0" not in json.dumps(doc)


def test_a_store_above_the_project_is_not_adopted_through_mcp(world: dict[str, Path]) -> None:
    root, tmp = world["root"], world["tmp"]
    (root / ".canon").rename(tmp / "moved-away")  # the project has no store of its own now
    (tmp / ".canon" / "articles").mkdir(parents=True)
    doc = tool_calls(root, [("canon_write", {"address": "src/app.py", "capsule": "c", "body": "b"})])[0]
    assert list((tmp / ".canon" / "articles").iterdir()) == []  # nothing written above the project
    # the store search stops at the repository's top: the project's own store is made there
    assert doc["ok"] is True and Path(doc["path"]).is_relative_to(root), doc


def test_codex_sandbox_folder_only_inside_the_project(world: dict[str, Path]) -> None:
    root, outside = world["root"], world["outside"]
    docs = tool_calls(
        root,
        [
            ("read", {"path": "app.py"}, {"codex/sandbox-state-meta": {"sandboxCwd": (root / "src").as_uri()}}),
            ("read", {"path": "secret.txt"}, {"codex/sandbox-state-meta": {"sandboxCwd": outside.as_uri()}}),
            ("read", {"path": "secret.txt"}, {"codex/sandbox-state-meta": {"sandboxCwd": str(root / "src/out")}}),
            ("canon_write", {"address": "x", "capsule": "c"}, {"codex/sandbox-state-meta": {"sandboxCwd": "/"}}),
        ],
    )
    assert docs[0]["ok"] is True and docs[0]["lines"] == [[1, "print('hi')"]]
    for doc in docs[1:]:
        refused(doc)
    assert not Path("/.canon/articles/x.md").exists()


def test_owned_worktrees_are_part_of_the_project(world: dict[str, Path]) -> None:
    root = world["root"]
    made = json.loads(run_cmd("pylon", "ws", "new", "--json", cwd=root).out)
    tree = Path(made["path"])
    docs = tool_calls(
        root, [("read", {"path": "src/app.py", "in": made["id"]}), ("read", {"path": str(tree / "README.md")})]
    )
    assert docs[0]["ok"] is True and docs[0]["lines"] == [[1, "print('hi')"]], docs[0]
    assert docs[1]["ok"] is True and docs[1]["lines"] == [[1, "top"]], docs[1]


def test_a_person_at_the_cli_may_still_name_any_file(world: dict[str, Path]) -> None:
    root, outside = world["root"], world["outside"]
    read = json.loads(run_cmd("pylon", "read", str(outside / "secret.txt"), "--json", cwd=root).out)
    assert read["lines"] == [[1, SECRET.strip()]]
    body = run_cmd("canon", "write", "src/app.py", "--body-file", "src/pw", "--json", cwd=root)
    assert json.loads(body.out)["ok"] is True


def test_the_clients_roots_are_the_project_when_it_sends_them(world: dict[str, Path]) -> None:
    # The official SDK's client answers roots/list; the server asks after `initialized`.
    from mcp import types
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from pydantic import FileUrl

    root, outside = world["root"], world["outside"]

    async def main(roots: list[Path]) -> list[Any]:
        async def list_roots(context: Any) -> types.ListRootsResult:
            return types.ListRootsResult(roots=[types.Root(uri=FileUrl(r.as_uri())) for r in roots])

        params = StdioServerParameters(command=script("pylon"), args=["mcp"], cwd=str(root), env=dict(os.environ))
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write, list_roots_callback=list_roots) as client,
        ):
            await client.initialize()
            return [
                (await client.call_tool("read", {"path": p})).structured_content
                for p in ("src/app.py", "README.md", str(outside / "secret.txt"))
            ]

    only_src = asyncio.run(asyncio.wait_for(main([root / "src"]), 60))
    assert only_src[0]["ok"] is True
    refused(only_src[1])  # the checkout's top is outside the roots the client sent
    refused(only_src[2])
    with_outside = asyncio.run(asyncio.wait_for(main([root, outside]), 60))
    assert with_outside[1]["ok"] is True and with_outside[2]["lines"] == [[1, SECRET.strip()]]
