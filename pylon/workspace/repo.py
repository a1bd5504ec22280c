"""Locating the checkout (root, git dir, common dir, prefix) and detecting layouts pylon must name.

One `git rev-parse` finds everything; HEAD's branch is read from the worktree's HEAD file and
operations in progress from the marker files git leaves in the git dir (no git process needed).
"""

from __future__ import annotations

import os

from pylon.workspace import git

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_EMPTY_WRITTEN: set[str] = set()  # object folders known to hold the empty tree (this process)


def stored_tree(checkout: Checkout, tree: str) -> str:
    """`tree`, stored as an object before a commit names it. git knows the empty tree without
    storing it, so `git commit-tree` accepts it unwritten and `git fsck` then reports it missing:
    it is written once (`hash-object -w`; a packed copy is only freshened)."""
    if tree != EMPTY_TREE or checkout.common_dir in _EMPTY_WRITTEN:
        return tree
    loose = os.path.join(checkout.common_dir, "objects", EMPTY_TREE[:2], EMPTY_TREE[2:])
    if not os.path.exists(loose):
        git.run(["hash-object", "-w", "-t", "tree", "--stdin"], cwd=checkout.root, input=b"")
    _EMPTY_WRITTEN.add(checkout.common_dir)
    return tree


# Marker files/folders in the git dir and the operation they mean.
_IN_PROGRESS = (
    ("rebase-merge", "rebase"),
    ("rebase-apply", "rebase"),
    ("MERGE_HEAD", "merge"),
    ("CHERRY_PICK_HEAD", "cherry-pick"),
    ("REVERT_HEAD", "revert"),
    ("BISECT_LOG", "bisect"),
)


class Checkout:
    """A git working tree: where it is and where its git data lives."""

    __slots__ = ("root", "git_dir", "common_dir", "prefix", "cwd")
    objects_kept = False  # pylon's objects for it are never pruned (keep/store.py: the store's)

    def __init__(self, root: str, git_dir: str, common_dir: str, prefix: str, cwd: str) -> None:
        self.root = root
        self.git_dir = git_dir
        self.common_dir = common_dir
        self.prefix = prefix  # cwd relative to root, "" or ending in "/"
        self.cwd = cwd

    @property
    def index_path(self) -> str:
        return os.path.join(self.git_dir, "index")

    @property
    def is_linked(self) -> bool:
        return os.path.realpath(self.git_dir) != os.path.realpath(self.common_dir)

    @property
    def worktree_name(self) -> str | None:
        """The linked worktree's admin name (`.git/worktrees/<name>`), None for the main one."""
        return os.path.basename(self.git_dir.rstrip("/")) if self.is_linked else None

    def pylon_dir(self, create: bool = True) -> str:
        """Per-worktree private state (private index, capture cache) inside the git dir."""
        path = os.path.join(self.git_dir, "pylon")
        if create:
            os.makedirs(path, exist_ok=True)
        return path

    def head_file(self) -> tuple[str | None, str | None]:
        """(branch ref, None) when HEAD is symbolic, (None, oid) when detached."""
        try:
            with open(os.path.join(self.git_dir, "HEAD"), "rb") as fh:
                text = fh.read().decode("utf-8", "replace").strip()
        except OSError:
            return None, None
        if text.startswith("ref:"):
            return text[4:].strip(), None
        return None, text or None

    def head_by_files(self) -> str | None:
        """HEAD's commit id read from the ref files (loose, then packed-refs), without git; None
        when they do not say it plainly (unborn, a reftable, a ref only git can resolve)."""
        if os.path.exists(os.path.join(self.common_dir, "reftable")):
            return None
        text = _read_small(os.path.join(self.git_dir, "HEAD"))
        for _ in range(5):  # a symbolic ref may name another
            if not text.startswith("ref:"):
                break
            ref = text[4:].strip()
            if not ref.startswith("refs/") or ".." in ref:
                return None
            text = _read_small(os.path.join(self.common_dir, ref)) or _packed_ref(self.common_dir, ref)
        return text if len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text) else None

    def in_progress(self) -> list[str]:
        """Operations git has in progress here (merge, rebase, cherry-pick, revert, bisect)."""
        found: list[str] = []
        for marker, name in _IN_PROGRESS:
            if os.path.exists(os.path.join(self.git_dir, marker)) and name not in found:
                found.append(name)
        return found

    def to_root_relative(self, user_path: str) -> str:
        """A path given on the command line (relative to cwd, like git) as root-relative."""
        joined = os.path.normpath(os.path.join(self.cwd, user_path))
        root = os.path.realpath(self.root)
        for base in (self.root, root):
            rel = os.path.relpath(joined, base)
            if rel == ".":
                return ""
            if not rel.startswith(".." + os.sep) and rel != ".." and not os.path.isabs(rel):
                return rel.replace(os.sep, "/")
        real = os.path.realpath(joined)
        rel = os.path.relpath(real, root)
        if rel == ".":
            return ""
        if rel.startswith("..") or os.path.isabs(rel):
            from pylon.errors import UsageError

            raise UsageError(
                "path-outside",
                f"{user_path!r} is outside the checkout at {self.root}.",
                "Pass a path inside the checkout, relative to the current folder.",
            )
        return rel.replace(os.sep, "/")


