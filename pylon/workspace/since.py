"""Resolving `--since`: a baseline name, else any git revision; the default is documented below.

Default: the session baseline in an owned worktree (branch `pylon-session-<id>`), else this
checkout's `last` baseline, else HEAD (the empty tree when HEAD is unborn). An explicit value is a
baseline name of this checkout first, then a git revision (commit or tree).
"""

from __future__ import annotations

from pylon.workspace import git, refs
from pylon.workspace.repo import EMPTY_TREE, Checkout


class Since:
    __slots__ = ("label", "kind", "tree", "commit", "ref")

    def __init__(self, label: str, kind: str, tree: str, commit: str | None, ref: str | None) -> None:
        self.label = label  # what the user would type: `last`, `HEAD`, `main~2`
        self.kind = kind  # baseline | session | rev | empty
        self.tree = tree
        self.commit = commit
        self.ref = ref

    def to_dict(self) -> dict[str, object]:
        return {"name": self.label, "kind": self.kind, "ref": self.ref, "commit": self.commit, "tree": self.tree}


def _batch(checkout: Checkout, names: list[str]) -> list[tuple[str, str] | None]:
    """(oid, type) or None per name, from one `git cat-file --batch-check`."""
    data = "".join(n + "\n" for n in names).encode("utf-8", "surrogateescape")
    out = git.run(["cat-file", "--batch-check=%(objectname) %(objecttype)"], cwd=checkout.root, input=data)
    results: list[tuple[str, str] | None] = []
    for line in out.decode("utf-8", "surrogateescape").split("\n")[: len(names)]:
        parts = line.rsplit(" ", 1)
        if (
            len(parts) == 2
            and parts[1] in ("commit", "tree", "blob", "tag")
            and len(parts[0]) >= 40
            and " " not in parts[0]
        ):
            results.append((parts[0], parts[1]))
        else:
            results.append(None)
    return results


def _loose_ref(checkout: Checkout, ref: str) -> str | None:
    """A ref's value read straight from its loose file (refs/pylon/ refs are written loose);
    None when it is packed or missing, and git is asked instead."""
    try:
        with open(f"{checkout.common_dir}/{ref}", "rb") as fh:
            value = fh.read(80).strip().decode("ascii", "replace")
    except OSError:
        return None
    if len(value) in (40, 64) and all(c in "0123456789abcdef" for c in value):
        return value
    return None


def _loose_commit_tree(checkout: Checkout, commit: str) -> str | None:
    """The tree of a commit stored as a loose object (pylon's state commits are, until a gc)."""
    import zlib

    try:
        with open(f"{checkout.common_dir}/objects/{commit[:2]}/{commit[2:]}", "rb") as fh:
            head = zlib.decompressobj().decompress(fh.read(4096), 200)
    except (OSError, zlib.error):
        return None
    _, _, body = head.partition(b"\0")
    if body.startswith(b"tree ") and head.startswith(b"commit "):
        tree = body[5:].split(b"\n", 1)[0].decode("ascii", "replace")
        if len(tree) in (40, 64):
            return tree
    return None


def _from_ref(checkout: Checkout, label: str, kind: str, ref: str) -> Since | None:
    commit = _loose_ref(checkout, ref)
    tree = _loose_commit_tree(checkout, commit) if commit else None
    return Since(label, kind, tree, commit, ref) if commit and tree else None


def session_id(checkout: Checkout) -> str | None:
    branch, _ = checkout.head_file()
    prefix = "refs/heads/pylon-session-"
    if branch and branch.startswith(prefix):
        return branch[len(prefix) :]
    return None


def resolve(checkout: Checkout, since: str | None) -> Since:
    if since is None:
        candidates: list[tuple[str, str, str]] = []
        sid = session_id(checkout)
        if sid and refs.valid_name(sid):
            candidates.append((f"session:{sid}", "session", refs.session_baseline_ref(sid)))
        candidates.append(("last", "baseline", refs.baseline_ref(checkout, "last")))
        for label, kind, ref in candidates:
            found_loose = _from_ref(checkout, label, kind, ref)
            if found_loose is not None:
                return found_loose
        candidates.append(("HEAD", "rev", "HEAD"))
        names = []
        for _, _, ref in candidates:
            names += [ref, ref + "^{tree}"]
        found = _batch(checkout, names)
        for i, (label, kind, ref) in enumerate(candidates):
            commit, tree = found[2 * i], found[2 * i + 1]
            if tree is not None:
                return Since(label, kind, tree[0], commit[0] if commit and commit[1] == "commit" else None, ref)
        return Since("HEAD", "empty", EMPTY_TREE, None, None)
    if "\n" in since or not since.strip():
        _unknown(since)
    names = []
    base_ref = refs.baseline_ref(checkout, since) if refs.valid_name(since) else None
    found_loose = _from_ref(checkout, since, "baseline", base_ref) if base_ref else None
    if found_loose is not None:
        return found_loose
    if base_ref:
        names += [base_ref, base_ref + "^{tree}"]
    names += [since, since + "^{tree}"]
    found = _batch(checkout, names)
    if base_ref and found[1] is not None:
        commit = found[0]
        return Since(since, "baseline", found[1][0], commit[0] if commit else None, base_ref)
    commit, tree = found[-2], found[-1]
    if tree is not None:
        return Since(since, "rev", tree[0], commit[0] if commit and commit[1] == "commit" else None, None)
    if since == "HEAD":
        return Since("HEAD", "empty", EMPTY_TREE, None, None)
    _unknown(since)
    raise AssertionError("unreachable")


def _unknown(since: str) -> None:
    from pylon.errors import UsageError

    raise UsageError(
        "bad-revision",
        f"{since!r} is neither a baseline of this checkout nor a git revision.",
        "List baselines with `pylon ws status`, or pass a revision such as HEAD or main~1.",
    )


def captured_at(checkout: Checkout, commit: str) -> int | None:
    """The committer time of a state commit (when a baseline was captured); None when unreadable."""
    import zlib

    try:
        with open(f"{checkout.common_dir}/objects/{commit[:2]}/{commit[2:]}", "rb") as fh:
            raw = zlib.decompressobj().decompress(fh.read(8192), 4096)
    except (OSError, zlib.error):
        raw = b""
    if not raw.startswith(b"commit "):
        try:
            raw = git.run(["cat-file", "commit", commit], cwd=checkout.root)
        except Exception:  # a description only; the comparison itself already worked
            return None
    for line in raw.split(b"\n"):
        if line.startswith(b"committer "):
            parts = line.rsplit(b" ", 2)
            return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None
        if not line:
            break
    return None


def baseline_names(checkout: Checkout) -> list[str]:
    """The named baselines of this checkout, newest first."""
    prefix = refs.baselines_prefix(checkout)
    out = git.run(["for-each-ref", "--sort=-committerdate", "--format=%(refname)", prefix], cwd=checkout.root)
    return [
        line[len(prefix) :] for line in out.decode("utf-8", "surrogateescape").splitlines() if line.startswith(prefix)
    ]
