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
    from pylon import __version__
    from pylon.canon.git.check import CHECK_RULES
    from pylon.canon.lint import LintReport, formats
    from pylon.cli import output

    findings = [f.replace(severity="warning") for f in report.findings] if warn_only else report.findings
    lint_report = LintReport(findings=findings, base=report.top)
    changes = report.changes
    what = {"staged": "staged", "since": f"since {changes.label}", "worktree": f"working tree against {changes.label}"}
    scope = what[changes.mode]
    if fmt == "json":
        output.ok_json_safe(
            {
                "clean": not report.failed,
                "warn_only": warn_only,
                "mode": changes.mode,
                "base": changes.base,
                "base_label": changes.label,
                "root": report.top,
                "assets": report.assets,
                "articles_changed": report.articles_changed,
                "findings": [f.to_dict() for f in findings],
                "moves": [
                    {
                        "from": str(m.old),
                        "to": str(m.new) if m.new else None,
                        "renames": [list(p) for p in m.paths],
                        "conflict": m.conflict or None,
                    }
                    for m in report.moves
                ],
            }
        )
        return
    if fmt == "text":
        paint = (lambda text, style: output.paint(text, style)) if output.color_enabled(sys.stdout) else None
        sys.stdout.write(formats.render_text(lint_report, os.getcwd(), None, paint))
    elif fmt == "github":
        sys.stdout.write(formats.render_github(lint_report))
    else:
        from pylon.jsonbytes import text_fields

        output.write(
            formats.dumps(formats.render_sarif(lint_report, __version__, CHECK_RULES, "canon check", text_fields))
        )
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
        "links": [
            {"article": str(e.address), "count": e.count, "examples": [{"from": a, "to": b} for a, b in e.examples]}
            for e in result.links
        ],
        "journal": result.journal,
        "skipped": result.skipped or None,
        "left_behind": result.left_behind,
    }


def mv(results: list[MoveResult], dry_run: bool, as_json: bool, from_git: bool) -> None:
    from pylon.cli import output

    if as_json:
        output.ok_json_safe({"dry_run": dry_run, "moves": [_move_doc(r) for r in results]})
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
            output.out(
                f"  links: {edit.address}: {edit.count} ({shown}{', ...' if edit.count > len(edit.examples) else ''})"
            )
        if result.left_behind:
            output.out(f"  left in the old folder (not articles): {', '.join(result.left_behind[:5])}")
        if result.journal:
            output.out(f"  Logged {result.journal}.")
    if dry_run:
        output.err("canon mv: dry run; nothing was written.")


def _date(stamp: int) -> str:
    import time  # built in; datetime would cost more start-up than the rest of the rendering

    return time.strftime("%Y-%m-%d", time.gmtime(stamp))


def _table(title: str, headers: list[str], rows: list[list[str]], tty: bool) -> None:
    """A rich table on a terminal; aligned plain columns (two spaces apart) on a pipe."""
    from pylon.cli import output

    if tty:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=title, title_justify="left")
        for i, header in enumerate(headers):
            table.add_column(
                header,
                justify="right"
                if i and all(r[i].rstrip("%d").replace(".", "").isdigit() for r in rows if r[i])
                else "left",
            )
        for row in rows:
            table.add_row(*row)
        Console(no_color=not output.color_enabled(sys.stdout), highlight=False).print(table)
        return
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)] if rows else []
    lines = [title, "  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    output.out("\n".join(lines))


def _commit_doc(commit: Any) -> dict[str, Any]:
    return {
        "sha": commit.sha,
        "date": _date(commit.time),
        "time": commit.time,
        "subject": commit.subject,
        "paths": commit.paths,
    }


def stale(report: StaleReport, limit: int, as_json: bool, tty: bool) -> None:
    from pylon.cli import output

    if as_json:
        output.ok_json_safe(
            {
                "articles": report.articles,
                "commits_scanned": report.commits,
                "days": report.days,
                "stale": [
                    {
                        "address": str(s.address),
                        "file": s.file,
                        "commits_behind": s.count,
                        "days_behind": round(s.days_behind, 1),
                        "last_change": _commit_doc(s.last_change) if s.last_change else None,
                        "commits": [_commit_doc(c) for c in s.behind],
                    }
                    for s in report.stale
                ],
            }
        )
        return
    if not report.stale:
        extra = f" by {report.days} days or more" if report.days else ""
        output.out(
            f"No article is behind its assets{extra} ({_plural(report.articles, 'article')}, "
            f"{_plural(report.commits, 'commit')} scanned)."
        )
        return
    rows = []
    for s in report.stale[:limit]:
        newest = s.behind[0]
        rows.append(
            [
                str(s.address),
                str(s.count),
                f"{s.days_behind:.0f}d",
                _date(s.last_change.time) if s.last_change else "-",
                f"{newest.sha[:10]} {_date(newest.time)} {newest.subject[:50]}",
            ]
        )
    _table(
        f"{_plural(len(report.stale), 'stale article')} ({_plural(report.commits, 'commit')} scanned)",
        ["article", "behind", "days", "article changed", "newest asset commit"],
        rows,
        tty,
    )
    if len(report.stale) > limit:
        output.err(f"... and {len(report.stale) - limit} more; canon stale --limit N or --json shows them.")
    output.err("Review each article against its commits (git show SHA), then canon write ADDRESS.")


def coverage(report: CoverageReport, limit: int, as_json: bool, tty: bool, cwd: str) -> None:
    from pylon.canon.git.history import BROAD_FILES
    from pylon.cli import output

    if as_json:
        output.ok_json_safe(
            {
                "tracked": report.tracked,
                "governed": report.governed,
                "share": round(report.share, 4),
                "churn_days": report.churn_days,
                "ungoverned": [
                    {"folder": f.path, "files": f.files, "churn": f.churn, "loose": f.loose} for f in report.ungoverned
                ],
                "broad": [{"article": str(a), "files": n} for a, n in report.broad],
                "articles": {str(a): n for a, n in sorted(report.per_article.items())},
            }
        )
        return
    output.out(f"{report.governed} of {report.tracked} tracked files have a governing article ({report.share:.1%}).")
    if report.ungoverned:
        rows = [
            [
                ("(top-level files)" if not f.path else f.path + "/* (files directly in it)")
                if f.loose
                else f.path + "/",
                str(f.files),
                str(f.churn),
            ]
            for f in report.ungoverned[:limit]
        ]
        _table(
            f"Largest ungoverned folders (by changes in the last {report.churn_days} days)",
            ["folder", "files", "changes"],
            rows,
            tty,
        )
        if len(report.ungoverned) > limit:
            output.err(f"... and {len(report.ungoverned) - limit} more folders; --limit N or --json shows them.")
    if report.broad:
        rows = [[str(a), str(n), f"{n / report.tracked:.0%}"] for a, n in report.broad[:limit]]
        _table(
            f"Articles governing {BROAD_FILES} files or more (consider child articles)",
            ["article", "files", "share"],
            rows,
            tty,
        )
