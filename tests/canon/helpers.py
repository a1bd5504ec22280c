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
