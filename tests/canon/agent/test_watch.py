"""`canon watch`: real file-system events, a real rename-save, a bounded run."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article
from tests.conftest import run_cmd, script


def start(root: Path, *extra: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [script("canon"), "watch", "--debounce", "0.1", *extra],
        cwd=root,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    return proc


def wait_ready(proc: subprocess.Popen[str], json_: bool) -> None:
    stream = proc.stdout if json_ else proc.stderr
    assert stream is not None
    line = stream.readline()
    assert ("ready" in line) if json_ else line.startswith("watching "), line


def test_rename_save_and_plain_writes_are_relinted_as_json_lines(make_store: MakeStore) -> None:
    root = make_store(
        articles={"src/app": article("Entry point.", body="B" * 500), "src": article("Sources.", body="S" * 500)}
    )
    proc = start(root, "--json", "--timeout", "6")
    wait_ready(proc, True)
    target = root / ".canon" / "articles" / "src" / "app.md"
    # An editor's atomic save: write a temp file beside the article, then rename it over it.
    tmp = target.with_name(".app.md.swp")
    tmp.write_text(article("Entry point.", body="See [[nowhere]]. " + "B" * 500))
    os.replace(tmp, target)
    time.sleep(1.0)
    # A second save of the same file after the rename: the folder watch still sees it.
    target.write_text(article("Entry point.", body="B" * 500))
    time.sleep(1.0)
    (root / ".canon" / "journal" / "bad name.md").write_text("x")
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    files = [(e["event"], e.get("file"), e.get("rule")) for e in events]
    assert ("finding", ".canon/articles/src/app.md", "dead-link") in files
    assert ("clean", ".canon/articles/src/app.md", None) in files
    assert files.index(("finding", ".canon/articles/src/app.md", "dead-link")) < files.index(
        ("clean", ".canon/articles/src/app.md", None)
    )
    assert ("finding", ".canon/journal/bad name.md", "journal-name") in files
    assert not any(".swp" in (f or "") for _, f, _ in files)


def test_text_lines_like_lint_and_a_bounded_run(make_store: MakeStore) -> None:
    root = make_store(articles={"a": article("A.", body="A" * 500)})
    proc = start(root, "--timeout", "3")
    wait_ready(proc, False)
    (root / ".canon" / "articles" / "a.md").write_text(article("Added a thing.", body="A" * 500))
    (root / ".canon" / "articles" / "b.md").write_text(article("B.", body="B" * 500))
    time.sleep(0.8)
    (root / ".canon" / "articles" / "b.md").unlink()
    out, err = proc.communicate(timeout=60)  # it stops by its own --timeout; 60 s only catches a hang
    assert proc.returncode == 0, err
    assert ".canon/articles/a.md:2: warning[capsule-changelog]" in out
    assert ".canon/articles/b.md: removed" in out


def test_no_store_is_a_clear_error(project: Path) -> None:
    result = run_cmd("canon", "watch", "--timeout", "1", cwd=project)
    assert result.code == 2 and "error[no-store]" in result.err
