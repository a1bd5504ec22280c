"""`pylon ws list` and the entry of `pylon ws conflicts`: one survey, every owned worktree read in
parallel (sides.py), one versioned document.

    {version, worktrees: [{id, path, branch, baseline, head, dirty: {tracked, untracked},
     commits_since_baseline, created, last_change, overlaps, behind_checkout, made_by}], foreign,
     others: [{label, path, branch, head, made_by, owned: false, base, dirty, commits_since_base,
     last_change, overlaps}]}

`others` are the live worktrees pylon did not make (foreign.py: an agent client's own, or a plain
`git worktree add`): read the same way, never changed; their base is where they forked from the
main checkout's HEAD, and they take part in the overlaps and in `ws conflicts` by their label.

`behind_checkout` counts the paths `ws sync ID` would bring in: changed in the main checkout since
the base the two last agreed on (applied.bases: the baseline, the last apply or the last sync) and
different from the session's version.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from pylon.workspace import git
from pylon.workspace.commits import from_iso, iso
from pylon.workspace.merge import conflicts
from pylon.workspace.repo import EMPTY_TREE, Checkout
from pylon.workspace.sides import (
    Side,
    dirty_from,
    parallel,
    peel_trees,
    read_side,
    tree_diffs,
    unmerged_dirty,
)
from pylon.workspace.worktrees import departed as away
from pylon.workspace.worktrees import owned
from pylon.workspace.worktrees.foreign import Other, bases, others

LIST_VERSION = 1


class Row:
    __slots__ = ("owned", "side", "tracked", "untracked", "commits", "changed", "behind")

    def __init__(self, found: owned.Owned | Other, side: Side) -> None:
        self.owned, self.side = found, side
        self.tracked: list[str] = []
        self.untracked: list[str] = []
        self.commits = 0
        self.changed: list[tuple[str, str]] = []  # (status, path) since the baseline, for the overlaps
        self.behind = 0  # paths `ws sync` would bring in from the main checkout


SideReader = Callable[[str], Side]


def _read(found: object, read: SideReader = read_side) -> Row | Side:
    if isinstance(found, str):
        return read(found)  # the main checkout
    assert isinstance(found, (owned.Owned, Other))
    row = Row(found, read(found.path))
    start = _base(found)
    if found.head and start and found.head != start:
        count = git.run(["rev-list", "--count", f"{start}..{found.head}"], cwd=found.path)
        row.commits = int(count.decode().strip() or 0)
    return row


def _base(found: owned.Owned | Other) -> str:
    """Where a worktree's own changes start: an owned one's baseline, another's fork point."""
    return found.baseline if isinstance(found, owned.Owned) else found.base


def _name(found: owned.Owned | Other) -> str:
    return found.id if isinstance(found, owned.Owned) else found.label


def _compare_trees(checkout: Checkout, rows: list[Row]) -> None:
    """Every row's dirty paths and changes since its baseline, from one tree diff for all rows."""
    baselines = peel_trees(checkout, [_base(r.owned) or EMPTY_TREE for r in rows])
    pairs: list[tuple[str, str]] = []
    for row, base_tree in zip(rows, baselines):
        state = row.side.state
        index_tree = state.index_tree or state.worktree  # unmerged: counted by git status below
        pairs += [(row.side.head_tree, index_tree), (index_tree, state.worktree), (base_tree, state.worktree)]
    diffs = tree_diffs(checkout, pairs)
    for n, row in enumerate(rows):
        staged, unstaged, since = diffs[3 * n : 3 * n + 3]
        if row.side.state.index_tree is None:
            row.tracked, row.untracked = unmerged_dirty(row.side)
        else:
            row.tracked, row.untracked = dirty_from(staged, unstaged)
        row.changed = since


def _behind(checkout: Checkout, rows: list[Row], main: Side) -> None:
    """Per row: paths the main checkout changed since the sync base that the session does not hold."""
    from pylon.workspace.worktrees.applied import bases

    mine = [r.owned for r in rows if isinstance(r.owned, owned.Owned)]  # the caller passes owned rows only
    starts = bases(checkout, {o.id: o.baseline for o in mine})
    base_trees = peel_trees(checkout, [starts[o.id].commit for o in mine])
    pairs: list[tuple[str, str]] = []
    for row, base_tree in zip(rows, base_trees):
        pairs += [(base_tree, main.state.worktree), (row.side.state.worktree, main.state.worktree)]
    diffs = tree_diffs(checkout, pairs)
    for n, row in enumerate(rows):
        since, differ = diffs[2 * n], diffs[2 * n + 1]
        row.behind = len({p for _, p in since} & {p for _, p in differ})


def _last_change(row: Row, head_times: dict[str, int]) -> int:
    """The newest of the session's own events: its creation, its newest commit (only when it made
    commits: HEAD's date is otherwise the date of the commit it started from), the newest mtime
    among its dirty paths."""
    newest = from_iso(row.owned.created) or 0 if isinstance(row.owned, owned.Owned) else 0
    if row.commits:
        newest = max(newest, head_times.get(row.owned.head or "", 0))
    for rel in (*row.tracked, *row.untracked):
        try:
            newest = max(newest, int(os.lstat(os.path.join(row.owned.path, rel)).st_mtime))
        except OSError:
            continue  # deleted: the deletion's own time is not on disk
    return newest


