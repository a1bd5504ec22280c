"""No pylon module reads the environment (or the working directory) when it is imported.

A value read at import would ignore what the process is given later: the tests' fork server
(tests/forkserver.py) imports pylon once and forks for each command line, and a library user may
import pylon before changing os.environ. `PYLON_EDIT_LOCK_TIMEOUT` was once read at import.
"""

from __future__ import annotations

import subprocess
import sys

PROBE = r"""
import os, pkgutil, importlib, sys
seen = []
cls = type(os.environ)
for name in ("__getitem__", "get", "__contains__"):
    original = getattr(cls, name)
    def wrapper(self, key, *rest, _original=original):
        seen.append(key)
        return _original(self, key, *rest)
    setattr(cls, name, wrapper)
real_getcwd = os.getcwd
def getcwd():
    seen.append("<cwd>")
    return real_getcwd()
os.getcwd = getcwd
import pylon
for info in pkgutil.walk_packages(pylon.__path__, "pylon."):
    if info.name.endswith("__main__"):
        continue
    before = len(seen)
    importlib.import_module(info.name)
    ours = ("PYLON_", "XDG_", "GIT_", "HOME", "CLAUDE_", "CODEX_", "NO_COLOR")
    mine = [k for k in seen[before:] if k == "<cwd>" or k.startswith(ours)]
    if mine:
        print(info.name, sorted(set(mine)))
"""


def test_importing_pylon_reads_no_environment_and_no_working_directory() -> None:
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout == "", f"modules that read the environment or cwd at import:\n{proc.stdout}"
