"""The person's ignored files stay with the person: what never goes into an agent's worktree.

A state holds the untracked files that no rule ignored when it was captured. So when the rules of
the main checkout change under the person's files (a session's `.gitignore` moved in with `ws move`,
or applied with `ws apply`), the person's `.env`, `*.log` or `build/` become untracked files of the
checkout's state, and whatever carries that state into a worktree (`ws new`'s baseline, `ws sync`,
`ws move --back`) would copy them there, where an agent's `git add -A` commits them.

`withheld` names those files: untracked in the state, and ignored by the person's own rules, which
are the main checkout's rules on disk (`.gitignore` files, `info/exclude`, `core.excludesFile`) and
the `.gitignore` files of the person's own states: HEAD's commit, and the parked state while a
worktree's state is moved in (keep_ignored.ignored_by answers, through git). Files that
`.worktreeinclude` or the session's `--copy` globs select are the person's choice, and go.
The callers leave the withheld paths as the worktree has them (`keep_theirs`).
"""

from __future__ import annotations

from pylon.workspace import git
from pylon.workspace.repo import Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.commits import State

_LITERAL = {"GIT_LITERAL_PATHSPECS": "1"}


def person_states(checkout: Checkout) -> list[str]:
    """The person's own states, whose `.gitignore` files are the person's rules: the main checkout's
    HEAD, and the parked state of a move in effect."""
    from pylon.workspace.ops.oplog import active_move

    found = []
    head = git.run(["rev-parse", "-q", "--verify", "HEAD^{commit}"], cwd=checkout.root, ok=(0, 1)).decode().strip()
    if head:
        found.append(head)
    move = active_move(checkout)
    if move is not None and move.steps:
        found.append(move.steps[0].before)
    return found


def withheld(
    main: Checkout,
    state: State,
    *,
    trees: list[str] | None = None,
    copy: list[str] | None = None,
    skip: set[str] | None = None,
) -> list[str]:
    """The untracked files of `state` (a state of the main checkout) that are the person's ignored
    files (see the module docstring); `trees`: more of the person's states; `copy`: a session's
    `--copy` globs; `skip`: paths that stay whatever the rules say."""
    from pylon.workspace.ops.keep_ignored import ignored_by

    paths = untracked_files(main, state)
    if skip:
        paths = [p for p in paths if p not in skip]
    if not paths:
        return []
    found = ignored_by(main, paths, [*person_states(main), *(trees or [])])
    if found:
        from pylon.workspace.worktrees.copying import include_patterns, select

        patterns = include_patterns(main.root, copy or [])
        found -= set(select(main.root, patterns)) if patterns else set()
    return sorted(found)


def untracked_files(checkout: Checkout, state: State) -> list[str]:
    """Files of the state's working tree that its index does not hold (its untracked files)."""
    if state.index_tree is None or state.index_tree == state.worktree:
        return []
    out = git.run(
        ["diff-tree", "-r", "-z", "--name-only", "--no-renames", "--diff-filter=A", state.index_tree, state.worktree],
        cwd=checkout.root,
        env=_LITERAL,
    )
    return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]


def keep_theirs(checkout: Checkout, tree: str, paths: list[str], theirs: str) -> str:
    """`tree` with `paths` as `theirs` (a tree) has them: absent where it has nothing there."""
    if not paths:
        return tree
    from pylon.workspace.ops.reverse import overlay

    return overlay(checkout, tree, theirs, paths)
