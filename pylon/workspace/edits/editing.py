"""`edit`: apply a request to PATH#TAG — all or nothing, exactly where the numbers point.

Order of checks: the file can be edited (exit 4), the tag was issued (exit 1), under the file's
lock the content still has the tag's digest (else stale, exit 1, or `--rebase`), every problem of
the request together (exit 2, or 3 for suspicious edits), something changes (else exit 5). Then
the atomic write, a read-back, and a new ledger revision. The refusals' messages are in `refusal`.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False  # importing typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Any

    from pylon.workspace.edits.ledger import Revision

from pylon.errors import Exit, PylonError, UsageError
from pylon.workspace.edits import ranges as rg
from pylon.workspace.edits import refusal
from pylon.workspace.edits import write as wr
from pylon.workspace.edits.apply import Applied, apply
from pylon.workspace.edits.ledger import INDEX_MIN, SNAPSHOT_CAP, Ledger
from pylon.workspace.edits.lines import BLOCK, Doc
from pylon.workspace.edits.ops import Op, parse
from pylon.workspace.edits.plan import validate
from pylon.workspace.edits.problems import Problem
from pylon.workspace.edits.tag import BackgroundDigest, digest, normalize_tag
from pylon.workspace.edits.window import Window, take

SHOW_CONTEXT = 2


class EditResult:
    def __init__(
        self,
        path: str,
        old_tag: str,
        new_tag: str | None,
        applied: int,
        line_map: list[list[int]],
        nlines: int,
        warnings: list[str],
        rebased: list[dict[str, Any]] | None = None,
    ) -> None:
        self.path, self.old_tag, self.new_tag, self.applied = path, old_tag, new_tag, applied
        self.line_map, self.nlines, self.warnings, self.rebased = line_map, nlines, warnings, rebased
        self.dry_run = False
        self.diff: str | None = None
        self.shown: list[Window] = []
        self.transformed: dict[str, Any] | None = None
        self.pending: tuple[Ledger, str, list[list[int]]] | None = None

    def mark_seen(self) -> None:
        """Record the lines of --show as seen, once printed: output that failed was never seen."""
        if self.pending is not None:
            ledger, digest_, seen = self.pending
            self.pending = None
            ledger.mark_seen(digest_, seen)

    def moved(self) -> list[list[int]]:
        return [s for s in self.line_map if s[0] != s[2]]

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "path": self.path,
            "old_tag": self.old_tag,
            "new_tag": self.new_tag,
            "applied": self.applied,
            "line_map": self.line_map,
            "warnings": self.warnings,
            "total_lines": self.nlines,
        }
        if self.dry_run:
            doc["dry_run"] = True
            doc["diff"] = self.diff
        if self.shown:
            doc["shown"] = [
                {"lines": [[n, t] for n, t in w.lines], "cut": [[n, h] for n, h in w.cut]} for w in self.shown
            ]
        if self.rebased is not None:
            doc["rebased"] = self.rebased
        if self.transformed is not None:
            doc["transformed"] = self.transformed
        return doc


def split_target(target: str, tag: str | None) -> tuple[str, str]:
    """`PATH#TAG` or `PATH` plus `--tag TAG` -> (path, normalized tag)."""
    path = target
    if tag is None:
        if "#" not in target:
            raise UsageError(
                "usage",
                f"No revision tag given for {target}.",
                f"pylon read {target}   # then: pylon edit {target}#<tag> (or --tag <tag>)",
            )
        path, tag = target.rsplit("#", 1)
    norm = normalize_tag(tag)
    if norm is None or not path:
        raise UsageError(
            "usage",
            f"`{tag}` is not a revision tag (12 or more hex characters from `pylon read`).",
            f"pylon read {path or target}",
        )
    return path, norm


def edit(
    path: str,
    tag: str,
    request: bytes | list[Op],
    *,
    rebase: bool = False,
    dry_run: bool = False,
    show: bool = False,
    allow_echo: bool = False,
    allow_indent_mix: bool = False,
    force: bool = False,
) -> EditResult:
    real, st = wr.resolve(path, write=True)
    syntax: list[Problem]
    if isinstance(request, list):
        ops, syntax = request, []
    else:
        ops, syntax = parse(request)
    ledger = Ledger(real)
    rev = ledger.find(tag)
    if rev is None:
        raise refusal.unknown_revision(path, tag, ledger)
    if not dry_run:
        wr.check_writable(path, real, st, force)
    with wr.locked(path, real) as lk:
        data = lk.data
        hasher = BackgroundDigest(data)
        doc = Doc(data)
        # The index kept for the tagged revision fits only if the hash confirms the bytes.
        if len(data) < INDEX_MIN or not doc.use_index(ledger.load_index(rev, BLOCK)):
            doc.index()
        current = hasher.value
        if current != rev["digest"]:
            doc.use_index(None)
        seen, check_seen, parent, rebased_report = rev["seen"], rev["seen"], rev.get("parent"), None
        stale_numbers = rev.get("stale", [])
        if current != rev["digest"]:
            from pylon.workspace.edits import stale

            old_data = ledger.snapshot(rev)
            if old_data is None:
                raise refusal.stale_without_snapshot(path, rev, doc, len(data))
            base_doc = Doc(old_data)
            cmp = stale.compare(base_doc, doc)
            if not rebase:
                invalid = {p.index for p in syntax + validate(ops, base_doc, seen).problems}
                raise refusal.stale_revision(path, rev, cmp, stale.rebase_all(cmp, ops, invalid)[1], False)
            # Problems of the request are reported in the numbering of the tagged revision.
            refusal.refuse_if_bad(
                path, rev, ledger, ops, syntax, base_doc, seen, allow_echo, allow_indent_mix, parent, True
            )
            moved_ops, rebased_report = stale.rebase_all(cmp, ops, set())
            if len(moved_ops) != len(ops):
                raise refusal.stale_revision(path, rev, cmp, rebased_report, True)
            ops, syntax, parent = moved_ops, [], None
            seen, lost = _seen_through(cmp, seen)
            stale_numbers = rg.union(stale_numbers, lost)
            check_seen = [[1, doc.nlines]] if doc.nlines else []  # seen was checked in the old numbering
        warnings = refusal.refuse_if_bad(
            path,
            rev,
            ledger,
            ops,
            syntax,
            doc,
            check_seen,
            allow_echo,
            allow_indent_mix,
            parent,
            rebased_report is None,
        )
        result = apply(doc, ops)
        if result.same_as(data):
            raise PylonError(
                "no-change",
                f"The edit leaves {path} exactly as it was; nothing was written. #{rev['tag']} is still valid.",
                "Check the new text against the lines shown by `pylon read`.",
                exit_code=Exit.NO_CHANGE,
                details={"tag": rev["tag"]},
            )
        out = EditResult(path, rev["tag"], None, len(ops), result.segments, result.nlines, warnings, rebased_report)
        if dry_run:
            from pylon.workspace.edits.diff import unified

            out.dry_run = True
            new_doc = Doc(result.data)
            out.diff = unified(path, doc, new_doc, result.regions)
            if doc.nlines and new_doc.nlines and doc.final_newline != new_doc.final_newline:
                # A terminator change is invisible in the line texts of the diff: name it.
                yes_no = {True: "yes", False: "no"}
                out.diff += f"[final newline: {yes_no[doc.final_newline]} -> {yes_no[new_doc.final_newline]}]\n"
            return out
        new_hasher = BackgroundDigest(result.pieces)
        keep, notes = wr.replace(path, real, lk, result.pieces)
        out.warnings += notes
        try:
            new_digest = new_hasher.value
            _finish(out, path, real, keep, ledger, rev, current, result, new_digest, seen, stale_numbers, show)
        finally:
            os.close(keep)
    return out


def _seen_through(cmp: Any, seen: list[list[int]]) -> tuple[list[list[int]], list[list[int]]]:
    """Seen old lines that kept their number and content in the current file, and the others."""
    keep: list[list[int]] = []
    lost: list[list[int]] = []
    for a, b in seen:
        for n in range(a, min(b, cmp.old_n) + 1):
            into = keep if cmp.mapping[n] == n else lost
            if into and into[-1][1] == n - 1:
                into[-1][1] = n
            else:
                into.append([n, n])
    return keep, lost


def _show_windows(doc: Doc, result: Applied) -> list[Window]:
    spans: list[list[int]] = []
    for r in result.regions:
        lo = max(1, r.new[0] - SHOW_CONTEXT)
        hi = min(doc.nlines, max(r.new[1], r.new[0] - 1) + SHOW_CONTEXT)
        if lo <= hi:
            spans.append([lo, hi])
    windows, budget_lines, budget = [], 2000, 50 * 1024
    for a, b in rg.normalize(spans):
        if budget_lines <= 0 or budget <= 0:
            break
        win = take(doc, a, b, max_lines=budget_lines, budget=budget)
        budget_lines -= len(win.lines)
        budget -= win.used
        windows.append(win)
    return windows


def _finish(
    out: EditResult,
    path: str,
    real: str,
    fd: int,
    ledger: Ledger,
    rev: Revision,
    current: str,
    result: Applied,
    new_digest: str,
    seen: list[list[int]],
    stale: list[list[int]],
    show: bool,
) -> None:
    delay = os.environ.get("PYLON_TEST_READBACK_DELAY")
    if delay:
        time.sleep(float(delay))  # test seam: lets a test's watcher process change the file here
    back = wr.changed_since_write(path, real, fd, result.pieces, result.size)
    parent = result.parent_record(rev["tag"], current)
    if back is not None:
        out.transformed = _transformed(path, real, ledger, back, result.data, parent)
        out.new_tag = out.transformed["tag"]
        out.warnings.append(
            f"another process changed {path} right after pylon wrote it (a formatter or watcher?); "
            "only the window shown counts as seen."
        )
        return
    new_seen, new_stale = result.carry_seen(seen, stale)
    shown: list[list[int]] = []
    if show:
        out.shown = _show_windows(Doc(result.data), result)
        for win in out.shown:
            shown = rg.union(shown, win.seen())
    new_rev = ledger.record(
        new_digest,
        seen=new_seen,
        lines=result.nlines,
        size=result.size,
        data=result.data if result.size <= SNAPSHOT_CAP else None,
        parent=parent,
        stale=new_stale,
        shown=False,
        st=os.fstat(fd) if result.size >= INDEX_MIN else None,
    )
    if shown:
        out.pending = (ledger, new_digest, shown)  # marked by mark_seen() once printed
    out.new_tag = new_rev["tag"]


def _transformed(
    path: str, real: str, ledger: Ledger, back: bytes, wrote: bytes, parent: dict[str, Any]
) -> dict[str, Any]:
    limit = min(len(back), len(wrote))
    pos, step = 0, 1 << 16
    while pos < limit and back[pos : pos + step] == wrote[pos : pos + step]:
        pos += step
    while pos < limit and back[pos] == wrote[pos]:
        pos += 1
    doc = Doc(back)
    line = back.count(b"\n", doc.base, pos) + 1
    win = take(doc, max(1, line - 5), line + 5) if doc.nlines else Window()
    rev = ledger.record(
        digest(back),
        seen=win.seen(),
        lines=doc.nlines,
        size=len(back),
        data=back if len(back) <= SNAPSHOT_CAP else None,
        parent=None,
    )
    return {"tag": rev["tag"], "first_changed_line": line, "lines": [[n, t] for n, t in win.lines]}
