"""Fixtures of the guard tests: the corpus checkout, and reading the corpus file."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parent / "corpus" / "commands.txt"
DCG = Path(__file__).resolve().parent / "corpus" / "dcg.txt"
ESCAPES = Path(__file__).resolve().parent / "corpus" / "escapes.txt"
PEERS = Path(__file__).resolve().parent / "corpus" / "peers.txt"
FILES: dict[str, str] = {
    "src/app.py": "def main():\n    return 1\n",
    "src/util.py": "X = 1\n",
    "src/old.bak": "old\n",
    "tests/test_app.py": "def test_main():\n    assert True\n",
    "README.md": "# demo\n",
    "config.yaml": "debug: true\n",
    "package.json": '{"version": "1.0.0"}\n',
    "app.db": "SQLite format 3\n",
    "Makefile": "clean:\n\trm -rf build\n",
    "scripts/clean.sh": "#!/bin/sh\nset -e\nrm -rf build dist\n",
    "scripts/deploy.sh": "#!/bin/sh\nnpm run build\ngit push --force origin main\n",
    ".gitignore": "build/\nnode_modules/\ndist/\n.env\n*.pyc\n__pycache__/\n",
}
IGNORED: dict[str, str] = {
    "build/out.o": "obj\n",
    "node_modules/x/index.js": "module.exports = 1\n",
    "dist/app.js": "app\n",
    ".env": "SECRET=1\n",
    "src/__pycache__/app.cpython-311.pyc": "pyc\n",
}


def entries(path: Path = CORPUS) -> list[tuple[str, str, str]]:
    """(verdict, source, command) for every entry of a corpus file, in order."""
    out: list[tuple[str, str, str]] = []
    current: list[str] | None = None
    head = ("", "")
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):  # a section heading between entries
            continue
        if line.startswith("### "):
            if current is not None:
                out.append((*head, "\n".join(current).strip("\n")))
            verdict, _, source = line[4:].partition("|")
            head, current = (verdict.strip(), source.strip()), []
        elif current is not None:
            current.append(line)
    if current is not None:
        out.append((*head, "\n".join(current).strip("\n")))
    return out


def build_checkout(base: Path) -> tuple[Path, dict[str, str]]:
    """The corpus checkout (tracked, untracked and ignored files) and the environment around it."""
    root = base / "checkout"
    home = base / "home"
    tmp = base / "tmpdir"
    for folder in (root, home / ".ssh", home / "Documents", home / "Downloads", tmp):
        folder.mkdir(parents=True, exist_ok=True)
    (home / ".ssh" / "id_ed25519").write_text("key\n")
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(home), "TMPDIR": str(tmp)}
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=env)
    for rel, text in {**FILES, **IGNORED}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for cmd in (["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"]):
        subprocess.run(["git", *cmd], cwd=root, check=True, env=env)
    (root / "notes.txt").write_text("untracked\n")
    return root, {"HOME": str(home), "TMPDIR": str(tmp), "PATH": os.environ.get("PATH", "")}


@pytest.fixture(scope="module")
def corpus_checkout(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    return build_checkout(tmp_path_factory.mktemp("guard-corpus"))


def disk(root: Path) -> dict[str, tuple[int, bytes]]:
    """Every file below root except .git: (mode, content or link target)."""
    out: dict[str, tuple[int, bytes]] = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            full = os.path.join(folder, name)
            data = os.readlink(full).encode() if os.path.islink(full) else Path(full).read_bytes()
            out[os.path.relpath(full, root)] = (os.lstat(full).st_mode, data)
    return out
