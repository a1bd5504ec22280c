"""ccusage (npm), the usage reader nobody here wrote, installed once, pinned, into a folder under the
e2e tier's npm folder, and run on the transcripts the real clients wrote (tests/e2e/test_sessions.py).

ccusage 20 is a native binary behind a small launcher: npm installs the platform's build as an
optional dependency (`@ccusage/ccusage-linux-x64`, ...). 20.0.24 is the newest version whose
linux-x64 build the registry has. Its Codex reader is its `codex` command: the separate
`@ccusage/codex` package is deprecated (its 19.0.0 only prints "use npx ccusage instead").
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.e2e.clients import NPM_DIR, Unavailable

VERSION = "20.0.24"


def install(folder: Path = NPM_DIR / "ccusage") -> Path:
    """The `ccusage` launcher of the pinned version, installed on first use (under a lock)."""
    if shutil.which("npm") is None:
        raise Unavailable("npm is not on PATH (the sessions check runs ccusage from npm)")
    folder.mkdir(parents=True, exist_ok=True)
    binary = folder / "node_modules" / ".bin" / "ccusage"

    def current() -> bool:
        if not binary.exists():
            return False
        try:
            out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return False
        return out.returncode == 0 and VERSION in out.stdout

    with open(folder / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if current():
            return binary
        try:
            proc = subprocess.run(
                [
                    "npm",
                    "install",
                    "--prefix",
                    str(folder),
                    "--no-audit",
                    "--no-fund",
                    "--no-save",
                    "--loglevel=error",
                    f"ccusage@{VERSION}",
                ],
                capture_output=True,
                text=True,
                timeout=600,
            )
        except subprocess.TimeoutExpired:
            raise Unavailable(f"npm install ccusage@{VERSION} took over 10 minutes") from None
        if proc.returncode != 0 or not current():
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            raise Unavailable(
                f"npm install ccusage@{VERSION} into {folder} failed or gave no working binary "
                f"(its native build for this platform?): {' | '.join(tail)}"
            )
    return binary


def report(binary: Path, client: str, env: dict[str, str]) -> dict[str, Any]:
    """`ccusage claude|codex session --json --offline` over the folders `env` names."""
    argv = [str(binary), client, "session", "--json", "--offline"]
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"{argv}: {proc.stderr[-2000:]}"
    return json.loads(proc.stdout)
