"""Helpers for the op-log tests: a dirty state mixing every kind of change, and git's own view of a
checkout (the oracle every round trip is compared with).

Easy to drive from a property test: `mixed_state(path, seed)` makes a different mix per seed,
`snapshot(path)` is everything a round trip must give back.
"""

from __future__ import annotations

import os
import random
import stat
from pathlib import Path
from typing import Any

from tests.conftest import git

BASE_FILES = {
    "README.md": "# demo\n",
    "src/app.py": "print('hello')\n",
    "src/util.py": "def f():\n    return 1\n",
    "docs/guide.txt": "one\ntwo\nthree\n",
    "crlf.txt": "a\r\nb\r\n",
    "name with space.txt": "space\n",
    "ünïcödé.txt": "unicode\n",
    "bin/tool.sh": "#!/bin/sh\necho tool\n",
    "data.bin": "\x00\x01\x02binary\xff",
    "gone/soon.txt": "soon\n",
    ".gitignore": "*.log\nbuild/\n",
}


def make_base(repo: Path) -> None:
    """Commit BASE_FILES plus an executable file and a symlink (the common starting point)."""
    for rel, text in BASE_FILES.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("latin-1") if rel.endswith(".bin") else text.encode("utf-8"))
    os.chmod(repo / "bin/tool.sh", 0o755)
    if not (repo / "link").is_symlink():
        os.symlink("README.md", repo / "link")
    (repo / "keep.log").write_text("ignored and precious\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")


def mixed_state(repo: Path, seed: int = 0, tag: str = "x") -> None:
    """A dirty state with modified, added, deleted, renamed, staged, unstaged, untracked, binary,
    executable-bit, symlink, CRLF, space and non-ASCII changes; `seed` picks a different mix."""
    rnd = random.Random(seed)
    w = lambda rel, data: _write(repo / rel, data)  # noqa: E731
    w("src/app.py", f"print('staged {tag}')\n".encode())
    git(repo, "add", "src/app.py")
    w("src/app.py", f"print('staged {tag}')\nprint('unstaged {tag}')\n".encode())  # staged + unstaged
    w("README.md", f"# demo {tag}\n".encode())  # unstaged
    w("crlf.txt", f"a\r\n{tag}\r\n".encode())
    w("data.bin", bytes(rnd.randrange(256) for _ in range(64)) + b"\x00")
    w(f"new dir/añadido {tag}.txt", b"untracked\n")
    w(f"staged-new-{tag}.txt", b"staged new\n")
    git(repo, "add", f"staged-new-{tag}.txt")
    if rnd.random() < 0.7:
        git(repo, "mv", "docs/guide.txt", f"docs/renamed {tag}.txt")
    if rnd.random() < 0.7:
        (repo / "gone/soon.txt").unlink()  # unstaged deletion
    else:
        git(repo, "rm", "-q", "gone/soon.txt")  # staged deletion
    mode = os.stat(repo / "bin/tool.sh").st_mode
    os.chmod(repo / "bin/tool.sh", mode & ~0o111 if mode & 0o100 else mode | 0o755)
    if rnd.random() < 0.5:
        git(repo, "add", "bin/tool.sh")
    (repo / "link").unlink()
    os.symlink(rnd.choice(["src/app.py", "missing-target", "docs"]), repo / "link")
    w(f"ünïcödé {tag}/x y.txt", f"{rnd.random()}\n".encode())
    (repo / "keep.log").write_text(f"ignored, changed after {tag}\n")
    # what git does not record: odd bits of a file and of its folder, an empty folder
    w(f"secrets {tag}/key.txt", f"key {tag}\n".encode())
    os.chmod(repo / f"secrets {tag}" / "key.txt", rnd.choice([0o600, 0o640]))
    os.chmod(repo / f"secrets {tag}", rnd.choice([0o700, 0o750]))
    (repo / f"empty {tag}" / "inner").mkdir(parents=True, exist_ok=True)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink():
        path.unlink()
    path.write_bytes(data)


def folders(root: Path) -> dict[str, str]:
    """Every folder under root except .git (empty ones included): its permission bits, in octal."""
    found: dict[str, str] = {}
    for dirpath, dirnames, _filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git" and not os.path.islink(os.path.join(dirpath, d))]
        for name in dirnames:
            found[os.path.relpath(os.path.join(dirpath, name), root)] = oct(
                stat.S_IMODE(os.lstat(os.path.join(dirpath, name)).st_mode)
            )
    return found


def files(root: Path) -> dict[str, tuple[str, object]]:
    """Every entry under root except .git: ("link", target) / ("file", (permission bits, bytes));
    ignored files included, so a test also sees that they were not touched."""
    found: dict[str, tuple[str, object]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            if name == ".git":
                continue
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root)
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                found[rel] = ("link", os.readlink(full))
            else:
                found[rel] = ("file", (oct(stat.S_IMODE(st.st_mode)), Path(full).read_bytes()))
    return found


def snapshot(root: Path) -> dict[str, Any]:
    """git's own view (index entries with modes and blob ids, HEAD, branch) plus every byte on disk,
    every file's permission bits and every folder (empty ones included) with its bits."""
    return {
        "files": files(root),
        "dirs": folders(root),
        "index": git(root, "ls-files", "-s", "-z"),
        "head": git(root, "rev-parse", "-q", "--verify", "HEAD", check=False).strip(),
        "branch": git(root, "symbolic-ref", "-q", "HEAD", check=False).strip(),
        "status": git(root, "-c", "core.quotePath=false", "status", "--porcelain=v1", "-uall", "-z"),
    }


def diff_snapshots(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """What differs between two snapshots, readable in an assertion message."""
    out = []
    fa, fb = a["files"], b["files"]
    assert isinstance(fa, dict) and isinstance(fb, dict)
    for rel in sorted(set(fa) | set(fb)):
        if fa.get(rel) != fb.get(rel):
            out.append(f"file {rel}: {str(fa.get(rel))[:60]} != {str(fb.get(rel))[:60]}")
    da, db = a.get("dirs", {}), b.get("dirs", {})
    assert isinstance(da, dict) and isinstance(db, dict)
    for rel in sorted(set(da) | set(db)):
        if da.get(rel) != db.get(rel):
            out.append(f"folder {rel}: {da.get(rel)} != {db.get(rel)}")
    for key in ("index", "head", "branch", "status"):
        if a[key] != b[key]:
            out.append(f"{key}: {str(a[key])[:300]!r} != {str(b[key])[:300]!r}")
    return out


def entries(root: Path) -> dict[str, tuple[object, ...]]:
    """Every entry below root but .git, folders included: ("dir", bits), ("link", target), ("file", bits
    as an octal string, bytes), ("special",) for FIFOs, sockets and devices (never opened)."""
    found: dict[str, tuple[object, ...]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in dirnames + filenames:
            if name == ".git":
                continue
            full = os.path.join(dirpath, name)
            st = os.lstat(full)
            rel = os.path.relpath(full, root)
            if stat.S_ISLNK(st.st_mode):
                found[rel] = ("link", os.readlink(full))
            elif stat.S_ISDIR(st.st_mode):
                found[rel] = ("dir", oct(stat.S_IMODE(st.st_mode)))
            elif stat.S_ISREG(st.st_mode):
                found[rel] = ("file", oct(stat.S_IMODE(st.st_mode)), Path(full).read_bytes())
            else:
                found[rel] = ("special",)
    return found
