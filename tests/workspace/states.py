"""Randomised checkout states for the round-trip tests, and a raw-bytes oracle to compare them.

A seeded `random.Random` drives everything, so a failing round is replayed from its seed alone.
States mix what the spec lists: modified, added, deleted, renamed (staged `git mv` and plain `mv`),
staged, unstaged, staged-then-edited, untracked, binary, executable bit, symlinks (retargeted,
dangling, replacing a file), CRLF text, names with spaces and non-ASCII characters, and ignored
files (which no pylon command may touch).

The oracle is git plumbing and the file system, nothing pylon wrote: `git ls-files -s` (the staged
index), `git rev-parse HEAD` and `git symbolic-ref HEAD`, and for every file under the checkout
its type, full st_mode, bytes or symlink target (ignored files included).
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path
from typing import Any

WORDS = ["alpha", "beta", "gamma", "delta", "omega", "pylon", "merge", "tree", "blob", "index", "héllo", "naïve"]
DIRS = ["", "src/", "dir with space/", "ünï/", "deep/er/"]
STEMS = ["file", "read me", "çödé", "data", "notes", "x"]
IGNORE = "*.log\nignored/\n"


def git(root: Path | str, *args: str, check: bool = True) -> bytes:
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"})
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed in {root}: {proc.stderr.decode(errors='replace')}")
    return proc.stdout


def text(rng: random.Random, lines: int | None = None, crlf: bool = False) -> bytes:
    n = lines if lines is not None else rng.randint(3, 12)
    body = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5))) for _ in range(n)]
    return (("\r\n" if crlf else "\n").join(body) + ("\r\n" if crlf else "\n")).encode("utf-8")


def binary(rng: random.Random) -> bytes:
    return bytes([0]) + bytes(rng.getrandbits(8) for _ in range(rng.randint(16, 300)))


class Maker:
    """Writes files of every kind and hands out fresh names (no two rounds reuse a new name)."""

    def __init__(self, root: Path, rng: random.Random) -> None:
        self.root, self.rng, self.serial = root, rng, 0

    def fresh(self, ext: str = ".txt") -> str:
        self.serial += 1
        return f"{self.rng.choice(DIRS)}{self.rng.choice(STEMS)} {self.serial}-{self.rng.getrandbits(20):x}{ext}"

    def write(self, rel: str, kind: str | None = None) -> str:
        kind = kind or self.rng.choice(["text", "text", "text", "crlf", "binary", "exec", "link"])
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink() or path.exists():
            path.unlink()
        if kind == "link":
            target = self.rng.choice(["../README.md", "README.md", "missing target", "src", "ünï/ça"])
            os.symlink(target, path)
            return kind
        data = {"text": text, "exec": text, "crlf": lambda r: text(r, crlf=True), "binary": binary}[kind](self.rng)
        path.write_bytes(data)
        os.chmod(path, 0o755 if kind == "exec" else 0o644)
        return kind


def build(root: Path, rng: random.Random, files: int = 14) -> Path:
    """A committed repository with files of every kind, a .gitignore and an ignored file."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "dev@pylon.invalid")
    git(root, "config", "user.name", "pylon-dev")
    (root / ".gitignore").write_text(IGNORE)
    (root / "README.md").write_text("# readme\n")
    make = Maker(root, rng)
    for kind in ["text", "crlf", "binary", "exec", "link"]:
        make.write(make.fresh(), kind)
    for _ in range(files - 5):
        make.write(make.fresh())
    (root / "keep.log").write_text("ignored\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root


def tracked(root: Path) -> list[str]:
    return [p for p in git(root, "ls-files", "-z").decode("utf-8", "surrogateescape").split("\0") if p]


def untracked(root: Path) -> list[str]:
    out = git(root, "ls-files", "-z", "--others", "--exclude-standard")
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


class _Change:
    """One random change about to be made: the checkout, the chosen path (may be "") and its state."""

    def __init__(self, root: Path, rng: random.Random, make: Maker, action: str, path: str) -> None:
        self.root, self.rng, self.make, self.action, self.path = root, rng, make, action, path
        self.full = root / path
        self.is_tracked = path in set(tracked(root))


def _modify(c: _Change) -> str:
    if c.full.is_symlink() or not c.full.is_file():
        c.make.write(c.path, "link" if c.full.is_symlink() else None)
        return c.path
    data = c.full.read_bytes()
    if b"\0" in data:
        c.full.write_bytes(binary(c.rng))
        return c.path
    lines = data.splitlines(keepends=True)
    at = c.rng.randrange(len(lines)) if lines else 0
    nl = b"\r\n" if data.endswith(b"\r\n") else b"\n"
    new = (" ".join(c.rng.choice(WORDS) for _ in range(3))).encode() + nl
    lines[at : at + 1] = [new] if c.rng.random() < 0.7 else [lines[at] if lines else b"", new]
    c.full.write_bytes(b"".join(lines))
    return c.path


def _add(c: _Change) -> str:
    path = c.make.fresh()
    c.make.write(path)
    if c.action == "add-staged":
        git(c.root, "add", "--", path)
    return path


def _stage(c: _Change) -> str:
    git(c.root, "add", "--", c.path)
    if c.action == "stage-then-edit":
        c.make.write(c.path, "text")
    return c.path


def _delete(c: _Change) -> str:
    c.full.unlink()
    return c.path


def _git_rm(c: _Change) -> str:
    if c.is_tracked:
        git(c.root, "rm", "-q", "-f", "--", c.path)
    else:
        c.full.unlink()
    return c.path


def _move(c: _Change) -> str:
    target = c.make.fresh(os.path.splitext(c.path)[1] or ".txt")
    (c.root / target).parent.mkdir(parents=True, exist_ok=True)
    if c.action == "git-mv" and c.is_tracked:
        git(c.root, "mv", "--", c.path, target)
    else:
        os.rename(c.full, c.root / target)
    return f"{c.path} -> {target}"


def _chmod(c: _Change) -> str:
    if c.full.is_symlink():
        c.make.write(c.path, "exec")
    elif c.action == "chmod":
        os.chmod(c.full, c.full.stat().st_mode ^ 0o111)
    else:  # odd-bits: bits git does not record; pylon's states do (exact.py)
        os.chmod(c.full, c.rng.choice([0o600, 0o640, 0o700, 0o750, 0o664]))
    return c.path


def _empty_dir(c: _Change) -> str:
    path = f"{c.rng.choice(['', 'src/', 'docs/'])}empty-{c.rng.randint(1, 4)}" + c.rng.choice(["", "/deeper"])
    parents = ["/".join(path.split("/")[:i]) for i in range(1, path.count("/") + 1)]
    if not os.path.lexists(c.root / path) and not any(
        os.path.lexists(c.root / part) and not (c.root / part).is_dir() for part in parents
    ):
        (c.root / path).mkdir(parents=True)
    return path


def _dir_bits(c: _Change, on_disk: list[str]) -> str:
    folders = sorted({os.path.dirname(p) for p in on_disk if "/" in p} - {""})
    if not folders:
        return c.path
    path = c.rng.choice(folders)
    os.chmod(c.root / path, c.rng.choice([0o700, 0o750, 0o755]))
    return path


def _retype(c: _Change) -> str:
    c.make.write(c.path, "text" if c.full.is_symlink() else "link")
    return c.path


def _ignored(c: _Change) -> str:
    path = c.rng.choice(["keep.log", "ignored/cache.bin", f"src/run {c.rng.randint(1, 3)}.log"])
    (c.root / path).parent.mkdir(parents=True, exist_ok=True)
    (c.root / path).write_bytes(binary(c.rng) if c.rng.random() < 0.5 else text(c.rng))
    return path


def _commit(c: _Change) -> str:
    git(c.root, "add", "-A")
    git(c.root, "commit", "-qm", f"work {c.rng.getrandbits(16)}", "--allow-empty")
    return c.path


# action -> what it does; the list is drawn from in this order (modify and add weigh double)
CHANGES = {
    "modify": _modify,
    "add": _add,
    "add-staged": _add,
    "stage": _stage,
    "stage-then-edit": _stage,
    "delete": _delete,
    "git-rm": _git_rm,
    "git-mv": _move,
    "mv": _move,
    "chmod": _chmod,
    "retype": _retype,
    "ignored": _ignored,
    "odd-bits": _chmod,
    "empty-dir": _empty_dir,
}
DRAWN = [
    "modify",
    "modify",
    "add",
    "add-staged",
    "stage",
    "stage-then-edit",
    "delete",
    "git-rm",
    "git-mv",
    "mv",
    "chmod",
    "retype",
    "ignored",
    "odd-bits",
    "empty-dir",
    "dir-bits",
]
# the actions that change an existing path: with nothing on disk, they add one instead
ON_A_PATH = {"modify", "stage", "stage-then-edit", "delete", "git-rm", "git-mv", "mv", "chmod", "retype", "odd-bits"}


def mutate(root: Path, rng: random.Random, steps: int, *, commit: bool = False, make: Maker | None = None) -> list[str]:
    """Apply `steps` random changes to a checkout; returns what was done (for failure messages)."""
    make = make or Maker(root, rng)
    done: list[str] = []
    for _ in range(steps):
        files = [p for p in tracked(root) + untracked(root) if p not in (".gitignore", "README.md")]
        on_disk = [p for p in files if os.path.lexists(root / p)]
        action = rng.choice(DRAWN + (["commit"] if commit else []))
        if action in ON_A_PATH and not on_disk:
            action = "add"
        change = _Change(root, rng, make, action, rng.choice(on_disk) if on_disk else "")
        if action == "dir-bits":
            path = _dir_bits(change, on_disk)
        elif action == "commit":
            path = _commit(change)
        else:
            path = CHANGES[action](change)
        done.append(f"{action} {path}".rstrip())
    return done


def files(root: Path) -> dict[bytes, tuple[str, int, bytes]]:
    """Every file under root except the git dir: path -> (type, st_mode, bytes or link target)."""
    found: dict[bytes, tuple[str, int, bytes]] = {}
    base = os.fsencode(root)
    for dirpath, dirnames, filenames in os.walk(base):
        if dirpath == base:
            dirnames[:] = [d for d in dirnames if d != b".git"]
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, base)
            if rel == b".git":
                continue
            st = os.lstat(full)
            if os.path.islink(full):
                found[rel] = ("link", st.st_mode, os.readlink(full))
            else:
                with open(full, "rb") as fh:
                    found[rel] = ("file", st.st_mode, fh.read())
    return found


