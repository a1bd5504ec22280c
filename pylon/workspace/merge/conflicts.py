"""`pylon ws conflicts`: would owned worktrees collide? Real three-way merges that change nothing.

Each side is the worktree's current state (committed and uncommitted work, untracked files
included) as a state commit (sides.py). For two owned worktrees the merge base is found from
history: both states descend from their baselines, and sessions started from the same checkout
state share one deterministic baseline commit (worktrees.baseline_commit). For a worktree against
the main checkout, the checkout's current tree is put in a commit whose parent is that worktree's
baseline, so the base is where the agent started and the person's own dirty state (carried into
the baseline) does not count as a change on both sides.

The merge is `git merge-tree --write-tree` (git >= 2.38): it writes objects only (trees and blobs
in the object store, no ref, no index, no file). A pair is merged only when its two change sets
(paths changed since each side's base) share a path, or one side's file is a folder of the other
side's (in either direction: file `clash` against `clash/x`), or one side removed a path from a
folder the other side adds to (git's directory-rename detection may move the addition and report
a conflict), or when the two sessions started from different baselines; other pairs cannot
conflict and are skipped (tests/workspace/test_conflicts_differential.py checks this against git).
Pairs that change the same files and merge cleanly are "touching", not conflicts.
"""

from __future__ import annotations

from pylon.workspace import git
from pylon.workspace.commits import write_commit
from pylon.workspace.merge.markers import CHECKOUT, relabel, session_label
from pylon.workspace.repo import Checkout
from pylon.workspace.sides import Side, parallel, peel_trees, tree_diffs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NotRequired, TypedDict

    class Hunk(TypedDict):
        line: int
        lines: list[str]
        length: int

    class SideHas(TypedDict):
        side: str  # its name, as the markers name it
        has: str  # file, symlink, folder, submodule, or deletion

    class ConflictFile(TypedDict):
        path: str
        types: list[str]
        messages: list[str]
        hunks: list[Hunk]
        binary: NotRequired[bool]
        sides: NotRequired[list[SideHas]]
        aside: NotRequired[str]  # where git's merge put a file a folder met: PATH~<commit id>

    # functional form: "with" is a keyword
    Pair = TypedDict(
        "Pair", {"a": str | None, "b": str | None, "with": str, "conflicts": list[ConflictFile], "touching": list[str]}
    )

    class Comparison(TypedDict):
        pairs: list[Pair]
        checked: int
        merged: int


MIN_GIT = (2, 38)
HUNKS_PER_FILE = 3
LINES_PER_HUNK = 8
_VERSION: list[tuple[int, ...]] = []


def git_version() -> tuple[int, ...]:
    if not _VERSION:
        from pylon.workspace.gitversion import version

        text = version().split()
        numbers = []
        for part in (text[2] if len(text) > 2 else "0").split(".")[:3]:
            digits = "".join(ch for ch in part if ch.isdigit())
            numbers.append(int(digits or 0))
        _VERSION.append(tuple(numbers))
    return _VERSION[0]


def require_merge_tree() -> None:
    version = git_version()
    if version < MIN_GIT:
        from pylon.errors import PylonError

        raise PylonError(
            "git-too-old",
            f"Conflict checks need `git merge-tree --write-tree` from git 2.38; this git is "
            f"{'.'.join(map(str, version))}.",
            "Install git 2.38 or newer (https://git-scm.com), then run the command again.",
            exit_code=2,
        )


class Party:
    """One side of the comparison: an owned worktree (id) or the main checkout (id None)."""

    __slots__ = ("id", "side", "baseline", "changed", "known", "apply_base")

    def __init__(self, worktree_id: str | None, side: Side, baseline: str, apply_base: str | None = None) -> None:
        self.id, self.side, self.baseline = worktree_id, side, baseline
        self.apply_base = apply_base  # against the checkout: the base `ws apply` would use (applied.py)
        # (status, path) changed since the baseline, as tree_diffs gives them (compare fills it unless known)
        self.changed: list[tuple[str, str]] = []
        self.known = False


