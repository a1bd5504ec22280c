"""The two questions the guard's classifier asks git, answered here so that pylon/guard itself
never runs git: which alias a `git NAME` runs, and which staged content a plain `git reset` would
drop (staged, and no longer what the work tree holds). Asked only for those commands."""

from __future__ import annotations

TIMEOUT = 5.0


def probe(kind: str, cwd: str, args: list[str]) -> str | None:
    """`alias` -> the alias text or ""; `staged-unique` -> the paths, ", "-joined ("" for none).
    None when git cannot answer (not a repository, git missing, a timeout)."""
    import subprocess

    from pylon.gitenv import git_env

    def git(*argv: str) -> bytes | None:
        try:
            done = subprocess.run(
                ["git", *argv], cwd=cwd, env=git_env(), capture_output=True, timeout=TIMEOUT, check=False
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout if done.returncode in (0, 1) else None

    if kind == "alias":
        out = git("config", "--get", f"alias.{args[0]}")
        return None if out is None else out.decode("utf-8", "surrogateescape").strip()
    if kind == "staged-unique":
        staged = git("diff", "--cached", "--name-only", "-z", "--no-renames")
        changed = git("diff", "--name-only", "-z", "--no-renames")
        if staged is None or changed is None:
            return None
        lost = sorted(set(staged.split(b"\0")) & set(changed.split(b"\0")) - {b""})
        return ", ".join(p.decode("utf-8", "surrogateescape") for p in lost)
    return None
