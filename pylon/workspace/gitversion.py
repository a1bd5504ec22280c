"""`git version`, asked once per process and kept across processes per git binary: ws apply, sync and
conflicts read it to choose how to ask git for a merge (pylon/workspace/merge/conflicts.py)."""

from __future__ import annotations

import os

from pylon.workspace.git import run

_VERSION: list[str] = []


def version() -> str:
    """`git version`'s answer, asked once per process, and kept across processes in pylon's state
    folder for the git binary PATH finds, keyed by its real path and stat data (a new install or
    an upgrade changes them, and git is asked again)."""
    if _VERSION:
        return _VERSION[0]
    key = _binary_key()
    path = None
    if key is not None:
        from pylon.state import state_home

        path = os.path.join(state_home(), "cache", "git-version")
        try:
            with open(path, encoding="utf-8", errors="surrogateescape") as fh:
                kept_key, _, text = fh.read(8192).partition("\n")
            if kept_key == key and text.startswith("git version "):
                _VERSION.append(text)
                return text
        except OSError:
            pass
    text = run(["version"]).decode("utf-8", "replace").strip()
    _VERSION.append(text)
    if path is not None and key is not None:
        from pylon.atomic import replace_unsynced

        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            replace_unsynced(path, f"{key}\n{text}".encode("utf-8", "surrogateescape"))
        except OSError:
            pass  # a cache: the next process asks git again
    return text


def _binary_key() -> str | None:
    """The git that posix_spawnp starts (the first executable `git` on PATH), as its real path and
    stat data; None when there is none to name. Not shutil.which: importing shutil costs about 9 ms
    (it brings bz2 and lzma), more than the walk."""
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(folder or ".", "git")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            real = os.path.realpath(candidate)
            if "\n" in real:
                return None
            try:
                st = os.stat(real)
            except OSError:
                return None
            return f"{real}\0{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"
    return None
