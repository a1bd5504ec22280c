"""The typer-free front door of `pylon ws` and concurrent use of the private index."""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.conftest import script
from tests.workspace.helpers import pylon, write_files


def _imports(repo: Path, *args: str) -> str:
    r = pylon(*args, cwd=repo, env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert r.code == 0, r
    return r.err


def test_hot_ws_commands_import_neither_typer_nor_heavy_modules(repo: Path) -> None:
    assert pylon("ws", "baseline", cwd=repo).code == 0
    for args in (("ws", "changes"), ("ws", "fingerprint"), ("ws", "cat", "README.md"), ("ws", "diff")):
        err = _imports(repo, *args)
        for heavy in ("typer", "pygit2", "watchdog", "rich", "yaml", "subprocess"):
            assert f" {heavy}\n" not in err and f" {heavy}." not in err, (args, heavy)


def test_help_and_bad_options_still_go_through_typer(repo: Path) -> None:
    h = pylon("ws", "changes", "--help", cwd=repo)
    assert h.code == 0 and "--since" in h.out and "--limit" in h.out
    bad = pylon("ws", "changes", "--nope", "--json", cwd=repo)
    assert bad.code == 2 and bad.json()["error"]["code"] == "usage"
    missing_dir = pylon("-C", "does-not-exist", "ws", "status", cwd=repo)
    assert missing_dir.code == 2 and "error[bad-directory]" in missing_dir.err
    good_dir = pylon("-C", "src", "ws", "cat", "app.py", cwd=repo)
    assert good_dir.code == 0 and good_dir.out == "print('hello')\n"


def test_parallel_captures_agree(repo: Path) -> None:
    write_files(repo, {"dirty.txt": "d\n", "src/app.py": "print('x')\n"})
    argv = [script("pylon"), "ws", "fingerprint"]
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda _: subprocess.run(argv, cwd=repo, capture_output=True, text=True), range(6)))
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    assert len({r.stdout for r in results}) == 1
    leftovers = [p.name for p in (repo / ".git" / "pylon").iterdir() if p.name.startswith("index-")]
    assert leftovers == []
