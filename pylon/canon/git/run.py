"""Running git for canon: the one runner (pylon.workspace.git: posix_spawn, the scrubbed environment
of pylon.gitenv, GIT_OPTIONAL_LOCKS=0), the repository around a project, revisions and name-status.

Every call passes `--no-optional-locks` as well, so nothing canon runs ever takes `index.lock`
(pre-commit and editors run git at the same moment).
"""

from __future__ import annotations

import os

from pylon.canon.record import Frozen, Record
from pylon.errors import PylonError, UsageError


def git(repo: str, *args: str, env: dict[str, str] | None = None, ok: tuple[int, ...] = (0,)) -> bytes:
    from pylon.workspace.git import run

    return run(["--no-optional-locks", *args], cwd=repo, env=env, ok=ok)


def git_full(repo: str, *args: str, env: dict[str, str] | None = None) -> tuple[int, bytes, bytes]:
    from pylon.workspace.git import run_full

    return run_full(["--no-optional-locks", *args], cwd=repo, env=env)


class Running:
    """A git process started to run beside others (`Repo.start`); `finish()` waits and returns its
    stdout (an exit status outside `ok` raises git-failed, as `git` does)."""

    def __init__(self, repo: str, args: tuple[str, ...], ok: tuple[int, ...], env: dict[str, str] | None) -> None:
        from pylon.workspace.git import start

        self.ok = ok
        self.proc = start(["--no-optional-locks", *args], cwd=repo, env=env)

    def finish(self) -> bytes:
        from pylon.workspace.git import finish_run

        return finish_run(self.proc, ok=self.ok)

    def abandon(self) -> None:
        """Stop it and reap it (the work beside it failed): its answer is not wanted."""
        self.proc.kill()
        self.proc.wait()


class Repo(Record):
    __slots__ = ("top", "git_dir", "head", "shallow")

    def __init__(self, top: str, git_dir: str, head: str | None, shallow: bool) -> None:
        self.top = top  # the working tree's top-level folder (absolute, real path)
        self.git_dir = git_dir  # this worktree's git dir (absolute)
        self.head = head  # the HEAD commit, None before the first commit
        self.shallow = shallow

    def run(self, *args: str, env: dict[str, str] | None = None, ok: tuple[int, ...] = (0,)) -> bytes:
        return git(self.top, *args, env=env, ok=ok)

    def start(self, *args: str, ok: tuple[int, ...] = (0,), env: dict[str, str] | None = None) -> Running:
        """Start a read-only git command that takes no lock (no lock wait, unlike `run`), to run
        beside another; `.finish()` collects it."""
        return Running(self.top, args, ok, env)

    def empty_tree(self) -> str:
        """The empty tree's id in this repository's hash (sha1 or sha256), for a diff before the first commit."""
        from pylon.workspace.git import run

        return run(["hash-object", "-t", "tree", "--stdin"], cwd=self.top, input=b"").decode().strip()

    def base_or_empty(self) -> str:
        return self.head or self.empty_tree()


def not_a_checkout(folder: str, exit_code: int = 2) -> PylonError:
    return PylonError(
        "not-a-git-checkout",
        f"{folder} is not inside a git checkout, and this command reads git history.",
        "Run it inside the repository (or `git init` first); `canon lint` without --since needs no git.",
        exit_code=exit_code,
    )


def open_repo(folder: str, exit_code: int = 2) -> Repo:
    """The repository whose working tree holds `folder` (a linked worktree works the same). One git
    process in the usual case (a checkout with a commit); an unborn branch or anything unusual
    takes the two-call path below."""
    code, out, _ = git_full(
        folder, "rev-parse", "--show-toplevel", "--absolute-git-dir", "--is-shallow-repository", "HEAD^{commit}"
    )
    lines = out.decode("utf-8", "surrogateescape").splitlines()
    if code == 0 and len(lines) == 4 and lines[0] and len(lines[3]) in (40, 64):
        return Repo(os.path.realpath(lines[0]), lines[1], lines[3], lines[2].strip() == "true")
    code, out, _ = git_full(folder, "rev-parse", "--show-toplevel", "--absolute-git-dir", "--is-shallow-repository")
    lines = out.decode("utf-8", "surrogateescape").splitlines()
    if code != 0 or len(lines) < 3 or not lines[0]:
        raise not_a_checkout(folder, exit_code)
    code, head, _ = git_full(folder, "rev-parse", "--verify", "-q", "HEAD^{commit}")
    return Repo(
        os.path.realpath(lines[0]), lines[1], head.decode().strip() if code == 0 else None, lines[2].strip() == "true"
    )


