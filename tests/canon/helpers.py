"""Helpers for the canon tests: build stores on disk and snapshot trees to prove nothing changed."""

from __future__ import annotations

import os
import stat
from datetime import datetime, timezone
from pathlib import Path


def today() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d")


def article(capsule: str | None = None, body: str = "Body.\n", updated: str | None = "2020-01-01", **extra: str) -> str:
    lines = []
    if capsule is not None:
        lines.append(f"capsule: {capsule}")
    if updated is not None:
        lines.append(f"updated: {updated}")
    lines += [f"{k}: {v}" for k, v in extra.items()]
    return ("---\n" + "".join(ln + "\n" for ln in lines) + "---\n" if lines else "") + body


def entry(subjects: str, logged: str, text: str = "Something happened.\n") -> str:
    return f"---\nsubject: {subjects}\nlogged: {logged}\n---\n{text}"


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file under `root` (bytes) and folder (None), ignoring the derived cache."""
    out: dict[str, bytes | None] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".cache"]
        rel = os.path.relpath(folder, root)
        out[rel + "/"] = None
        for name in files:
            path = Path(folder) / name
            mode = path.lstat().st_mode
            if path.is_symlink():
                out[os.path.join(rel, name)] = b"->" + os.readlink(path).encode()
            elif not stat.S_ISREG(mode):  # a FIFO or socket: never opened (a FIFO would hang)
                out[os.path.join(rel, name)] = f"special {stat.S_IFMT(mode)}".encode()
            else:
                out[os.path.join(rel, name)] = path.read_bytes()
    return out


# The real pi-canon, as an oracle: its repository (a bare mirror by default) and a `tsx` to run its
# TypeScript. Tests that need them skip without them (`npm install --prefix DIR tsx` gives a tsx).
PI_CANON_REPO = Path(os.environ.get("PI_CANON_REPO", "/work/.mirror/shaneconner+pi-canon/repo"))


def pi_canon_tsx() -> str:
    import shutil

    return os.environ.get("PI_CANON_TSX") or shutil.which("tsx") or ""


def pi_canon_source(folder: Path, *paths: str) -> Path:
    """`paths` of pi-canon's HEAD extracted into `folder`; pytest.skip without the repository or tsx."""
    import subprocess

    import pytest

    if not (PI_CANON_REPO / "HEAD").exists() and not (PI_CANON_REPO / ".git").exists():
        pytest.skip(f"no pi-canon repository at {PI_CANON_REPO}")
    tsx = pi_canon_tsx()
    if not tsx or not os.path.exists(tsx):
        pytest.skip("no tsx to run pi-canon's TypeScript (PI_CANON_TSX)")
    archive = subprocess.run(["git", "--git-dir", str(PI_CANON_REPO), "archive", "HEAD", *paths],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "x"], cwd=folder, input=archive, check=True)
    return folder
