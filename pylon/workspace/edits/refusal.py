"""The refusals of `edit`: the errors that say why a request was not applied, and what to send next.

`refuse_if_bad` checks a request and raises one error for all its problems (or returns the
warnings); the others build the errors for an unknown or stale tag. Apart from `editing`, which
orders the checks and writes, because these only turn findings into a message, a hint, details.
"""

from __future__ import annotations

TYPE_CHECKING = False  # importing typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Any

    from pylon.workspace.edits.ledger import Ledger, Revision
    from pylon.workspace.edits.lines import Doc
    from pylon.workspace.edits.ops import Op

from pylon.errors import PylonError
from pylon.workspace.edits.ledger import SNAPSHOT_CAP
from pylon.workspace.edits.plan import validate
from pylon.workspace.edits.problems import Problem, request_error
from pylon.workspace.edits.suspicious import check as check_suspicious
from pylon.workspace.edits.window import MAX_BYTES, SEPARATOR, Window, numbered, take

MAX_UNSEEN_SHOWN = 40


def unknown_revision(path: str, tag: str, ledger: Ledger) -> PylonError:
    return PylonError(
        "unknown-revision",
        f"#{tag} was not issued for {path} in session `{ledger.session}` (or it was dropped: pylon keeps "
        "32 revisions per file).",
        f"pylon read {path}   # then edit with the tag it prints",
        details={"tag": tag, "session": ledger.session},
    )


def refuse_if_bad(
    path: str,
    rev: Revision,
    ledger: Ledger,
    ops: list[Op],
    syntax: list[Problem],
    doc: Doc,
    seen: list[list[int]],
    allow_echo: bool,
    allow_indent_mix: bool,
    parent: dict[str, Any] | None,
    mark: bool,
) -> list[str]:
    """Raise one error for every problem of the request; return the warnings otherwise.

    `doc` must be the tagged revision when `mark` is set: unseen lines printed in the refusal are
    then recorded as seen under the tag, so the corrected retry needs no extra read.
    """
    plan = validate(ops, doc, seen, parent)
    problems = syntax + plan.problems
    # Every problem in one answer: the suspicious-edit checks run on every operation whose numbers
    # are sound (unseen lines do not stop them), so a resend cannot meet a new refusal.
    unsound = {p.index for p in problems if p.code != "unseen-lines"}
    checkable = [op for op in ops if op.index not in unsound]
    found, warnings = check_suspicious(doc, checkable, allow_echo=allow_echo, allow_indent_mix=allow_indent_mix)
    problems += found
    if not problems:
        return warnings
    extra: dict[str, Any] = {"tag": rev["tag"]}
    tail = ""
    if plan.unseen:
        win = Window()
        shown_lines = sorted(set(plan.unseen) | {new for _, new in plan.moved})
        for n in shown_lines[:MAX_UNSEEN_SHOWN]:
            # Long lines cut as in a read (bounded output), 50 KiB in all.
            part = take(doc, n, n, budget=max(MAX_BYTES - win.used, 1))
            if not part.lines or (win.lines and win.used + part.used > MAX_BYTES):
                break
            win.lines += part.lines
            win.cut += part.cut
            win.used += part.used
        shown = win.seen()
        unseen_set = set(plan.unseen)
        extra["unseen"] = [[n, t] for n, t in win.lines if n in unseen_set]
        printed = {n for n, _ in win.lines}
        moved = [(old, new) for old, new in plan.moved if new in printed]
        if moved:
            extra["moved"] = [[old, new] for old, new in moved]
        hidden = dict(win.cut)
        more = len(shown_lines) - len(win.lines)
        tail = f"Those lines, now marked seen under #{rev['tag']}:\n[{path}#{rev['tag']}]\n"
        body: list[str] = []
        for i, (n, t) in enumerate(win.lines):
            if i and n != win.lines[i - 1][0] + 1:
                body.append(SEPARATOR)  # as in a read: the numbers jump here
            body.append(numbered(n, t, hidden.get(n, 0)))
        tail += "\n".join(body)
        if more > 0:
            tail += f"\n[{more} more unseen lines not shown; pylon read {path} --offset {shown_lines[len(win.lines)]}]"
    hint = "Fix the operations listed above and send the whole request again (nothing was written)."
    if plan.unseen and len(problems) == len(plan.problems) and all(p.code == "unseen-lines" for p in problems):
        hint = f"Check the lines above, then send the same request again with #{rev['tag']}."
        if moved:
            pairs = ", ".join(f"{old} -> {new}" for old, new in moved[:6])
            hint = (
                f"If you meant the lines as numbered before your last edit, use their new numbers ({pairs}); "
                f"if you meant the lines now at those numbers, send the same request again with #{rev['tag']}."
            )
    if any(p.code == "suspicious-edit" for p in problems) and all(p.code == "suspicious-edit" for p in problems):
        hint = "Fix the new text, or re-run with --allow-echo / --allow-indent-mix if it is intended."
    err = request_error(problems, hint, extra, tail)
    if mark and plan.unseen:
        digest_ = rev["digest"]
        err.after_shown = lambda: ledger.mark_seen(digest_, shown)  # once the refusal is printed
    raise err


def stale_revision(path: str, rev: Revision, cmp: Any, report: list[dict[str, Any]], tried: bool) -> PylonError:
    from pylon.workspace.edits.stale import describe

    ops_text = "; ".join(
        f"Operation {r['index']} (`{r['header']}`) "
        + (f"can still apply ({r['reason']})" if r["applies"] else f"cannot: {r['reason']}")
        for r in report[:8]
    )
    all_ok = all(r["applies"] for r in report) and report
    message = f"{path} changed since #{rev['tag']}: {describe(cmp)}. {ops_text}."
    if all_ok:
        hint = (
            "Send the same request again with --rebase to apply it where those lines are now, or `pylon read "
            + path
            + "` and redo it."
        )
    elif tried:
        hint = f"Not every operation can be rebased; pylon read {path}, then redo the edit with the new tag."
    else:
        hint = f"pylon read {path}   # then redo the edit with the new tag"
    return PylonError(
        "stale-revision",
        message,
        hint,
        details={"tag": rev["tag"], "changes": cmp.changes, "operations": report, "rebase_possible": bool(all_ok)},
    )


def stale_without_snapshot(path: str, rev: Revision, doc: Doc, size: int) -> PylonError:
    return PylonError(
        "stale-revision",
        f"{path} changed since #{rev['tag']} ({rev.get('lines')} lines, {rev.get('size')} bytes then; "
        f"{doc.nlines} lines, "
        f"{size} bytes now). No snapshot is kept for files over {SNAPSHOT_CAP // (1024 * 1024)} MiB, so pylon cannot "
        "say what changed or rebase.",
        f"pylon read {path}   # then redo the edit with the new tag",
        details={"tag": rev["tag"], "changes": None, "operations": None, "rebase_possible": False},
    )
