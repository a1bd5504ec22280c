"""`canon check`: the write-after gate. Every changed asset whose governing article did not change in
the same change set is a finding; a renamed asset whose article did not move is named with the
`canon mv` that moves it; a deleted asset whose article still exists is a finding.

Findings are lint Findings (the same text, json, github and sarif renderers), under three rule ids
of their own (CHECK_RULES).
"""

from __future__ import annotations

from pylon.canon.address import Address
from pylon.canon.git.changes import ChangeSet, change_set
from pylon.canon.git.govern import Governance
from pylon.canon.git.run import Change, Repo, open_repo
from pylon.canon.lint.findings import ERROR, Finding, RuleInfo
from pylon.canon.record import Record
from pylon.canon.store import Project

CHECK_RULES: dict[str, RuleInfo] = {
    r.id: r
    for r in (
        RuleInfo(
            "article-not-updated",
            ERROR,
            "An asset changed (or was added) but the article that governs it did not change in the same change set.",
            "Review the article and update what the change made untrue (`canon write ADDRESS ...`), in the "
            "same commit or pull request.",
        ),
        RuleInfo(
            "article-not-moved",
            ERROR,
            "An asset was renamed, but its article still sits at the old address.",
            "Run the `canon mv OLD NEW` the message names (or `canon mv --from-git`), and commit the result.",
        ),
        RuleInfo(
            "article-outlived",
            ERROR,
            "An asset was deleted, but the article that governed it still exists and did not change.",
            "Update the article (or delete it if nothing it describes remains).",
        ),
    )
}


# What a POSIX shell reads as one plain word (as shlex.quote decides, without loading `re`).
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")


def shell_word(text: str) -> str:
    """`text` as one shell word: as is when plain, else single-quoted (a ' becomes '"'"')."""
    if text and all(c in _PLAIN for c in text):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"


def mv_command(old: Address, new: Address) -> str:
    return f"canon mv {shell_word(str(old))} {shell_word(str(new))}"


class Move(Record):
    __slots__ = ("old", "new", "paths", "conflict", "remedy", "governing")

    def __init__(
        self,
        old: Address,
        new: Address | None,
        paths: list[tuple[str, str]] | None = None,
        conflict: str = "",
        remedy: str = "",
        governing: bool = False,
    ) -> None:
        self.old = old
        self.new = new  # None when no address follows from the renames (see conflict)
        self.paths = [] if paths is None else paths  # the renames that call for it
        self.conflict = conflict  # why it cannot be applied as is ("" when it can)
        self.remedy = remedy  # with a conflict: the command(s) to run instead
        self.governing = governing  # the article governing a renamed path (else an ancestor whose folder moved)


class CheckReport(Record):
    __slots__ = ("changes", "top", "assets", "articles_changed", "findings", "moves")

    def __init__(
        self,
        changes: ChangeSet,
        top: str,
        assets: int = 0,
        articles_changed: list[str] | None = None,
        findings: list[Finding] | None = None,
        moves: list[Move] | None = None,
    ) -> None:
        self.changes = changes
        self.top = top
        self.assets = assets  # changed assets judged
        self.articles_changed = [] if articles_changed is None else articles_changed
        self.findings: list[Finding] = [] if findings is None else findings
        self.moves: list[Move] = [] if moves is None else moves

    @property
    def failed(self) -> bool:
        return bool(self.findings)


def _is_within(address: Address, top: Address) -> bool:
    return address.mount == top.mount and (address.path == top.path or address.path.startswith(top.path + "/"))


def _target(g: Address, old: Address, new: Address) -> Address | None:
    """Where the article g should go when the asset `old` (at or below g) became `new`: the same
    suffix below g must end `new`; None when the rename changed more than g's part of the path."""
    suffix = old.path[len(g.path) :]
    if old.mount != g.mount or new.mount != g.mount or not new.path.endswith(suffix):
        return None
    head = new.path[: len(new.path) - len(suffix)]
    return Address(g.mount, head) if head and not head.endswith("/") else None


class _Judge:
    def __init__(self, gov: Governance, changes: list[Change]) -> None:
        self.gov = gov
        self.changed: set[Address] = set()
        # The article sets before the change set are the ones on disk with this change set undone:
        # its added articles were not there (False), its deleted ones were (True); the last word wins.
        self.undone: dict[Address, bool] = {}
        for change in changes:
            old_art, new_art = gov.article_of(change.old), gov.article_of(change.new)
            self.changed.update(a for a in (old_art, new_art) if a is not None)
            if new_art is not None and change.status in "ACR":
                self.undone[new_art] = False
            if old_art is not None and change.status in "DR":
                self.undone[old_art] = True

    def had(self, address: Address) -> bool:
        """An article at `address` before the change set."""
        before = self.undone.get(address)
        return self.gov.has(address) if before is None else before

    def governing_before(self, address: Address) -> Address | None:
        for candidate in address.ancestors():
            if self.had(candidate):
                return candidate
        return None


def _write_command(address: Address) -> str:
    return f"canon write {shell_word(str(address))} ..."


def _by_hand(g: Address) -> str:
    return f"move it by hand (canon mv {shell_word(str(g))} NEW) or update it ({_write_command(g)})"


def _propose(
    moves: dict[Address, Move], g: Address, old: Address, new: Address, change: Change, gov: Governance, governing: bool
) -> None:
    target = _target(g, old, new)
    move = moves.get(g)
    if move is None:
        move = moves[g] = Move(g, target)
        if target is None:
            move.conflict, move.remedy = f"{change.new} is not {g}'s path renamed", _by_hand(g)
        elif gov.has(target):
            move.conflict = f"an article already exists at {target}: merge the two by hand"
            move.remedy = (
                f"fold it into {target} ({_write_command(target)}), then remove it "
                f"(git rm {shell_word(gov.article_file(g))})"
            )
    elif target != move.new and not move.conflict:
        move.conflict = f"files below {g} moved to several places ({move.new}, {target})"
        move.remedy = _by_hand(g)
    move.governing = move.governing or governing
    move.paths.append((change.old, change.new))