def _folders(path: str) -> list[str]:
    """The folders `path` lies in, outermost first (`a/b/c` -> `a`, `a/b`)."""
    parts = path.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def touching(a: set[str], b: set[str]) -> list[str]:
    """Paths changed on both sides, and paths where one side's file is the other side's folder
    (looked up from both sides: either may hold the file)."""
    both = a & b
    for one, other in ((a, b), (b, a)):
        for path in one:
            for folder in _folders(path):
                if folder in other:
                    both.add(path)
                    both.add(folder)
    return sorted(both)


def _moved_into(gone: list[tuple[str, str]], added: list[tuple[str, str]]) -> bool:
    """Does one side remove a path from a folder the other side adds to? Then git's directory
    rename detection may move that addition after the removed files (a `file location` conflict)."""
    folders = {f for status, path in gone if status == "D" for f in _folders(path)}
    return bool(folders) and any(f in folders for status, path in added if status == "A" for f in _folders(path))


def relation(a: list[tuple[str, str]], b: list[tuple[str, str]]) -> tuple[list[str], bool]:
    """(the touching paths, whether a merge could conflict) of two change sets [(status, path)]."""
    touched = touching({p for _, p in a}, {p for _, p in b})
    return touched, bool(touched) or _moved_into(a, b) or _moved_into(b, a)


def merge(checkout: Checkout, ours: str, theirs: str, labels: dict[str, str] | None = None) -> list[ConflictFile]:
    """The conflicts of merging two commits (empty when clean), each with a short context."""
    return merge_tree(checkout, ours, theirs, labels)[1]


def merge_tree(
    checkout: Checkout, ours: str, theirs: str, labels: dict[str, str] | None = None, diff3: bool = False
) -> tuple[str, list[ConflictFile]]:
    """(the merged tree, its conflicts): the tree holds conflict markers where there are conflicts.

    `labels` (commit -> name, markers.py) names the sides in the hunks reported; the markers in the
    tree keep git's commit ids (markers.labelled_tree names them). The style is git's default
    (`merge`) whatever the user's merge.conflictStyle, or `diff3` (a base section) when asked."""
    style = "diff3" if diff3 else "merge"
    args = [
        "-c",
        f"merge.conflictStyle={style}",
        "merge-tree",
        "--write-tree",
        "-z",
        "--name-only",
        "--allow-unrelated-histories",
        ours,
        theirs,
    ]
    code, out, err = git.run_full(args, cwd=checkout.root)
    if code not in (0, 1):
        raise git.failure(args, code, err, "git merge-tree")
    if code == 0:
        return out.decode().split("\0")[0].strip(), []
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    tree, i, paths = fields[0], 1, []
    while i < len(fields) and fields[i]:
        paths.append(fields[i])
        i += 1
    i += 1
    found: dict[str, ConflictFile] = {p: {"path": p, "types": [], "messages": [], "hunks": []} for p in paths}
    while i < len(fields) and fields[i].isdigit():  # <count> <path>... <type> <message>
        count = int(fields[i])
        named = fields[i + 1 : i + 1 + count]
        kind, message = fields[i + 1 + count], fields[i + 2 + count].rstrip("\n")
        i += 3 + count
        if kind.startswith("CONFLICT"):
            for p in named:
                if p in found:
                    found[p]["types"].append(kind)
                    found[p]["messages"].append(message)
    _add_hunks(checkout, tree, found, labels or {})
    by_user = _by_user_path(found, ours, theirs, labels or {})
    _add_sides(checkout, by_user, ours, theirs, labels or {})
    return tree, [by_user[p] for p in sorted(by_user)]


