"""`canon lint`: run the library, render the chosen format, exit status.

pre-commit runs this on every commit, so it imports no typer and, below PROGRESS_MIN articles, no rich.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from pylon.cli.canon.core import StoreArgs

    class LintArgs(StoreArgs, Protocol):
        addresses: list[str]
        format: str
        strict: bool
        fix: bool
        all: bool
        base: str | None


PROGRESS_MIN = 2000  # show a progress bar (TTY only) from this many articles


class _Bar:
    """A rich progress bar on stderr, created lazily and only for long runs on a terminal."""

    def __init__(self) -> None:
        self.progress: Any = None
        self.task: Any = None

    def __call__(self, done: int, total: int) -> None:
        if total < PROGRESS_MIN or not sys.stderr.isatty():
            return
        if self.progress is None:
            from rich.console import Console
            from rich.progress import Progress

            from pylon.cli.output import color_enabled

            console = Console(stderr=True, no_color=not color_enabled(sys.stderr))
            self.progress = Progress(console=console, transient=True)
            self.progress.start()
            self.task = self.progress.add_task("canon lint", total=total)
        self.progress.update(self.task, completed=done)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


def lint(args: LintArgs) -> int:
    """Lint and print; exit 1 when there are findings that fail the run.

    Text shows the first formats.TEXT_LIMIT findings unless --all; the other formats show all."""
    from pylon.cli import output

    fmt = "json" if args.json else args.format
    from pylon.canon.lint import formats
    from pylon.canon.lint import lint as run_lint
    from pylon.cli.canon.core import project_from

    project = project_from(args)
    bar = _Bar()
    try:
        from pylon.canon.git.journal import committed_entries

        report = run_lint(project, args.addresses or None, fix=args.fix, progress=bar, committed=committed_entries)
    finally:
        bar.close()
    if args.base is not None or not args.addresses:
        # journal-changed asks git (the whole store, or an explicit --base): entries are append-only.
        from pylon.canon.git.journal import journal_findings

        changed = journal_findings(project, args.base, report.base)
        if changed:
            report.findings = sorted(report.findings + changed, key=lambda f: (f.path, f.line))
    if fmt == "text":
        limit = None if args.all else formats.TEXT_LIMIT
        paint = (lambda text, style: output.paint(text, style)) if output.color_enabled(sys.stdout) else None
        sys.stdout.write(formats.render_text(report, os.getcwd(), limit, paint))
        cut = formats.left_out(report, limit)
        if cut:
            sys.stdout.flush()  # the note follows the findings it counts
            output.err(cut)
    elif fmt == "json":
        from pylon import boundary

        doc = formats.render_json(report, args.strict)
        found = doc["findings"]
        if boundary.current() is not None and len(found) > formats.TEXT_LIMIT:  # an agent's answer is bounded
            doc.update(
                findings=found[: formats.TEXT_LIMIT],
                shown=formats.TEXT_LIMIT,
                truncated=True,
                hint=f"{len(found) - formats.TEXT_LIMIT} more findings: call canon_lint with addresses "
                "to lint fewer articles.",
            )
        output.ok_json_safe(doc)
    elif fmt == "github":
        sys.stdout.write(formats.render_github(report))
    else:
        from pylon import __version__
        from pylon.jsonbytes import text_fields

        output.write(formats.dumps(formats.render_sarif(report, __version__, text_fields=text_fields)))
    if fmt != "json":
        output.err(formats.summary(report, args.strict))
    return 1 if report.failed(args.strict) else 0