def folders(root: Path) -> dict[bytes, int]:
    """Every folder under root except the git dir, empty ones included: path -> st_mode (its bits)."""
    found: dict[bytes, int] = {}
    base = os.fsencode(root)
    for dirpath, dirnames, _filenames in os.walk(base):
        if dirpath == base:
            dirnames[:] = [d for d in dirnames if d != b".git"]
        for name in dirnames:
            full = os.path.join(dirpath, name)
            if not os.path.islink(full):
                found[os.path.relpath(full, base)] = os.lstat(full).st_mode
    return found


def snapshot(root: Path) -> dict[str, Any]:
    """The whole checkout state as git plumbing and the file system see it: files with their full
    permission bits, and every folder (empty ones included) with its bits."""
    return {
        "head": git(root, "rev-parse", "-q", "--verify", "HEAD", check=False).strip(),
        "branch": git(root, "symbolic-ref", "-q", "HEAD", check=False).strip(),
        "index": git(root, "ls-files", "-s", "-z"),
        "files": files(root),
        "dirs": folders(root),
    }


def differences(a: dict[str, object], b: dict[str, object]) -> list[str]:
    """Human-readable differences between two snapshots (empty when identical)."""
    found = [key for key in ("head", "branch", "index") if a[key] != b[key]]
    fa, fb = a["files"], b["files"]
    assert isinstance(fa, dict) and isinstance(fb, dict)
    for path in sorted(set(fa) | set(fb)):
        if fa.get(path) != fb.get(path):
            left, right = fa.get(path), fb.get(path)
            found.append(
                f"{path!r}: {left and left[:2]} {left and len(left[2])}B -> {right and right[:2]} "
                f"{right and len(right[2])}B"
            )
    da, db = a.get("dirs", {}), b.get("dirs", {})
    assert isinstance(da, dict) and isinstance(db, dict)
    for path in sorted(set(da) | set(db)):
        if da.get(path) != db.get(path):
            found.append(
                f"folder {path!r}: {oct(da[path]) if path in da else 'absent'} -> "
                f"{oct(db[path]) if path in db else 'absent'}"
            )
    return found
