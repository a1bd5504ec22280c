"""`canon lint` without typer: run the library, render the chosen format, exit status.

Shared by the typer command (canon_lint_cmd.py) and the typer-free front door (canon_fast.py):
importing typer costs more than linting a small store, and pre-commit runs this on every commit.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FORMATS = ("text", "json", "github", "sarif")
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


def do_lint(
    addresses: list[str] | None,
    format_: str = "text",
    strict: bool = False,
    fix: bool = False,
    base: str | None = None,
    json_: bool = False,
    root: str | None = None,
    mounts: list[str] | None = None,
    all_: bool = False,
) -> None:
    """Lint and print; raises SystemExit(1) when there are findings that fail the run.
    Text shows the first formats.TEXT_LIMIT findings unless `all_`; the other formats show all."""
    from pylon.cli import output
    from pylon.errors import UsageError

    fmt = "json" if json_ else format_
    if fmt not in FORMATS:
        raise UsageError("usage", f"--format takes text, json, github or sarif, not {format_!r}.",
                         "canon lint --format sarif > canon.sarif")
    if base is not None:
        output.warn("--base is for the journal-changed check, which comes with the git-aware commands and is "
                    "not built yet; it is ignored.")
    from pylon.canon.lint import formats, lint
    from pylon.cli.canon_handlers import project_from

    project = project_from(root, mounts)
    bar = _Bar()
    try:
        report = lint(project, addresses or None, fix=fix, progress=bar)
    finally:
        bar.close()
    if fmt == "text":
        limit = None if all_ else formats.TEXT_LIMIT
        paint = (lambda text, style: output.paint(text, style, sys.stdout)) if output.color_enabled(sys.stdout) else None
        sys.stdout.write(formats.render_text(report, os.getcwd(), limit, paint))
        cut = formats.left_out(report, limit)
        if cut:
            sys.stdout.flush()  # the note follows the findings it counts
            output.err(cut)
    elif fmt == "json":
        output.ok_json(formats.render_json(report, strict))
    elif fmt == "github":
        sys.stdout.write(formats.render_github(report))
    else:
        from pylon import __version__

        sys.stdout.write(formats.dumps(formats.render_sarif(report, __version__)))
    if fmt != "json":
        output.err(formats.summary(report, strict))
    if report.failed(strict):
        sys.stdout.flush()
        raise SystemExit(1)