def _by_user_path(
    found: dict[str, ConflictFile], ours: str, theirs: str, labels: dict[str, str]
) -> dict[str, ConflictFile]:
    """The conflicts under the paths the user knows: git's merge puts a file that meets a folder
    aside as `PATH~<commit id>`; that is reported as PATH (the merged tree's name kept in `aside`),
    and commit ids in git's messages are the sides' names."""
    named: dict[str, ConflictFile] = {}
    for path, conflict in found.items():
        user, _, oid = path.rpartition("~")
        if user and oid in (ours, theirs):
            conflict["aside"] = path
            conflict["path"] = user
        for commit, label in labels.items():
            conflict["messages"] = [
                m.replace(f"~{commit}", "\0").replace(commit, label).replace("\0", f"~{commit}")
                for m in conflict["messages"]
            ]
        key = str(conflict["path"])
        if key in named:  # both names reported: one entry
            named[key]["types"] += [t for t in conflict["types"] if t not in named[key]["types"]]
            named[key]["messages"] += conflict["messages"]
            named[key]["hunks"] += conflict["hunks"]
            if "aside" in conflict:
                named[key]["aside"] = conflict["aside"]
        else:
            named[key] = conflict
    return named


_KINDS = {"100644": "file", "100755": "file", "120000": "symlink", "160000": "submodule", "040000": "folder"}


def _add_sides(
    checkout: Checkout, found: dict[str, ConflictFile], ours: str, theirs: str, labels: dict[str, str]
) -> None:
    """What each side has at each conflicted path: a file, a symlink, a folder, a submodule, or
    nothing (deleted)."""
    paths = [p for p in found if "\n" not in p]
    if not paths:
        return
    kinds: list[dict[str, str]] = []
    for commit in (ours, theirs):
        out = git.run(
            ["ls-tree", "-z", "--full-tree", commit, "--", *paths],
            cwd=checkout.root,
            env={"GIT_LITERAL_PATHSPECS": "1"},
        )
        have: dict[str, str] = {}
        for record in out.decode("utf-8", "surrogateescape").split("\0"):
            if record:
                meta, _, path = record.partition("\t")
                have[path] = _KINDS.get(meta.split(" ")[0], "file")
        kinds.append(have)
    for path in paths:
        sides: list[SideHas] = [
            {"side": labels.get(commit, name), "has": have.get(path, "deletion")}
            for commit, name, have in zip((ours, theirs), ("ours", "theirs"), kinds)
        ]
        found[path]["sides"] = sides


def _add_hunks(checkout: Checkout, tree: str, found: dict[str, ConflictFile], labels: dict[str, str]) -> None:
    """The conflict-marker regions git wrote into the merged files: where, and their first lines."""
    request = "".join(f"{tree}:{p}\n" for p in found if "\n" not in p).encode("utf-8", "surrogateescape")
    if not request:
        return
    out = git.run(["cat-file", "--batch"], cwd=checkout.root, input=request)
    paths = [p for p in found if "\n" not in p]
    for p, got in zip(paths, git.batch_objects(out, len(paths))):
        if got is None or got[0] != b"blob":
            continue
        blob = got[1]
        if b"\0" in blob[:8000]:
            found[p]["binary"] = True
            continue
        found[p]["hunks"] = hunks(relabel(blob, labels).decode("utf-8", "replace"))


def hunks(text: str) -> list[Hunk]:
    regions: list[Hunk] = []
    lines = text.split("\n")
    start = None
    for n, line in enumerate(lines, 1):
        if line.startswith("<<<<<<< ") and start is None:
            start = n
        elif line.startswith(">>>>>>> ") and start is not None:
            region = lines[start - 1 : n]
            shown = region if len(region) <= LINES_PER_HUNK else region[: LINES_PER_HUNK - 1] + [region[-1]]
            regions.append({"line": start, "lines": shown, "length": len(region)})
            start = None
    return regions[:HUNKS_PER_FILE]


