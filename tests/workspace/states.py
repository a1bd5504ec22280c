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


def mutate(root: Path, rng: random.Random, steps: int, *, commit: bool = False, make: Maker | None = None) -> list[str]:
    """Apply `steps` random changes to a checkout; returns what was done (for failure messages)."""
    make = make or Maker(root, rng)
    done: list[str] = []
    for _ in range(steps):
        files = [p for p in tracked(root) + untracked(root) if p not in (".gitignore", "README.md")]
        on_disk = [p for p in files if os.path.lexists(root / p)]
        action = rng.choice(["modify", "modify", "add", "add-staged", "stage", "stage-then-edit", "delete",
                             "git-rm", "git-mv", "mv", "chmod", "retype", "ignored", "odd-bits", "empty-dir",
                             "dir-bits"] + (["commit"] if commit else []))
        if action in ("modify", "stage", "stage-then-edit", "delete", "git-rm", "git-mv", "mv", "chmod", "retype",
                      "odd-bits") and not on_disk:
            action = "add"
        path = rng.choice(on_disk) if on_disk else ""
        full = root / path
        is_tracked = path in set(tracked(root))
        if action == "modify":
            if full.is_symlink() or not full.is_file():
                make.write(path, "link" if full.is_symlink() else None)
            else:
                data = full.read_bytes()
                if b"\0" in data:
                    full.write_bytes(binary(rng))
                else:
                    lines = data.splitlines(keepends=True)
                    at = rng.randrange(len(lines)) if lines else 0
                    nl = b"\r\n" if data.endswith(b"\r\n") else b"\n"
                    new = (" ".join(rng.choice(WORDS) for _ in range(3))).encode() + nl
                    lines[at:at + 1] = [new] if rng.random() < 0.7 else [lines[at] if lines else b"", new]
                    full.write_bytes(b"".join(lines))
        elif action in ("add", "add-staged"):
            path = make.fresh()
            make.write(path)
            if action == "add-staged":
                git(root, "add", "--", path)
        elif action in ("stage", "stage-then-edit"):
            git(root, "add", "--", path)
            if action == "stage-then-edit":
                make.write(path, "text")
        elif action == "delete":
            full.unlink()
        elif action == "git-rm":
            if is_tracked:
                git(root, "rm", "-q", "-f", "--", path)
            else:
                full.unlink()
        elif action in ("git-mv", "mv"):
            target = make.fresh(os.path.splitext(path)[1] or ".txt")
            (root / target).parent.mkdir(parents=True, exist_ok=True)
            if action == "git-mv" and is_tracked:
                git(root, "mv", "--", path, target)
            else:
                os.rename(full, root / target)
            path = f"{path} -> {target}"
        elif action == "chmod":
            if full.is_symlink():
                make.write(path, "exec")
            else:
                os.chmod(full, full.stat().st_mode ^ 0o111)
        elif action == "odd-bits":  # bits git does not record: pylon's states do (exact.py)
            if full.is_symlink():
                make.write(path, "exec")
            else:
                os.chmod(full, rng.choice([0o600, 0o640, 0o700, 0o750, 0o664]))
        elif action == "empty-dir":
            path = f"{rng.choice(['', 'src/', 'docs/'])}empty-{rng.randint(1, 4)}" + rng.choice(["", "/deeper"])
            if not os.path.lexists(root / path) and not any(
                    os.path.lexists(root / part) and not (root / part).is_dir()
                    for part in ["/".join(path.split("/")[:i]) for i in range(1, path.count("/") + 1)]):
                (root / path).mkdir(parents=True)
        elif action == "dir-bits":
            folders = sorted({os.path.dirname(p) for p in on_disk if "/" in p} - {""})
            if folders:
                path = rng.choice(folders)
                os.chmod(root / path, rng.choice([0o700, 0o750, 0o755]))
        elif action == "retype":
            make.write(path, "text" if full.is_symlink() else "link")
        elif action == "ignored":
            path = rng.choice(["keep.log", "ignored/cache.bin", f"src/run {rng.randint(1, 3)}.log"])
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(binary(rng) if rng.random() < 0.5 else text(rng))
        elif action == "commit":
            git(root, "add", "-A")
            git(root, "commit", "-qm", f"work {rng.getrandbits(16)}", "--allow-empty")
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
            found.append(f"{path!r}: {left and left[:2]} {left and len(left[2])}B -> {right and right[:2]} "
                         f"{right and len(right[2])}B")
    da, db = a.get("dirs", {}), b.get("dirs", {})
    assert isinstance(da, dict) and isinstance(db, dict)
    for path in sorted(set(da) | set(db)):
        if da.get(path) != db.get(path):
            found.append(f"folder {path!r}: {oct(da[path]) if path in da else 'absent'} -> "
                         f"{oct(db[path]) if path in db else 'absent'}")
    return found