def _read_small(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            return fh.read(4096).decode("utf-8", "replace").strip()
    except OSError:
        return ""


def _packed_ref(common_dir: str, ref: str) -> str:
    """`ref`'s id in packed-refs ("" when it is not there)."""
    return packed_refs(common_dir).get(ref, "")


def packed_refs(common_dir: str) -> dict[str, str]:
    """Ref name -> id of every ref in a files-backend repository's packed-refs ({} when it has
    none): its header and the peeled `^<id>` lines that follow annotated tags are skipped."""
    found: dict[str, str] = {}
    try:
        with open(os.path.join(common_dir, "packed-refs"), "rb") as fh:
            data = fh.read()
    except OSError:
        return found
    for line in data.split(b"\n"):
        if line and line[:1] not in (b"#", b"^"):
            oid, _, name = line.rstrip(b"\r").partition(b" ")
            found[name.decode("utf-8", "surrogateescape")] = oid.decode("ascii", "replace")
    return found


def _discover(here: str) -> Checkout | None:
    """Find the checkout the way git does for the common layouts, without starting git (~4 ms).

    Returns None for anything unusual (core.worktree, bare repositories, a .git we cannot
    read, GIT_CEILING_DIRECTORIES): `git rev-parse` then decides.
    """
    if os.environ.get("GIT_CEILING_DIRECTORIES") or os.environ.get("GIT_DISCOVERY_ACROSS_FILESYSTEM"):
        return None
    root = here
    while True:
        dotgit = os.path.join(root, ".git")
        if os.path.isdir(dotgit):
            git_dir = dotgit
            break
        if os.path.isfile(dotgit):
            try:
                with open(dotgit, encoding="utf-8") as fh:
                    text = fh.read().strip()
            except (OSError, UnicodeDecodeError):
                return None
            if not text.startswith("gitdir:"):
                return None
            git_dir = os.path.normpath(os.path.join(root, text[len("gitdir:") :].strip()))
            break
        parent = os.path.dirname(root)
        if parent == root:
            return None
        root = parent
    if not os.path.isfile(os.path.join(git_dir, "HEAD")):
        return None
    common = git_dir
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as fh:
            common = os.path.normpath(os.path.join(git_dir, fh.read().strip()))
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError):
        return None
    try:
        with open(os.path.join(common, "config"), encoding="utf-8", errors="replace") as fh:
            config = fh.read().lower()
    except OSError:
        return None
    if "worktree" in config.replace("worktreeconfig", "") or "bare = true" in config or "bare=true" in config:
        return None  # core.worktree or a bare repository: let git work it out
    if os.path.isfile(os.path.join(git_dir, "config.worktree")):
        return None
    if here.startswith(git_dir + os.sep) or here == git_dir:
        return None
    prefix = os.path.relpath(here, root)
    prefix = "" if prefix == "." else prefix.replace(os.sep, "/") + "/"
    return Checkout(root, os.path.abspath(git_dir), os.path.abspath(common), prefix, here)


def locate(cwd: str | None = None) -> Checkout:
    """The checkout containing `cwd` (default: the current folder)."""
    here = os.path.abspath(cwd or os.getcwd())
    found = _discover(here)
    if found is not None:
        return found
    code, out, err = git.run_full(
        ["rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir", "--show-prefix"], cwd=here
    )
    if code != 0:
        from pylon.errors import UsageError

        message = err.decode("utf-8", "replace").strip()
        if "must be run in a work tree" in message:
            raise UsageError(
                "not-a-checkout",
                f"{here} is inside a git directory or a bare repository, not a working tree.",
                "cd into a checkout (a folder with files and a .git) and run the command again.",
            )
        raise UsageError(
            "not-a-git-checkout",
            f"{here} is not inside a git checkout.",
            "cd into a git checkout, or pass one with `pylon -C DIR ws ...`.",
        )
    lines = out.decode("utf-8", "surrogateescape").split("\n")
    root, git_dir, common, prefix = lines[0], lines[1], lines[2], lines[3]
    common = os.path.normpath(os.path.join(here, common))
    return Checkout(root, git_dir, common, prefix, here)


def config_values(checkout: Checkout) -> dict[str, list[str]]:
    """The few config keys layout detection needs (sparse checkout, filter drivers, lfs)."""
    code, out, _ = git.run_full(
        ["config", "-z", "--get-regexp", r"^(core\.sparsecheckout|filter\..*|extensions\..*)$"], cwd=checkout.root
    )
    values: dict[str, list[str]] = {}
    if code == 0:
        for item in out.split(b"\0"):
            if not item:
                continue
            key, _, value = item.decode("utf-8", "replace").partition("\n")
            values.setdefault(key.lower(), []).append(value)
    return values