def list_worktrees(checkout: Checkout, read_with: SideReader = read_side, departed: bool = False) -> dict[str, object]:
    """The `ws list --json` document. `read_with(path)` reads one worktree's side (a reader that
    knows a side is unchanged since it last read it, such as the board's, may hand that back)."""
    info = owned.survey(checkout)
    present = [o for o in info.owned.values() if o.present]
    alien = others(info, checkout)
    bases(checkout, alien, info.entries[0].head if info.entries else None)
    found: list[owned.Owned | Other] = [*present, *alien]
    read: list[Row | Side] = parallel([*found, info.main_root] if found else [], lambda item: _read(item, read_with))
    rows = [r for r in read if isinstance(r, Row)]
    _compare_trees(checkout, rows)
    mine = [r for r in rows if isinstance(r.owned, owned.Owned)]
    if mine:
        main = read[-1]
        assert isinstance(main, Side)
        _behind(checkout, mine, main)
    heads = sorted({r.owned.head for r in rows if r.owned.head})
    head_times: dict[str, int] = {}
    if heads:
        out = git.run(["log", "--no-walk=unsorted", "--format=%H %ct", *heads], cwd=checkout.root)
        for line in out.decode().splitlines():
            oid, _, stamp = line.partition(" ")
            head_times[oid] = int(stamp or 0)
    notes = []
    overlap: dict[str, list[str]] | None = {}
    if len(rows) > 1:
        if conflicts.git_version() < conflicts.MIN_GIT:
            overlap = None
            notes.append(
                {"kind": "git-too-old", "message": "overlaps need git >= 2.38 (`git merge-tree --write-tree`)"}
            )
        else:
            parties = [conflicts.Party(_name(r.owned), r.side, _base(r.owned)) for r in rows]
            for party, row in zip(parties, rows):
                party.changed, party.known = row.changed, True
            overlap = conflicts.overlaps(conflicts.compare(checkout, parties, None))
    items, extra = [], []
    for row in rows:
        o = row.owned
        common = {
            "path": o.path,
            "head": o.head,
            "dirty": {"tracked": len(row.tracked), "untracked": len(row.untracked)},
            "last_change": iso(_last_change(row, head_times)),
            "overlaps": None if overlap is None else overlap.get(_name(o), []),
        }
        if isinstance(o, Other):
            extra.append({**o.to_dict(), **common, "base": o.base, "commits_since_base": row.commits})
            continue
        items.append(
            {
                "id": o.id,
                "branch": o.branch,
                "baseline": o.baseline,
                **common,
                "commits_since_baseline": row.commits,
                "created": o.created,
                "behind_checkout": row.behind,
                "made_by": o.record.get("made_by"),
            }
        )
    leftovers = len(info.pending) + len(info.stale) + sum(1 for o in info.owned.values() if not o.present)
    doc: dict[str, object] = {
        "version": LIST_VERSION,
        "root": info.root,
        "worktrees": items,
        "others": extra,
        "foreign": len(info.foreign),
        "leftovers": leftovers,
        "notes": notes,
    }
    if departed:  # the board: each worktree pylon does not own as a row of its own (departed.py)
        doc["departed"] = away.rows(info, extra)
    return doc


def check_conflicts(
    checkout: Checkout, ids: list[str], read_with: SideReader = read_side, departed: bool = False
) -> dict[str, object]:
    """Pairs among the named owned worktrees (default: all, and the live worktrees pylon did not
    make) and each against the main checkout (`read_with` as for list_worktrees)."""
    conflicts.require_merge_tree()
    info = owned.survey(checkout)
    chosen = (
        [info.get(owned.check_id(i)) for i in dict.fromkeys(ids)]
        if ids
        else [o for o in info.owned.values() if o.present]
    )
    alien = [] if ids else others(info, checkout)
    bases(checkout, alien, info.entries[0].head if info.entries else None)

    def work(item: object) -> Side:
        return read_with(str(item))

    every: list[owned.Owned | Other] = [*chosen, *alien]
    paths = [o.path for o in every] + ([info.main_root] if every else [])
    sides: list[Side] = parallel(paths, work)
    main_side = sides.pop() if every else None
    from pylon.workspace.worktrees.applied import bases as apply_bases

    starts = apply_bases(checkout, {o.id: o.baseline for o in chosen})
    parties = [conflicts.Party(o.id, s, o.baseline, starts[o.id].commit) for o, s in zip(chosen, sides)]
    parties += [conflicts.Party(o.label, s, o.base) for o, s in zip(alien, sides[len(chosen) :])]
    main = conflicts.Party(None, main_side, "") if main_side is not None else None
    result = conflicts.compare(checkout, parties, main)
    doc: dict[str, object] = {
        "worktrees": [o.id for o in chosen],
        "others": [o.to_dict() for o in alien],
        "checkout": info.main_root,
        **result,
        "conflicting": sum(1 for p in result["pairs"] if p["conflicts"]),
        "touching_pairs": sum(1 for p in result["pairs"] if not p["conflicts"]),
    }
    if departed:  # the board marks the pairs of worktrees pylon does not own by their labels
        doc["departed"] = [o.label for o in alien]
    return doc