def compare(checkout: Checkout, parties: list[Party], main: Party | None) -> Comparison:
    """Every pair of `parties` and each against `main`: conflicts, touching paths."""
    require_merge_tree()
    _change_sets(checkout, [p for p in parties if not p.known])
    jobs: list[tuple[Party, Party | None, str, str, list[str], bool]] = []
    for i, one in enumerate(parties):
        for two in parties[i + 1 :]:
            touched, could = relation(one.changed, two.changed)
            must = could or one.baseline != two.baseline
            jobs.append((one, two, str(one.side.state.commit), str(two.side.state.commit), touched, must))
    if main is not None:
        jobs.extend(_against_main(checkout, parties, main))
    merged = parallel([j for j in jobs if j[5]], lambda j: merge(checkout, j[2], j[3], _labels(j[0], j[1], j[2], j[3])))
    results = iter(merged)
    pairs: list[Pair] = []
    for a, b, _ours, _theirs, touched, must in jobs:
        found = next(results) if must else []
        conflicted = {str(c["path"]) for c in found}
        rest = [p for p in touched if p not in conflicted]
        if found or rest:
            pairs.append(
                {
                    "a": a.id,
                    "b": b.id if b is not None else None,
                    "with": "worktree" if b is not None else "checkout",
                    "conflicts": found,
                    "touching": rest,
                }
            )
    return {"pairs": pairs, "checked": len(jobs), "merged": len(merged)}


def _labels(one: Party, two: Party | None, ours: str, theirs: str) -> dict[str, str]:
    """The names of a pair's sides: as `ws apply` writes them against the checkout (checkout first)."""
    if two is None:
        return {ours: CHECKOUT, theirs: session_label(str(one.id))}
    return {ours: session_label(str(one.id)), theirs: session_label(str(two.id))}


def on_base(checkout: Checkout, tree: str, base: str, what: str = "conflict check") -> str:
    """A commit of `tree` whose only parent is `base`, which makes `base` the merge base.
    Not anchored: a later gc may drop it, nothing refers to it once the merge is done."""
    return write_commit(checkout, tree, [base], f"pylon {what}\n".encode())


def _change_sets(checkout: Checkout, parties: list[Party]) -> None:
    """Each party's paths changed since its baseline, from one tree diff for all of them."""
    trees = peel_trees(checkout, [p.baseline for p in parties])
    diffs = tree_diffs(checkout, [(t, p.side.state.worktree) for p, t in zip(parties, trees)])
    for party, diff in zip(parties, diffs):
        party.changed, party.known = diff, True


MainJob = tuple[Party, None, str, str, list[str], bool]  # the pair with the checkout, as compare() lists pairs


def _against_main(checkout: Checkout, parties: list[Party], main: Party) -> list[MainJob]:
    """Per party, the main checkout's tree as a commit on the worktree's baseline (see the module
    docstring), or, once the session was applied, both trees on the session state of that apply:
    the merge `ws apply` would do."""
    tree = main.side.state.worktree
    bases = [p.apply_base if p.apply_base and p.apply_base != p.baseline else p.baseline for p in parties]
    base_trees = peel_trees(checkout, bases)
    pairs: list[tuple[str, str]] = []
    for party, base, base_tree in zip(parties, bases, base_trees):
        pairs.append((base_tree, tree))
        if base != party.baseline:
            pairs.append((base_tree, party.side.state.worktree))
    diffs = iter(tree_diffs(checkout, pairs))

    def job(item: tuple[Party, str, list[tuple[str, str]], list[tuple[str, str]]]) -> MainJob:
        party, base, since, changed = item
        touched, could = relation(since, changed)
        if not could:
            return party, None, "", "", [], False
        # both sides on the base, the checkout first: the very merge `ws apply` does (same report)
        session = on_base(checkout, party.side.state.worktree, base)
        return party, None, on_base(checkout, tree, base), session, touched, True

    items = []
    for party, base in zip(parties, bases):
        changed = next(diffs)
        since = party.changed if base == party.baseline else next(diffs)
        items.append((party, base, since, changed))
    return parallel(items, job)


def overlaps(result: Comparison) -> dict[str, list[str]]:
    """id -> the ids of owned worktrees it would conflict with (what `ws list` shows)."""
    from typing import cast  # here only: typing costs start-up time

    found: dict[str, list[str]] = {}
    for pair in result["pairs"]:
        if pair["with"] == "worktree" and pair["conflicts"]:
            # a pair between two worktrees: both are owned parties, each with its id
            a, b = cast(str, pair["a"]), cast(str, pair["b"])
            found.setdefault(a, []).append(b)
            found.setdefault(b, []).append(a)
    return {k: sorted(v) for k, v in found.items()}