def bad_revision(repo: Repo, rev: str, flag: str) -> UsageError:
    if repo.shallow:
        message = f"{flag} {rev}: this is a shallow clone and {rev!r} is not in the history it has."
        hint = (
            f"Fetch more history first: `git fetch --deepen=200` (or `git fetch origin {rev}`; "
            "actions/checkout: `fetch-depth: 0`), then run the same command again."
        )
    else:
        message = f"{flag} {rev}: {rev!r} is not a commit in this repository."
        hint = "Name a branch, tag or commit (`git log --oneline` lists them); a remote branch may need `git fetch`."
    return UsageError("bad-revision", message, hint, details={"revision": rev, "shallow": repo.shallow})


def resolve_rev(repo: Repo, rev: str, flag: str) -> str:
    if rev.startswith("-"):
        raise bad_revision(repo, rev, flag)
    code, out, _ = git_full(repo.top, "rev-parse", "--verify", "-q", "--end-of-options", rev + "^{commit}")
    if code != 0:
        raise bad_revision(repo, rev, flag)
    return out.decode().strip()


def merge_base(repo: Repo, rev: str, flag: str, commit: str | None = None) -> str:
    """The commit HEAD's branch forked from `rev` (what a pull request adds is base..HEAD);
    `commit`: `rev` already resolved."""
    commit = commit or resolve_rev(repo, rev, flag)
    if repo.head is None:
        return commit
    code, out, _ = git_full(repo.top, "merge-base", commit, repo.head)
    if code != 0:
        if repo.shallow:
            raise UsageError(
                "bad-revision",
                f"{flag} {rev}: this shallow clone does not reach back to where HEAD and {rev!r} meet.",
                "Fetch more history: `git fetch --deepen=200` (repeat until it works, or `git fetch --unshallow`), "
                "then run the same command again.",
                details={"revision": rev, "shallow": True},
            )
        raise UsageError(
            "bad-revision",
            f"{flag} {rev}: HEAD and {rev!r} share no history.",
            "Name a revision on the same history as HEAD.",
            details={"revision": rev, "shallow": False},
        )
    return out.decode().strip()


class Change(Frozen):
    """One entry of `git diff --name-status`: status letter (A M D T R C), old and new path
    (repository-relative, `/`-separated; equal unless renamed or copied)."""

    __slots__ = ("status", "old", "new", "score")
    status: str
    old: str
    new: str
    score: int

    def __init__(self, status: str, old: str, new: str, score: int = 100) -> None:
        self._init(status=status, old=old, new=new, score=score)


def parse_name_status(data: bytes) -> list[Change]:
    """`git diff --name-status -z` output as Change records (file names are decoded losslessly)."""
    fields = data.split(b"\0")
    out: list[Change] = []
    i = 0
    while i < len(fields) and fields[i]:
        code = fields[i].decode()
        letter = code[0]
        if letter in "RC":
            old, new = fields[i + 1], fields[i + 2]
            i += 3
            score = int(code[1:] or "100")
        else:
            old = new = fields[i + 1]
            i += 2
            score = 100
        out.append(Change(letter, os.fsdecode(old), os.fsdecode(new), score))
    return out


def index_env() -> dict[str, str] | None:
    """The index a hook must read: git exports GIT_INDEX_FILE to pre-commit hooks (relative to the
    top-level, `.git/index.lock` for `git commit -a`, a temporary index for `git commit PATH`).
    The scrubbed environment drops it, so it is passed back explicitly, made absolute."""
    value = os.environ.get("GIT_INDEX_FILE")
    if not value:
        return None
    return {"GIT_INDEX_FILE": os.path.abspath(value)}
