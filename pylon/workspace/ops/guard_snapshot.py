"""Guard snapshots: the checkout state before a destructive command, under refs/pylon/guard/<n>.

The snapshot is a state commit in the same format as a baseline (state.capture: HEAD, the index
tree, the working tree with untracked files), whose tree also holds the ignored files the
command would remove: those `git clean -n` names for a `git clean`, and the ignored files below
the paths of an `rm` (asked with `git ls-files --others --ignored`). Those files are stored
byte for byte (no clean filters), with their mode, symlinks as links. The commit also records
the permission bits and empty folders (exact.py), so the restore is exact. A removal through a
symlink to a folder (`rm -rf link/`) reaches that folder's ignored files too: they are kept. A
command that would destroy what no snapshot holds (a nested repository with its own objects, a
FIFO, socket or device) gets no snapshot (`cannot-keep`: the hook asks instead). `pylon ws restore
guard-<n>` brings it back (docs/reference/workspace.md); a snapshot larger than the policy's limit is not taken.
"""

from __future__ import annotations

import os

from pylon.findroot import find_root  # noqa: F401 - kept here for its callers
from pylon.workspace import exact, git, immutable, refs
from pylon.workspace.repo import Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.verdict import Target
    from pylon.workspace.exact import Scan

_ATTEMPTS = 20  # concurrent hooks racing for the same number move on to the next one


guard_prefix = refs.guard_prefix
anchors_prefix = refs.guard_anchors_prefix


def recorded_checkout(message: str) -> str | None:
    """The checkout a snapshot was taken in (`pylon-checkout:` of its message; None before it
    was recorded)."""
    for line in message.splitlines():
        if line.startswith("pylon-checkout: "):
            return line[len("pylon-checkout: ") :]
    return None


def _numbers(checkout: Checkout) -> list[int]:
    out = git.run(["for-each-ref", "--format=%(refname)", guard_prefix(checkout)], cwd=checkout.root)
    found = []
    for line in out.decode("utf-8", "replace").splitlines():
        tail = line.rsplit("/", 1)[-1]
        if tail.isdigit():
            found.append(int(tail))
    return found


def reached(checkout: Checkout, targets: list[Target]) -> list[str]:
    """The root-relative paths a removal of the path targets reaches: each path, and the folder a
    symlink to a folder leads to (`rm -rf link/` empties that folder), when it lies in the checkout."""
    found: list[str] = []
    root = os.path.realpath(checkout.root)
    for t in targets:
        if t.kind not in ("path", "find"):
            continue
        rel = t.path or "."
        found.append(rel)
        full = os.path.join(checkout.root, rel)
        if os.path.islink(full) and os.path.isdir(full):
            real = os.path.realpath(full)
            if real == root or real.startswith(root + os.sep):
                found.append(os.path.relpath(real, root))
    return list(dict.fromkeys(found))


def scan_roots(checkout: Checkout, targets: list[Target]) -> list[str]:
    """Where the command's damage lies: the removed paths (and the folders symlinks lead to), the
    folder of a `git clean`, the whole checkout for anything else (a `git checkout -- .`)."""
    roots = reached(checkout, [t for t in targets if t.kind in ("path", "find")])
    roots += [t.path or "." for t in targets if t.kind not in ("path", "find")]
    return list(dict.fromkeys(roots))


def check_keepable(checkout: Checkout, targets: list[Target], found: Scan) -> None:
    """Refuse (`cannot-keep`) when the command would destroy what no snapshot holds (a `find`
    deletes only what its tests match, which the snapshot lists one by one)."""
    paths = reached(checkout, [t for t in targets if t.kind == "path"])
    if not paths:
        return
    inside = found.under(paths)
    lost = [f"{p}/.git (a repository of its own)" for p in inside.nested] + inside.special
    if lost:
        from pylon.errors import PylonError

        shown = ", ".join(lost[:10]) + (f" (and {len(lost) - 10} more)" if len(lost) > 10 else "")
        raise PylonError(
            "cannot-keep",
            f"the command would destroy what no snapshot can keep: {shown}",
            "Move those out of the way first, or run the command yourself knowing it cannot be undone.",
            details={"paths": lost[:20], "paths_total": len(lost)},
        )


