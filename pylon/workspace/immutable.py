"""What git says about objects, which never change: asked once per process.

An object id names the same bytes for ever, so a commit read again, or the diff of two trees asked
for again, within one command (an undo reads each step's states for its pairs, its branch check
and two plans) costs a git process and tells nothing new. The answers are kept per object store
(the repository's; pylon's own while a kept state is written, git.objects_in) for the life of the
process, in a bounded table so that a long-running one (`pylon serve`, `pylon mcp`) stays small.
Nothing that can change (a ref, the index, a file) is kept here: a name that is not a full object
id is always asked of git.
"""

from __future__ import annotations

import os

from pylon.workspace import git

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.repo import Checkout

LIMIT = 4096  # answers kept; the table starts over when full (a command needs a few dozen)
LIMIT_BYTES = 32 << 20  # and when their bytes would pass this; a larger answer is never kept
_KEPT: dict[tuple[object, ...], bytes] = {}
_SIZE = [0]
_HEX = frozenset("0123456789abcdef")


def is_oid(name: str) -> bool:
    """A full object id (SHA-1 or SHA-256), as git prints them: nothing else is kept."""
    return len(name) in (40, 64) and not set(name) - _HEX


def _store(checkout: Checkout) -> tuple[object, ...]:
    return (checkout.common_dir, git.object_dirs())


def _seeing(checkout: Checkout) -> list[tuple[object, ...]]:
    """The object stores whose answers hold here: this one, and the repository's own when this one
    reads it too (a kept state's store has the repository's objects as an alternate)."""
    own = _store(checkout)
    alternates = dict(git.object_dirs()).get("GIT_ALTERNATE_OBJECT_DIRECTORIES", "").split(os.pathsep)
    if own[1] and os.path.join(checkout.common_dir, "objects") in alternates:
        return [own, (checkout.common_dir, ())]
    return [own]


def _keep(key: tuple[object, ...], value: bytes) -> None:
    if len(value) > LIMIT_BYTES // 4:
        return
    if len(_KEPT) >= LIMIT or _SIZE[0] + len(value) > LIMIT_BYTES:
        _KEPT.clear()
        _SIZE[0] = 0
    _KEPT[key] = value
    _SIZE[0] += len(value)


def wrote(checkout: Checkout, commit: str, tree: str, message: bytes) -> None:
    """A commit this process just wrote (`git commit-tree`): its tree and message are known, which
    is all a state commit's reader needs (commits(..., written=True))."""
    _keep((_store(checkout), "written", commit), b"tree " + tree.encode() + b"\n\n" + message)


def commits(checkout: Checkout, names: list[str], *, written: bool = False) -> list[bytes]:
    """Each commit's bytes as `git cat-file commit` prints them; the ones not read yet in this
    process come from one `git cat-file --batch`. A name that is not a full object id, or not a
    commit of this repository, is read with `git cat-file commit` (its failure raised as before).
    `written`: the caller reads only the tree line and the message, so a commit this process
    wrote (wrote()) is answered with those."""
    store = _store(checkout)
    found = {n: _KEPT[(store, "commit", n)] for n in names if (store, "commit", n) in _KEPT}
    if written:
        found.update({n: _KEPT[(store, "written", n)] for n in names if (store, "written", n) in _KEPT})
    wanted = [n for n in dict.fromkeys(names) if n not in found and is_oid(n)]
    if wanted and "GIT_OBJECT_DIRECTORY" not in os.environ:
        # loose objects where git would look first (pylon's op log and states stay loose until a
        # gc): read here, and only when the bytes hash to the id (loose.read); else git answers
        from pylon.workspace import loose

        pointed = dict(git.object_dirs())
        alternates = pointed.get("GIT_ALTERNATE_OBJECT_DIRECTORIES", "").split(os.pathsep)
        objects = [pointed.get("GIT_OBJECT_DIRECTORY", ""), *alternates] if pointed else []
        objects = [o for o in objects if o] or [os.path.join(checkout.common_dir, "objects")]
        for name in wanted:
            body = loose.read(objects, name, "commit")
            if body is not None:
                found[name] = body
    asked = [n for n in wanted if n not in found]
    if len(asked) > 1:
        out = git.run(["cat-file", "--batch"], cwd=checkout.root, input="".join(f"{n}\n" for n in asked).encode())
        for name, got in zip(asked, git.batch_objects(out, len(asked))):
            if got is not None and got[0] == b"commit":
                found[name] = got[1]
    for name in names:
        if name not in found:  # one name, or one the batch did not give as a commit: git says why
            found[name] = git.run(["cat-file", "commit", name], cwd=checkout.root)
    for name in wanted:
        if name in found:
            _keep((store, "commit", name), found[name])
    return [found[n] for n in names]


