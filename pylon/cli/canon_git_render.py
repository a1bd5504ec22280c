"""Text, JSON, annotations and tables for `canon check`, `mv`, `stale` and `coverage`.

Findings go through the lint renderers (pylon.canon.lint.formats), so `check` prints exactly what
`lint` prints in every format. Tables are rich on a terminal and plain tab-free text on a pipe.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pylon.canon.git.check import CheckReport
    from pylon.canon.git.history import CoverageReport, StaleReport
    from pylon.canon.git.mv import MoveResult


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else many or word + 's'}"


def check(report: CheckReport, fmt: str, warn_only: bool) -> None:
    from dataclasses import replace

    from pylon import __version__
    from pylon.canon.git.check import CHECK_RULES
    from pylon.canon.lint import LintReport
    from pylon.canon.lint import formats
    from pylon.cli import output

    findings = [replace(f, severity="warning") for f in report.findings] if warn_only else report.findings
    lint_report = LintReport(findings=findings, base=report.top)
    changes = report.changes
    what = {"staged": "staged", "since": f"since {changes.label}", "worktree": f"working tree against {changes.label}"}
    scope = what[changes.mode]
    if fmt == "json":
        output.ok_json({
            "clean": not report.failed,
            "warn_only": warn_only,
            "mode": changes.mode,
            "base": changes.base,
            "base_label": changes.label,
            "root": report.top,
            "assets": report.assets,
            "articles_changed": report.articles_changed,
            "findings": [f.to_dict() for f in findings],
            "moves": [{"from": str(m.old), "to": str(m.new), "renames": [list(p) for p in m.paths],
                       "conflict": m.conflict or None} for m in report.moves],
        })
        return
    if fmt == "text":
        paint = (lambda text, style: output.paint(text, style)) if output.color_enabled(sys.stdout) else None
        sys.stdout.write(formats.render_text(lint_report, os.getcwd(), None, paint))
    elif fmt == "github":
        sys.stdout.write(formats.render_github(lint_report))
    else:
        sys.stdout.write(formats.dumps(formats.render_sarif(lint_report, __version__, CHECK_RULES, "canon check")))
    assets = _plural(report.assets, "changed asset")
    if not report.findings:
        output.err(f"canon check: clean ({assets}, {scope}).")
        return
    fixes = [m for m in report.moves if not m.conflict]
    hint = "; `canon mv --from-git` applies the moves" if fixes else ""
    tail = " (--warn-only: not failing)" if warn_only else ""
    output.err(f"canon check: {_plural(len(report.findings), 'finding')} in {assets} ({scope}){tail}{hint}.")


def _move_doc(result: MoveResult) -> dict[str, Any]:
    return {
        "from": str(result.old),
        "to": str(result.new) if not result.skipped else None,
        "moved": [{"from": a, "to": b} for a, b in result.moved],
        "links": [{"article": str(e.address), "count": e.count,
                   "examples": [{"from": a, "to": b} for a, b in e.examples]} for e in result.links],
        "journal": result.journal,
        "skipped": result.skipped or None,
        "left_behind": result.left_behind,
    }


def mv(results: list[MoveResult], dry_run: bool, as_json: bool, from_git: bool) -> None:
    from pylon.cli import output

    if as_json:
        output.ok_json({"dry_run": dry_run, "moves": [_move_doc(r) for r in results]})
        return
    if not results:
        output.out("No rename that git sees calls for an article move (stage renames with git mv or git add -A).")
        return
    verb = "Would move" if dry_run else "Moved"
    for result in results:
        if result.skipped:
            output.out(f"Skipped {result.old}: {result.skipped}.")
            continue
        count = len(result.moved)
        output.out(f"{verb} {result.old} -> {result.new} ({_plural(count, 'article')}).")
        if count > 1:
            for a, b in result.moved:
                output.out(f"  {a} -> {b}")
        for edit in result.links:
            shown = ", ".join(f"[[{a}]] -> [[{b}]]" for a, b in edit.examples)
            output.out(f"  links: {edit.address}: {edit.count} ({shown}{', ...' if edit.count > len(edit.examples) else ''})")
        if result.left_behind:
            output.out(f"  left in the old folder (not articles): {', '.join(result.left_behind[:5])}")
        if result.journal:
            output.out(f"  Logged {result.journal}.")
    if dry_run:
        output.err("canon mv: dry run; nothing was written.")
