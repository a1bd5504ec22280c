"""The environment every git subprocess (and pygit2 use) runs with.

Hooks export repository-locating variables (pre-commit exports a *relative* GIT_INDEX_FILE); a
tool that inherits them reads or writes the wrong index. We drop every inherited GIT_* variable
except identity, config-location and credential ones, and ask git not to take optional locks.
"""

from __future__ import annotations

import os

_KEEP_PREFIXES = (
    "GIT_AUTHOR_",
    "GIT_COMMITTER_",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_SSH",
    "GIT_ASKPASS",
    "GIT_TERMINAL_PROMPT",
    "GIT_TRACE",
    "GIT_EXEC_PATH",
)


def git_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """A copy of os.environ with inherited GIT_* scrubbed, GIT_OPTIONAL_LOCKS=0, LC_ALL=C."""
    env = {
        key: value for key, value in os.environ.items() if not key.startswith("GIT_") or key.startswith(_KEEP_PREFIXES)
    }
    env["GIT_OPTIONAL_LOCKS"] = "0"  # `git status` must never take index.lock to refresh stats
    env["LC_ALL"] = "C"
    env.setdefault("GIT_TERMINAL_PROMPT", "0")
    if extra:
        env.update(extra)
    return env


def scrubbed_names() -> list[str]:
    """Names of inherited GIT_* variables that git_env() drops (for diagnostics)."""
    return sorted(k for k in os.environ if k.startswith("GIT_") and not k.startswith(_KEEP_PREFIXES))
