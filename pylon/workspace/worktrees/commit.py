"""`ws finish ID --commit MSG` commits the way `git commit` does.

What is committed: every path the session's applies brought into this checkout since its last
finish (the `apply` ops of the session in effect, of its baseline, after the newest finish that
committed: not only the last apply, so a file added by an earlier apply is committed too), as the
checkout holds it now, where that differs from HEAD. The commit is built as `git commit -- PATHS`
builds it: a temporary index holding HEAD's tree with those paths as they are in the working tree
(the person's own staged and unstaged work elsewhere stays out and untouched).

The repository's hooks run as `git commit` runs them (`git hook run`, git >= 2.36, in the
worktree's top folder, `GIT_INDEX_FILE` naming the temporary index): `pre-commit`, then
`prepare-commit-msg FILE message`, `commit-msg FILE`, and `post-commit` once the commit is made.
`--no-verify` skips `pre-commit` and `commit-msg`, as git's does. A hook that exits non-zero stops
the commit (`commit-hook-refused`, exit 1, the hook's output quoted); what the hooks leave in the
index and the message file is what is committed, the message cleaned as `git commit -m` cleans it
(`git stripspace`). Nothing to commit is `nothing-to-commit` (exit 1).
"""

from __future__ import annotations

import os

from pylon.workspace import git
from pylon.workspace.ops import oplog
from pylon.workspace.repo import Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.worktrees.owned import Owned

NO_VERIFY_SKIPS = ("pre-commit", "commit-msg")


class Made:
    """A commit made like git's: the commit, its tree, the message, what the hooks said."""

    __slots__ = ("commit", "tree", "message", "paths", "left_out", "output", "skipped")

    def __init__(self) -> None:
        self.commit = self.tree = self.message = ""
        self.paths: list[str] = []
        self.left_out: list[str] = []  # paths of the session the commit does not hold as the checkout does
        self.output = ""  # what the hooks printed
        self.skipped: list[str] = []  # hooks --no-verify skipped


def brought(checkout: Checkout, found: Owned) -> list[str]:
    """Paths the session's applies in effect brought into this checkout since its last finish
    that committed (oplog: `apply` ops of this id and baseline, done; a `finish` with a commit
    ends the run; undone applies brought nothing)."""
    from pylon.workspace.commits import read_states
    from pylon.workspace.sides import tree_diffs

    steps: list[str] = []  # each step's before and after, read in one batch
    for op in oplog.entries(checkout):
        if str(op.data.get("id")) != found.id or op.data.get("baseline") != found.baseline:
            continue
        if op.kind == "finish" and op.status == "done" and op.data.get("commit"):
            break
        if op.kind != "apply" or op.status != "done":
            continue
        for step in op.steps:
            steps += [step.before, step.after]
    states = read_states(checkout, steps)
    pairs = [(states[i].worktree, states[i + 1].worktree) for i in range(0, len(states), 2)]
    found_paths: dict[str, None] = {}
    for diff in tree_diffs(checkout, pairs):
        for _status, path in diff:
            found_paths.setdefault(path, None)
    return sorted(found_paths)


def entries(checkout: Checkout, tree: str, paths: list[str]) -> dict[str, str]:
    """path -> `mode oid` of each of `paths` that `tree` holds."""
    if not paths:
        return {}
    out = git.run(
        ["ls-tree", "-r", "-z", "--full-tree", tree, "--", *paths],
        cwd=checkout.root,
        env={"GIT_LITERAL_PATHSPECS": "1"},
    )
    found = {}
    for record in out.decode("utf-8", "surrogateescape").split("\0"):
        if record:
            meta, path = record.split("\t", 1)
            mode, _kind, oid = meta.split()
            found[path] = f"{mode} {oid}"
    return found


def changed(checkout: Checkout, head_tree: str | None, worktree: str, paths: list[str]) -> list[str]:
    """Those of `paths` whose working-tree entry differs from HEAD's."""
    now, then = entries(checkout, worktree, paths), entries(checkout, head_tree, paths) if head_tree else {}
    return [p for p in paths if now.get(p) != then.get(p)]


