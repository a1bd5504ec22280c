"""What `pylon mcp` reaches, tried the way an outside check would (raw JSON-RPC; the SDK client and
the MCP Inspector in test_outside_clients.py): links on the way into the files that widen an
agent's reach, canon's store written around its limits, a store that is itself a link, hard links,
roots the client sends, odd spellings of a path, and a folder swapped for a symlink while calls run.
Nothing outside the project is ever read or written (docs/reference/cli.md, "What each entry point
may reach")."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FULL_TIER, MakeRepo, run_cmd, script
from tests.mcp.wire import INIT, declaring_roots, line, tool_calls

SECRET = "secret-outside-the-project"


@pytest.fixture
def world(make_repo: MakeRepo, tmp_path: Path) -> dict[str, Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n")
    root = make_repo({"src/app.py": "print('hi')\n", "README.md": "top\n"})
    assert run_cmd("canon", "write", "src/app.py", "--capsule", "Entry.", "--body", "Prints.", cwd=root).code == 0
    return {"root": root, "outside": outside}


def files_under(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def refused(doc: dict[str, Any], reason: str | None = None) -> None:
    assert doc["ok"] is False and doc["error"]["code"] == "path-outside", doc
    if reason:
        assert doc["error"]["reason"] == reason, doc
    assert SECRET not in json.dumps(doc) and "/proc/self/fd" not in json.dumps(doc)


NEW = "insert after 0\n+x = 1\n"


def test_no_link_on_the_way_makes_a_new_file_that_widens_the_reach(world: dict[str, Path]) -> None:
    """`edit create` walks the folders below the path: a link on the way into `.canon/`, `.claude/`
    or `.pylon/` must not let it create `.canon/config.toml` (whose mounts the reach then adopts)."""
    root, outside = world["root"], world["outside"]
    (root / ".claude").mkdir()
    (root / "src" / "c").symlink_to("../.canon")
    (root / "src" / "k").symlink_to("../.claude")
    (root / "src" / "top").symlink_to("..")
    mounts = f'insert after 0\n+mounts = ["{outside}"]\n'
    docs = tool_calls(
        root,
        [
            ("edit", {"target": "src/c/config.toml", "create": True, "ops": mounts}),
            ("edit", {"target": "src/top/.canon/config.toml", "create": True, "ops": mounts}),
            ("edit", {"target": "src/k/settings.json", "create": True, "ops": "insert after 0\n+{}\n"}),
            ("edit", {"target": "src/top/.pylon/guard.toml", "create": True, "ops": NEW}),
            ("edit", {"target": "src/top/.mcp.json", "create": True, "ops": "insert after 0\n+{}\n"}),
            ("canon_write", {"address": "outside:secret.txt", "capsule": "c", "body": "b"}),
        ],
    )
    for doc in docs[:5]:
        refused(doc, "config")
    assert docs[5]["ok"] is False
    assert not (root / ".canon" / "config.toml").exists() and not (root / ".claude" / "settings.json").exists()
    assert not (root / ".pylon").exists() and not (root / ".mcp.json").exists()
    assert files_under(outside) == {"secret.txt": (SECRET + "\n").encode()}


def test_the_edit_tool_leaves_canons_store_to_the_canon_tools(world: dict[str, Path]) -> None:
    """An article or journal entry written with `edit` would escape the limits canon_write and
    canon_journal keep (too-long) and rewrite entries canon never rewrites; reading them is fine."""
    root = world["root"]
    before = files_under(root / ".canon")
    (root / "src" / "c").symlink_to("../.canon/articles")
    huge = "insert after 0\n+---\n+capsule: " + "h" * 100_000 + "\n+---\n+body\n"
    docs = tool_calls(
        root,
        [
            ("edit", {"target": ".canon/articles/src/big.md", "create": True, "ops": huge}),
            ("edit", {"target": ".canon/journal/2020-01-01-x.md", "create": True, "ops": NEW}),
            ("edit", {"target": "src/c/src/big.md", "create": True, "ops": huge}),
            ("read", {"path": ".canon/articles/src/app.md"}),
        ],
    )
    for doc in docs[:3]:
        refused(doc, "canon-store")
    assert docs[3]["ok"] is True
    tag = docs[3]["tag"]
    more = tool_calls(
        root,
        [
            ("edit", {"target": f".canon/articles/src/app.md#{tag}", "ops": "replace 1\n+x\n"}),
            ("edit", {"target": f"src/c/src/app.md#{tag}", "ops": "replace 1\n+x\n"}),
        ],
    )
    for doc in more:
        refused(doc, "canon-store")
    assert files_under(root / ".canon") == before
    assert (
        run_cmd("pylon", "edit", f".canon/articles/src/app.md#{tag}", input="insert after 0\n+\n", cwd=root).code == 0
    )  # a person at the shell may


def test_a_store_that_is_a_link_out_of_the_project_is_refused(world: dict[str, Path]) -> None:
    root, outside = world["root"], world["outside"]
    store = outside / "store"
    (store / "articles" / "private").mkdir(parents=True)
    (store / "journal").mkdir()
    (store / "articles" / "private" / "plans.md").write_text(f"---\ncapsule: {SECRET}\n---\nbody\n")
    (store / "journal" / "2020-01-01-salary.md").write_text(f"---\nlogged: 2020-01-01T00:00:00Z\n---\n{SECRET}\n")
    before = files_under(outside)
    os.rename(root / ".canon", root / "canon-was-here")
    (root / ".canon").symlink_to(store)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("canon_map", {}),
        ("canon_lint", {}),
        ("canon_search", {"query": ["salary"], "journal": True}),
        ("canon_read", {"address": "private/plans"}),
        ("canon_resolve", {"paths": ["private/plans"]}),
        ("canon_journal", {"text": "x"}),
        ("canon_write", {"address": "src/app.py", "capsule": "c"}),
        ("canon_check", {}),
    ]
    docs = tool_calls(root, calls)
    for doc in docs:
        refused(doc, "symlink-outside")
        assert "plans" not in json.dumps(doc) and "salary" not in json.dumps(doc)
    assert files_under(outside) == before
    # A store folder that is a link leading inside the project stays usable.
    (root / ".canon").unlink()
    os.rename(root / "canon-was-here", root / "memory")
    (root / ".canon").symlink_to("memory")
    inside = tool_calls(root, [("canon_map", {})])[0]
    assert inside["ok"] is True and inside["count"] == 1, inside


def test_an_articles_folder_that_leads_out_is_refused(world: dict[str, Path]) -> None:
    root, outside = world["root"], world["outside"]
    (outside / "notes").mkdir()
    (outside / "notes" / "private.md").write_text(f"---\ncapsule: {SECRET}\n---\nb\n")
    os.rename(root / ".canon" / "articles", root / "articles-was-here")
    (root / ".canon" / "articles").symlink_to(outside / "notes")
    docs = tool_calls(root, [("canon_map", {}), ("canon_lint", {})])
    for doc in docs:
        refused(doc, "symlink-outside")
        assert "private" not in json.dumps(doc)


def test_a_hard_link_is_the_file_in_the_project_and_an_edit_never_reaches_its_other_names(
    world: dict[str, Path],
) -> None:
    """A hard link is a name in the project: whoever made it put that file there (it takes write
    access to the file, or ownership), so it reads as any file. An edit replaces the name with a new
    file (temp file and rename), so the other names, outside included, keep their bytes."""
    root, outside = world["root"], world["outside"]
    os.link(outside / "secret.txt", root / "src" / "hard.txt")
    read = tool_calls(root, [("read", {"path": "src/hard.txt"})])[0]
    assert read["lines"] == [[1, SECRET]]
    edit = tool_calls(root, [("edit", {"target": f"src/hard.txt#{read['tag']}", "ops": "replace 1\n+mine\n"})])[0]
    assert edit["ok"] is True and any("hard links" in w for w in edit["warnings"]), edit
    assert (outside / "secret.txt").read_text() == SECRET + "\n" and (root / "src/hard.txt").read_text() == "mine\n"


@pytest.mark.parametrize(
    "path",
    [
        "/proc/self/root/etc/passwd",
        "/proc/self/cwd/../outside/secret.txt",
        "/proc/self/cwd/src/app.py",
        "/proc/thread-self/root/etc/passwd",
        "/dev/fd/0",
        "~/.bashrc",
        "~root/.bashrc",
        "..\\outside\\secret.txt",
        ".GIT/config",
        ".Git/HEAD",
        "src/../.gIt/config",
        "src//..//..//outside/secret.txt",
        "./../outside/secret.txt",
        "src/app.py/../../outside/secret.txt",
        "x" * 5000,
        "/".join(["a" * 255] * 20),
        "a\x00b",
        "file:///etc/passwd",
        "%2e%2e/outside/secret.txt",
    ],
)
def test_odd_spellings_read_nothing_outside(world: dict[str, Path], path: str) -> None:
    doc = tool_calls(world["root"], [("read", {"path": path})])[0]
    text = json.dumps(doc)
    assert doc["ok"] is False, doc
    assert SECRET not in text and "root:x:0:0" not in text and "/proc/self/fd" not in text, doc
    assert doc["error"]["code"] in ("path-outside", "not-found", "name-too-long", "usage", "bad-tool-call"), doc


def roots_session(root: Path, uris: list[str], paths: list[str]) -> list[dict[str, Any]]:
    """A client that declares roots and answers roots/list with `uris`, then reads each path."""
    proc, ask = declaring_roots(root)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(line({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": [{"uri": u} for u in uris]}}))
    for i, path in enumerate(paths, 1):
        proc.stdin.write(
            line(
                {
                    "jsonrpc": "2.0",
                    "id": i,
                    "method": "tools/call",
                    "params": {"name": "read", "arguments": {"path": path}},
                }
            )
        )
    proc.stdin.close()
    answers = {a["id"]: a for a in map(json.loads, proc.stdout.read().splitlines())}
    proc.wait(30)
    return [answers[i]["result"]["structuredContent"] for i in range(1, len(paths) + 1)]


def test_a_root_on_another_host_grants_nothing(world: dict[str, Path]) -> None:
    root, outside = world["root"], world["outside"]
    docs = roots_session(
        root,
        [f"file://elsewhere{outside}", f"file://localhost{root / 'src'}"],
        [str(outside / "secret.txt"), "src/app.py", "README.md"],
    )
    refused(docs[0])
    assert docs[1]["ok"] is True  # localhost is this machine
    refused(docs[2])  # the checkout's top is not among the roots


def test_a_root_is_what_the_client_grants(world: dict[str, Path]) -> None:
    """The client's roots replace the checkout, even a folder outside it (the client is the user's)."""
    root, outside = world["root"], world["outside"]
    docs = roots_session(root, [outside.as_uri()], [str(outside / "secret.txt"), "src/app.py"])
    assert docs[0]["lines"] == [[1, SECRET]]
    refused(docs[1])


# -- a folder swapped for a symlink while calls run -------------------------------------------------


def race(root: Path, outside: Path, rounds: int) -> tuple[list[dict[str, Any]], int]:
    """Calls through `src/d` while a thread flips it between a folder and a symlink to `outside`."""
    (root / "src" / "d").mkdir()
    (root / "src" / "d" / "f.txt").write_text("inside\n")
    (outside / "f.txt").write_text(SECRET + "\n")
    (outside / ".canon" / "articles").mkdir(parents=True)
    (outside / ".canon" / "articles" / "f.md").write_text(f"---\ncapsule: {SECRET}\n---\nb\n")
    d, kept = root / "src" / "d", root / "src" / "d-real"
    stop = threading.Event()
    flips = [0]

    def flip() -> None:
        while not stop.is_set():
            try:
                os.rename(d, kept)
                d.symlink_to(outside)
                time.sleep(0.0005)
                d.unlink()
                os.rename(kept, d)
                flips[0] += 1
            except OSError:  # the server made `src/d` while it was missing (edit create): start again
                try:  # it may be writing there still: a step that fails is tried again next round
                    if d.is_symlink():
                        d.unlink()
                    elif d.is_dir() and kept.exists():
                        shutil.rmtree(d)
                    if kept.exists() and not d.exists():
                        os.rename(kept, d)
                except OSError:
                    pass

    proc = subprocess.Popen(
        [script("pylon"), "mcp"], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def call(i: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        stdin.write(
            line({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
        )
        stdin.flush()
        answer: dict[str, Any] = json.loads(stdout.readline())["result"]["structuredContent"]
        return answer

    proc.stdin.write(line(INIT))
    proc.stdin.flush()
    proc.stdout.readline()
    tag = call(1, "read", {"path": "src/d/f.txt"})["tag"]
    flipper = threading.Thread(target=flip)
    flipper.start()
    docs: list[dict[str, Any]] = []
    try:
        for k in range(rounds):
            steps: list[tuple[str, dict[str, Any]]] = [
                ("read", {"path": "src/d/f.txt"}),
                ("edit", {"target": f"src/d/f.txt#{tag}", "ops": "replace 1\n+inside\n"}),
                ("edit", {"target": f"src/d/new{k}.txt", "create": True, "ops": NEW}),
                ("canon_write", {"address": f"src/x{k}", "capsule": "c", "body_file": "src/d/f.txt"}),
                ("canon_read", {"address": "f", "root": "src/d"}),
                ("canon_write", {"address": f"y{k}", "capsule": "c", "body": "b", "root": "src/d"}),
                ("canon_search", {"query": ["c"], "journal": True, "root": "src/d"}),
                ("canon_journal", {"text": "x", "root": "src/d"}),
                ("canon_map", {"root": "src/d"}),
            ]
            for name, arguments in steps:
                docs.append(call(len(docs) + 2, name, arguments))
    finally:
        stop.set()
        flipper.join()
        proc.stdin.close()
        proc.wait(30)
        proc.stdout.close()
    return docs, flips[0]


@pytest.mark.parametrize("rounds", [300 if FULL_TIER else 20])
def test_a_folder_swapped_for_a_symlink_during_calls_leaks_nothing(world: dict[str, Path], rounds: int) -> None:
    root, outside = world["root"], world["outside"]
    docs, flips = race(root, outside, rounds)
    before = {
        "secret.txt": (SECRET + "\n").encode(),
        "f.txt": (SECRET + "\n").encode(),
        ".canon/articles/f.md": f"---\ncapsule: {SECRET}\n---\nb\n".encode(),
    }
    assert flips >= 10  # the swap really ran during the calls
    for doc in docs:
        assert SECRET not in json.dumps(doc), doc
    assert files_under(outside) == before
    assert sorted(str(p.relative_to(outside)) for p in outside.rglob("*")) == [
        ".canon",
        ".canon/articles",
        ".canon/articles/f.md",
        "f.txt",
        "secret.txt",
    ]  # no folder made there either
    for article in (root / ".canon").rglob("*.md"):
        assert SECRET not in article.read_text()


def test_special_files_and_link_loops_are_named_for_what_they_are(world: dict[str, Path]) -> None:
    root = world["root"]
    os.mkfifo(root / "src" / "fifo")
    (root / "src" / "loop1").symlink_to("loop2")
    (root / "src" / "loop2").symlink_to("loop1")
    docs = tool_calls(
        root,
        [
            ("read", {"path": "src/fifo"}),
            ("canon_write", {"address": "src/app.py", "body_file": "src/fifo"}),
            ("edit", {"target": "src/app.py", "tag": "0" * 12, "ops_file": "src/fifo"}),
            ("read", {"path": "src/loop1"}),
            ("edit", {"target": "src/loop1/x", "create": True, "ops": NEW}),
        ],
    )
    assert [d["error"]["code"] for d in docs] == [
        "not-text",
        "not-regular",
        "not-regular",
        "symlink-loop",
        "symlink-loop",
    ], docs
    for doc in docs:
        assert "ws cat" not in doc["error"]["message"], doc  # the entry point that refused, by its name


@pytest.mark.parametrize("rounds", [300 if FULL_TIER else 20])
def test_a_file_swapped_for_a_symlink_during_calls_leaks_nothing(world: dict[str, Path], rounds: int) -> None:
    root, outside = world["root"], world["outside"]
    name, kept = root / "src" / "f.txt", root / "src" / "f.kept"
    kept.write_text("inside\n")
    os.link(kept, name)
    stop = threading.Event()

    def flip() -> None:
        while not stop.is_set():
            for step in (
                lambda: name.unlink(),
                lambda: name.symlink_to(outside / "secret.txt"),
                lambda: time.sleep(0.0003),
                lambda: name.unlink(),
                lambda: os.link(kept, name),
            ):
                try:
                    step()
                except OSError:
                    pass

    tag = tool_calls(root, [("read", {"path": "src/f.txt"})])[0]["tag"]
    flipper = threading.Thread(target=flip)
    flipper.start()
    try:
        docs = tool_calls(
            root,
            [
                call
                for k in range(rounds)
                for call in (
                    ("read", {"path": "src/f.txt"}),
                    ("edit", {"target": f"src/f.txt#{tag}", "ops": "replace 1\n+inside\n"}),
                    ("canon_write", {"address": f"x{k}", "capsule": "c", "body_file": "src/f.txt"}),
                    ("canon_journal", {"body_file": "src/f.txt"}),
                )
            ],
        )
    finally:
        stop.set()
        flipper.join()
    assert not any(SECRET in json.dumps(doc) for doc in docs)
    assert files_under(outside) == {"secret.txt": (SECRET + "\n").encode()}
    assert not any(SECRET in p.read_text() for p in (root / ".canon").rglob("*.md"))
