"""`canon lint` for the typer app: options and help; the work is in canon_lint_handler.do_lint."""

from __future__ import annotations

from typing import Annotated

import typer

from pylon.cli.canon_opts import MountOpt, RootOpt
from pylon.cli.common import JsonOpt


def lint_cmd(
    addresses: Annotated[
        list[str] | None,
        typer.Argument(metavar="[ADDRESS]...", help="Addresses or paths; each selects its article and those below it. "
                       "Whole store by default."),
    ] = None,
    format_: Annotated[
        str, typer.Option("--format", metavar="FORMAT", help="text, json, github (workflow annotations) or sarif.")
    ] = "text",
    strict: Annotated[bool, typer.Option("--strict", help="Warnings fail too (exit 1).")] = False,
    fix: Annotated[
        bool, typer.Option("--fix", help="Apply safe fixes (quoting, capsule folding, pasted front matter) first.")
    ] = False,
    base: Annotated[
        str | None, typer.Option("--base", metavar="REV", help="For journal-changed (git-aware checks, not built yet).")
    ] = None,
    all_: Annotated[
        bool, typer.Option("--all", help="Text: show every finding (default: the first 200, then counts per rule).")
    ] = False,
    root: RootOpt = None,
    mount: MountOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Lint the store (exit 0 clean, 1 findings, 2 could not lint)."""
    from pylon.cli.canon_lint_handler import do_lint

    try:
        do_lint(addresses, format_, strict, fix, base, json_, root, mount, all_)
    except SystemExit as exc:
        raise typer.Exit(int(exc.code or 0)) from None