def removed_files(checkout: Checkout, targets: list[Target]) -> list[str]:
    """Root-relative files outside git's view (ignored) that the command would remove."""
    found: set[str] = set()
    paths = list(reached(checkout, [t for t in targets if t.kind == "path"]))
    if paths:
        out = git.run(
            ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--full-name", "--", *paths],
            cwd=checkout.root,
        )
        found.update(p for p in out.decode("utf-8", "surrogateescape").split("\0") if p)
    for t in targets:
        if t.kind == "find":  # the same tests, listing instead of deleting
            found.update(git_free_find(checkout.root, t.path or ".", t.args))
            continue
        if t.kind != "git-clean":
            continue
        base = os.path.join(checkout.root, t.path)
        out = git.run(["clean", "-n", *t.args], cwd=base)
        for line in out.decode("utf-8", "surrogateescape").splitlines():
            if not line.startswith("Would remove "):
                continue
            rel = os.path.normpath(os.path.join(t.path, line[len("Would remove ") :]))
            full = os.path.join(checkout.root, rel)
            if os.path.isdir(full) and not os.path.islink(full):
                for folder, dirs, files in os.walk(full):
                    for name in files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
                        found.add(os.path.relpath(os.path.join(folder, name), checkout.root))
                    if not dirs and not files:  # an empty folder goes too: named, so it comes back
                        found.add(os.path.relpath(folder, checkout.root))
            elif os.path.lexists(full):
                found.add(rel)
    return sorted(found)


def git_free_find(root: str, start: str, tests: tuple[str, ...]) -> list[str]:
    """Root-relative paths `find START TESTS -print0` lists (tests only: the classifier passes no
    action): files, symlinks and empty folders (the others come back with what they hold)."""
    import subprocess

    whole = tests[:1] == ("+r",)  # `-exec rm -r {}`: a matched folder goes with all it holds
    proc = subprocess.run(["find", start, *tests[whole:], "-print0"], cwd=root, capture_output=True, check=False)
    out: list[str] = []
    for raw in proc.stdout.split(b"\0"):
        if not raw:
            continue
        rel = os.path.normpath(os.fsdecode(raw))
        full = os.path.join(root, rel)
        if ".git" in rel.split(os.sep):
            continue  # the checkout's .git: named as a path of its own (the store keeps it); a nested one is refused
        if os.path.isdir(full) and not os.path.islink(full):
            if whole:
                for folder, dirs, files in os.walk(full):
                    out.extend(
                        os.path.relpath(os.path.join(folder, n), root)
                        for n in files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]
                    )
                    if not dirs and not files:  # an empty folder goes too: named, so it comes back
                        out.append(os.path.relpath(folder, root))
                continue
            if os.listdir(full):
                continue  # a folder with something in it: what it holds is listed
        out.append(rel)
    return sorted(set(out))


def size_of(checkout: Checkout, targets: list[Target], extra: list[str]) -> int:
    """Bytes the snapshot must hold beyond what git already has: the extra files, and every file
    below the removed paths (an upper bound: tracked files are mostly stored already)."""
    total = 0
    seen: set[str] = set()
    for rel in extra:
        seen.add(rel)
        total += _lsize(os.path.join(checkout.root, rel))
    for rel_path in reached(checkout, [t for t in targets if t.kind == "path" and t.path]):
        # tracked content is in git already; find and git clean lists are counted above
        full = os.path.join(checkout.root, rel_path)
        if os.path.isdir(full) and not os.path.islink(full):
            for folder, dirs, files in os.walk(full):
                dirs[:] = [d for d in dirs if d != ".git"]
                for name in files:
                    rel = os.path.relpath(os.path.join(folder, name), checkout.root)
                    if rel not in seen:
                        total += _lsize(os.path.join(folder, name))
        elif rel_path not in seen:
            total += _lsize(full)
    return total


def _lsize(path: str) -> int:
    try:
        return os.lstat(path).st_size
    except OSError:
        return 0


def _check_size(size: int, max_bytes: int) -> None:
    if size > max_bytes:
        from pylon.errors import PylonError

        raise PylonError(
            "guard-snapshot-too-large",
            f"The snapshot would hold {size} bytes, more than the limit of {max_bytes}.",
            "Raise [snapshot] max_bytes in .pylon/guard.toml, or snapshot by hand first.",
            details={"bytes": size, "max_bytes": max_bytes},
        )