def _covering(moves: dict[Address, Move], move: Move) -> Move:
    """The topmost applicable move that carries `move` along (a renamed folder's article), else `move`."""
    best = move
    for other in moves.values():
        if (
            not other.conflict
            and other.new is not None
            and move.new is not None
            and _is_within(move.old, other.old)
            and len(other.old.path) < len(best.old.path)
            and move.new.path == other.new.path + move.old.path[len(other.old.path) :]
        ):
            best = other
    return best


def _deleted(report: CheckReport, gov: Governance, state: _Judge, path: str, address: Address) -> None:
    """A deleted asset (or one moved out of the project), judged against the articles on disk: the
    article governing it now must have changed, unless a nearer article that governed it went in
    the same change set (the asset and its own article deleted together)."""
    g = gov.governing(address)
    if g is None or g in state.changed:
        return
    nearer = [a for a in address.ancestors() if len(a.path) > len(g.path)]
    if any(a in state.changed and not gov.has(a) for a in nearer):
        return
    if gov.asset_present(g):
        what = f"update it ({_write_command(g)})"
    else:
        what = (
            f"update it ({_write_command(g)}) or, if nothing it describes remains, remove it "
            f"(git rm {shell_word(gov.article_file(g))})"
        )
    report.findings.append(
        _finding(
            "article-outlived",
            path,
            f"deleted, but its article {g} still exists and did not change: review {gov.article_file(g)} and {what}",
        )
    )


def _finding(rule: str, path: str, message: str) -> Finding:
    return Finding(rule, CHECK_RULES[rule].severity, message, path, 1, False)


def judge(gov: Governance, changes: ChangeSet, top: str) -> CheckReport:
    report = CheckReport(changes, top)
    state = _Judge(gov, changes.changes)
    report.articles_changed = sorted(str(a) for a in state.changed)
    moves: dict[Address, Move] = {}
    for change in changes.changes:
        new_addr = gov.address_of(change.new)
        old_addr = gov.address_of(change.old)
        if new_addr is None and old_addr is None:
            continue  # outside the project, or the store's own files
        report.assets += 1
        if change.status == "D" or change.status == "R" and new_addr is None:  # moved out of the project: gone
            if old_addr is not None:
                _deleted(report, gov, state, change.old, old_addr)
            continue
        if change.status == "R" and old_addr is not None and new_addr is not None:
            g = state.governing_before(old_addr)
            if g is not None and g not in state.changed and gov.governing(new_addr) != g:
                if not gov.asset_present(g):
                    _propose(moves, g, old_addr, new_addr, change, gov, governing=True)
                    # Articles further up whose whole asset moved the same way (a renamed folder) go too.
                    for above in g.ancestors()[1:]:
                        if (
                            state.had(above)
                            and above not in state.changed
                            and not _is_within(new_addr, above)
                            and not gov.asset_present(above)
                        ):
                            _propose(moves, above, old_addr, new_addr, change, gov, governing=False)
                    continue
                if gov.has(g):  # g's asset stays: the file left what g describes
                    report.findings.append(
                        _finding(
                            "article-outlived",
                            change.old,
                            f"renamed to {change.new}, out of the reach of its article {g}, which did not change: "
                            f"review {gov.article_file(g)} and update it ({_write_command(g)})",
                        )
                    )
        if new_addr is None:
            continue
        g = gov.governing(new_addr)
        if g is not None and g not in state.changed:
            what = (
                f"renamed from {change.old}"
                if change.status == "R"
                else ("added" if change.status in "AC" else "changed")
            )
            report.findings.append(
                _finding(
                    "article-not-updated",
                    change.new,
                    f"{what}, but its article {g} did not change: review {gov.article_file(g)} and update it "
                    f"({_write_command(g)})",
                )
            )
    for move in moves.values():
        if not move.governing:
            continue
        for old, new in move.paths:
            cover = _covering(moves, move)
            if cover.conflict:
                message = f"renamed from {old}; its article {move.old} did not move ({cover.conflict}): {cover.remedy}"
            else:
                from typing import cast  # here only: typing costs start-up time

                target = cast(Address, cover.new)  # None only with a conflict set (see _propose)
                message = f"renamed from {old}; its article {move.old} did not move: {mv_command(cover.old, target)}"
            report.findings.append(_finding("article-not-moved", new, message))
    report.moves = [m for m in moves.values() if m.governing or not m.conflict]
    report.findings.sort(key=lambda f: (f.path, f.rule))
    return report


def check(project: Project, staged: bool = False, since: str | None = None) -> CheckReport:
    """Judge the change set (staged, since a revision, or the working tree) of the project's repository."""
    repo = open_repo(project.root_dir)
    gov = Governance(project, repo.top, probe=True)
    return judge(gov, change_set(repo, staged=staged, since=since), repo.top)


def renames_to_apply(project: Project, rev: str | None = None) -> tuple[Repo, list[Move]]:
    """The article moves git's renames call for (`canon mv --from-git [REV]`): REV (default HEAD)
    against the working tree, as `canon check` sees them."""
    repo = open_repo(project.root_dir)
    gov = Governance(project, repo.top, probe=True)
    return repo, judge(gov, change_set(repo, against=rev), repo.top).moves