def commit(checkout: Checkout, name: str) -> bytes:
    """One commit's bytes (commits())."""
    return commits(checkout, [name])[0]


def diff(checkout: Checkout, args: list[str], env: dict[str, str] | None = None) -> bytes:
    """`git diff-tree` between two objects named by full ids (`args` as for git.run, the two ids
    the only words that are not options before any `--`): the same two trees say nothing; kept."""
    names = [a for a in (args[: args.index("--")] if "--" in args else args)[1:] if not a.startswith("-")]
    if len(names) != 2 or not all(is_oid(n) for n in names):
        return git.run(args, cwd=checkout.root, env=env)
    if names[0] == names[1]:
        return b""
    return _asked(checkout, args, None, env)


def tree_of(checkout: Checkout, name: str) -> str:
    """The tree `name` names, as `git rev-parse --verify <name>^{tree}` says it (its failure raised
    as git's); asked once per process when `name` is a full object id."""
    args = ["rev-parse", "--verify", name + "^{tree}"]
    out = _asked(checkout, args, None, None) if is_oid(name) else git.run(args, cwd=checkout.root)
    return out.decode().strip()


def name_only(
    checkout: Checkout, old: str, new: str, *, env: dict[str, str] | None = None, here: bool = True
) -> list[str]:
    """The paths that differ between two trees named by full ids (`git diff-tree -r --name-only`,
    no renames), sorted as git sorts them. Either order gives the same paths, so one answer serves
    a capture's check against the last state and the op's summary of the same two states. `env` and
    `here` (run in the checkout; else where `env`'s GIT_DIR says) only say where git runs: the
    answer depends on the two trees alone."""
    if old == new:
        return []
    args = ["diff-tree", "-r", "-z", "--name-only", "--no-renames", old, new]
    if not (is_oid(old) and is_oid(new)):
        out = git.run(args, cwd=checkout.root if here else None, env=env)
    else:
        pair = ("name-only", min(old, new), max(old, new))
        kept = next((_KEPT[k] for k in ((s, *pair) for s in _seeing(checkout)) if k in _KEPT), None)
        out = kept if kept is not None else git.run(args, cwd=checkout.root if here else None, env=env)
        if kept is None:
            _keep((_store(checkout), *pair), out)
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def batch(checkout: Checkout, args: list[str], query: bytes) -> bytes:
    """`git cat-file --batch...` of `query`, lines that each name an object by full id (`<id>` or
    `<id>:<path>`); kept. Any other query is asked of git every time."""
    lines = query.split(b"\n")
    if lines[-1] or not all(is_oid(line.partition(b":")[0].decode("ascii", "replace")) for line in lines[:-1]):
        return git.run(args, cwd=checkout.root, input=query)
    return _asked(checkout, args, query, None)


def _asked(checkout: Checkout, args: list[str], query: bytes | None, env: dict[str, str] | None) -> bytes:
    key = (_store(checkout), tuple(args), query, tuple(sorted((env or {}).items())))
    out = _KEPT.get(key)
    if out is None:
        out = git.run(args, cwd=checkout.root, input=query, env=env)
        _keep(key, out)
    return out