def _hook(checkout: Checkout, name: str, args: list[str], env: dict[str, str], made: Made) -> None:
    code, out, err = git.run_full(["hook", "run", "--ignore-missing", name, "--", *args], cwd=checkout.root, env=env)
    text = (out + err).decode("utf-8", "replace")
    made.output += text
    if code != 0:
        from pylon.errors import PylonError

        shown = "\n".join(text.strip().splitlines()[-20:])
        raise PylonError(
            "commit-hook-refused",
            f"The repository's {name} hook refused the commit (exit {code}), as it would refuse `git commit`"
            + (f":\n{shown}" if shown else ".")
            + "\nNothing was committed and the worktree was kept; what was "
            "applied stays in this checkout (`pylon ws undo` takes it back).",
            "Fix what the hook reports, then run the same `pylon ws finish ID --commit MSG` again (or skip the "
            "pre-commit and commit-msg hooks, as `git commit --no-verify` does, with --no-verify).",
            details={"hook": name, "exit": code, "output": text[-4000:]},
        )


def commit(
    checkout: Checkout,
    head: str | None,
    head_tree: str | None,
    worktree: str,
    paths: list[str],
    message: str,
    *,
    verify: bool = True,
) -> Made:
    """Commit `paths` (as `worktree` holds them, on HEAD's tree) through the repository's hooks;
    the commit is made but no ref moves (the caller's op moves the branch)."""
    from pylon.workspace.commits import remove_index

    made = Made()
    made.paths = paths
    wanted = entries(checkout, worktree, paths)
    info = "".join(f"{wanted[p]}\t{p}\0" if p in wanted else f"0 {'0' * 40}\t{p}\0" for p in paths)
    index = os.path.join(checkout.pylon_dir(), f"finish-commit-{os.getpid()}")
    env = {"GIT_INDEX_FILE": index, "GIT_EDITOR": ":"}
    msg_file = os.path.join(checkout.git_dir, "COMMIT_EDITMSG")
    try:
        git.run(["read-tree", head_tree] if head_tree else ["read-tree", "--empty"], cwd=checkout.root, env=env)
        git.run(
            ["update-index", "-z", "--add", "--remove", "--replace", "--index-info"],
            cwd=checkout.root,
            env=env,
            input=info.encode("utf-8", "surrogateescape"),
        )
        if verify:
            _hook(checkout, "pre-commit", [], env, made)
        else:
            made.skipped += NO_VERIFY_SKIPS
        with open(msg_file, "w", encoding="utf-8") as fh:
            fh.write(message if message.endswith("\n") else message + "\n")
        _hook(checkout, "prepare-commit-msg", [msg_file, "message"], env, made)
        if verify:
            _hook(checkout, "commit-msg", [msg_file], env, made)
        with open(msg_file, "rb") as fh:
            raw = fh.read()
        made.message = git.run(["stripspace"], cwd=checkout.root, input=raw).decode("utf-8", "surrogateescape")
        if not made.message.strip():
            from pylon.errors import UsageError

            raise UsageError(
                "empty-commit-message",
                "The commit message is empty once the hooks ran (git aborts such "
                "a commit too); nothing was committed and the worktree was kept.",
                "Give a message: pylon ws finish ID --commit 'What it does'",
            )
        made.tree = git.run(["write-tree"], cwd=checkout.root, env=env).decode().strip()  # what the hooks left
        args = ["commit-tree", "--no-gpg-sign", made.tree, *(["-p", head] if head else []), "-F", "-"]
        made.commit = (
            git.run(
                args, cwd=checkout.root, input=made.message.encode("utf-8", "surrogateescape"), what="git commit-tree"
            )
            .decode()
            .strip()
        )
    finally:
        remove_index(index)
    kept = entries(checkout, made.tree, paths)
    made.left_out = [p for p in paths if kept.get(p) != wanted.get(p)]
    return made


def post_commit(checkout: Checkout, made: Made) -> None:
    """The post-commit hook, once the branch points at the commit (its exit status is ignored, as git ignores it)."""
    code, out, err = git.run_full(["hook", "run", "--ignore-missing", "post-commit"], cwd=checkout.root)
    made.output += (out + err).decode("utf-8", "replace")
