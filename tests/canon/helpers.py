"""Helpers for the canon tests: build stores on disk and snapshot trees to prove nothing changed."""

from __future__ import annotations

import os
import stat
from datetime import UTC, datetime
from pathlib import Path


def today() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d")


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


# The real pi-canon, as an oracle: a bare clone of its repository and a `tsx` to run its TypeScript.
# The clone is the project's pinned copy, ../shared/oracles/pi-canon.git beside the checkout
# (../shared/oracles/README.md), or PI_CANON_REPO. Without one, or without tsx, the tests that need
# them skip and say which is missing; .ci/run sets PYLON_REQUIRE_ORACLES=1, so in CI they fail instead.
# Both are read at import: the per-test fixture drops every PYLON_* variable.
CHECKOUT = Path(__file__).resolve().parents[2]
PI_CANON_REPO = Path(os.environ.get("PI_CANON_REPO") or CHECKOUT.parent / "shared" / "oracles" / "pi-canon.git")
PI_CANON_PIN = "03be254ba9ee7dc0aba16c96dad180341598d7fb"  # "Release pi-canon 0.3.0", the version canon matches
REQUIRE_ORACLES = os.environ.get("PYLON_REQUIRE_ORACLES") == "1"


def pi_canon_tsx() -> str:
    import shutil

    return os.environ.get("PI_CANON_TSX") or shutil.which("tsx") or ""


def _missing(what: str) -> None:
    import pytest

    if REQUIRE_ORACLES:
        pytest.fail(f"{what} (PYLON_REQUIRE_ORACLES=1: CI runs these tests, it does not skip them)")
    pytest.skip(what)


def pi_canon_source(folder: Path, *paths: str) -> Path:
    """`paths` of pi-canon at PI_CANON_PIN extracted into `folder`; a skip (a failure in CI) without the
    oracle or tsx."""
    import subprocess

    objects = PI_CANON_REPO / "objects"
    if not objects.is_dir():
        objects = PI_CANON_REPO / ".git" / "objects"  # a clone with a work tree serves as well
    if not objects.is_dir():
        _missing(
            f"no pi-canon oracle at {PI_CANON_REPO} (a bare clone of shaneconner/pi-canon; PI_CANON_REPO names another)"
        )
    tsx = pi_canon_tsx()
    if not tsx or not os.path.exists(tsx):
        _missing("no tsx to run pi-canon's TypeScript (PI_CANON_TSX, or tsx on PATH)")
    # The shared copy is read-only and has no refs/ folder, so git does not take it for a repository:
    # read its objects through a scratch repository's alternates, at the pinned commit.
    scratch = folder / ".pi-canon.git"
    subprocess.run(["git", "init", "-q", "--bare", str(scratch)], check=True)
    (scratch / "objects" / "info" / "alternates").write_text(f"{objects.resolve()}\n", encoding="utf-8")
    archive = subprocess.run(
        ["git", "--git-dir", str(scratch), "archive", PI_CANON_PIN, *paths], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "x"], cwd=folder, input=archive, check=True)
    return folder