def _attribute_filters(checkout: Checkout) -> list[str]:
    """Filter names mentioned in the root .gitattributes and info/attributes (not nested files)."""
    names: list[str] = []
    for path in (
        os.path.join(checkout.root, ".gitattributes"),
        os.path.join(checkout.common_dir, "info", "attributes"),
    ):
        try:
            with open(path, "rb") as fh:
                text = fh.read().decode("utf-8", "replace")
        except OSError:
            continue
        for line in text.splitlines():
            for word in line.split()[1:]:
                if word.startswith("filter=") and word[7:] not in names:
                    names.append(word[7:])
    return names


def layout_notes(
    checkout: Checkout, config: dict[str, list[str]], *, index_unmerged: bool = False
) -> list[dict[str, str]]:
    """Honest notes about what this checkout's layout means for a captured state."""
    notes: list[dict[str, str]] = []
    for op in checkout.in_progress():
        notes.append(
            {
                "kind": f"{op}-in-progress",
                "message": f"a {op} is in progress; read-only commands work, the state is captured as it is now",
            }
        )
    if index_unmerged:
        notes.append(
            {
                "kind": "index-unmerged",
                "message": "the index has unmerged (conflicted) entries, so it has no tree; only the working "
                "tree (with conflict markers as written) is captured",
            }
        )
    sparse = any(v.strip().lower() in ("true", "yes", "on", "1") for v in config.get("core.sparsecheckout", []))
    if sparse:
        notes.append(
            {
                "kind": "sparse-checkout",
                "message": "sparse checkout: files outside the cone are taken from the index as git records "
                "them, never as deleted",
            }
        )
    drivers = sorted({k.split(".")[1] for k in config if k.startswith("filter.") and k.count(".") >= 2})
    used = _attribute_filters(checkout)
    if used:
        configured = [n for n in used if n in drivers]
        missing = [n for n in used if n not in drivers]
        text = "content filters in .gitattributes (" + ", ".join(used) + ")"
        if configured:
            text += "; files are captured in their cleaned form (e.g. LFS pointers) through the git CLI"
        if missing:
            text += "; no driver configured for " + ", ".join(missing) + ", so those files are captured as-is"
        notes.append({"kind": "filters", "message": text})
    if os.path.exists(os.path.join(checkout.root, ".gitmodules")):
        notes.extend(submodule_notes(checkout))
    return notes


def submodule_notes(checkout: Checkout) -> list[dict[str, str]]:
    """Dirty submodules: pylon records their checked-out commit, not their uncommitted changes."""
    code, out, _ = git.run_full(
        ["config", "-z", "-f", ".gitmodules", "--get-regexp", r"^submodule\..*\.path$"], cwd=checkout.root
    )
    paths = []
    if code == 0:
        for item in out.split(b"\0"):
            if item:
                paths.append(item.decode("utf-8", "surrogateescape").partition("\n")[2])
    if not paths:
        return []
    code, out, _ = git.run_full(
        ["status", "--porcelain=v2", "-z", "--ignore-submodules=none", "--untracked-files=no", "--", *paths],
        cwd=checkout.root,
        env={"GIT_LITERAL_PATHSPECS": "1"},
    )
    dirty = []
    for rec in out.split(b"\0"):
        parts = rec.split(b" ")
        # porcelain v2 "1 XY <sub> ..." where <sub> is "S<c><m><u>" for submodules
        if (
            len(parts) > 8
            and parts[0] == b"1"
            and parts[2].startswith(b"S")
            and b"M" in parts[2][2:3] + parts[2][3:4].replace(b"U", b"M")
        ):
            dirty.append(rec.split(b" ", 8)[8].decode("utf-8", "surrogateescape"))
    if not dirty:
        return []
    return [
        {
            "kind": "submodule-dirty",
            "message": "submodules with uncommitted changes or untracked files: "
            + ", ".join(dirty[:10])
            + "; pylon captures a submodule's checked-out commit only, not its uncommitted changes",
        }
    ]


_ABORT = {
    "merge": "git merge --abort",
    "rebase": "git rebase --abort",
    "cherry-pick": "git cherry-pick --abort",
    "revert": "git revert --abort",
    "bisect": "git bisect reset",
}


def refuse_in_progress(co: Checkout, what: str) -> None:
    """Refused (nothing changed) while git is half-way through a merge, rebase, cherry-pick, revert or
    bisect in `co`, or while its index is locked by someone else past the wait."""
    busy = co.in_progress()
    if busy:
        from pylon.errors import PylonError

        ways = " or ".join(f"`{_ABORT[b]}`" for b in busy)
        raise PylonError(
            "operation-in-progress",
            f"A {', '.join(busy)} is in progress in {co.root}; pylon does not {what} in the middle of it.",
            f"Finish it (`git status` says how) or abort it ({ways}), then run the same command again.",
            details={"in_progress": busy, "root": co.root},
        )
    lock = co.index_path + ".lock"
    if not git.wait_unlocked(lock):  # checked before the intent is written: refused with nothing changed
        raise git.locked_error(lock, changed_nothing=True, details={"root": co.root})