def check_takeable(checkout: Checkout, targets: list[Target], *, max_bytes: int) -> None:
    """Raise what `take` would raise before writing anything (`guard-snapshot-too-large`,
    `cannot-keep`), writing nothing: `pylon guard check` names the hook's real answer with it."""
    targets = [t for t in targets if t.kind != "refs"]
    _check_size(size_of(checkout, targets, removed_files(checkout, targets)), max_bytes)
    check_keepable(checkout, targets, exact.finish(exact.start(checkout.root, scan_roots(checkout, targets))))


def take(checkout: Checkout, targets: list[Target], *, command: str, max_bytes: int) -> dict[str, object]:
    """Snapshot the checkout (plus the ignored files the command removes) as guard-<n>.
    Refuses with `guard-snapshot-too-large` when it would hold more than max_bytes."""
    from pylon.workspace import state as st
    from pylon.workspace.ops import guard_refs

    ref_lines, anchors = guard_refs.message_lines(checkout, targets)
    only_refs = bool(targets) and all(t.kind == "refs" for t in targets)
    targets = [t for t in targets if t.kind != "refs"]
    extra = removed_files(checkout, targets)
    size = size_of(checkout, targets, extra)
    _check_size(size, max_bytes)
    # beside the capture, over what the command reaches: bits, empty folders, what cannot be kept
    roots = scan_roots(checkout, targets)
    walk = exact.start(checkout.root, roots)
    try:
        state = st.capture(checkout, label="guard", exact=False)
    finally:
        found = exact.finish(walk)
    check_keepable(checkout, targets, found)
    assert state.commit is not None
    commit = state.commit
    tree = state.worktree
    if extra:
        from pylon.workspace.commits import tree_with_files

        tree = tree_with_files(checkout, state.worktree, extra)
    message = immutable.commit(checkout, commit).decode("utf-8", "replace")
    parents = [line[7:] for line in message.partition("\n\n")[0].split("\n") if line.startswith("parent ")]
    body = message.partition("\n\n")[2]
    if extra:
        body += f"pylon-guard-files: {len(extra)}\n"  # files outside git's view it would remove
    body += "".join(line + "\n" for line in ref_lines)  # the refs it deletes (guard_refs.py)
    if only_refs:
        body += "pylon-guard-scope: refs\n"
    body += f"pylon-checkout: {checkout.root}\n"  # whose state this is (issue 28)
    scope = None if "." in roots else roots
    body += f"pylon-meta: {exact.encode(exact.meta_for(checkout.root, tree, found, scope))}\n"
    commit = st.commit_tree(checkout, tree, parents, body)
    note = command.splitlines()[0][:200] if command else ""
    for _ in range(_ATTEMPTS):
        number = max(_numbers(checkout), default=0) + 1
        ref = f"{guard_prefix(checkout)}{number}"
        # `create` fails when another hook took the number first: try the next one
        code, _, _ = git.run_full(
            ["update-ref", "-m", f"pylon guard: {note}", "--create-reflog", ref, commit, ""], cwd=checkout.root
        )
        if code == 0:
            guard_refs.anchor(checkout, number, anchors)
            return {
                "name": f"guard-{number}",
                "ref": ref,
                "commit": commit,
                "extra_files": len(extra),
                "bytes": size,
                "head": state.head,
                "worktree_tree": state.worktree,
            }
    raise git.failure(["update-ref", ref], 1, b"could not create a guard ref")


def list_snapshots(checkout: Checkout) -> list[dict[str, object]]:
    """Guard snapshots of this checkout, newest first."""
    out = git.run(
        ["for-each-ref", "--sort=-committerdate", "--format=%(refname)%00%(objectname)", guard_prefix(checkout)],
        cwd=checkout.root,
    )
    items: list[dict[str, object]] = []
    for line in out.decode("utf-8", "replace").splitlines():
        ref, _, commit = line.partition("\0")
        items.append({"name": "guard-" + ref.rsplit("/", 1)[-1], "ref": ref, "commit": commit})
    return items
