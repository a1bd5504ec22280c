"""`pylon ws`: workspace commands (typer app for help and usage errors).

The same commands normally run through the typer-free fast path in ws_fast.py (typer's import
alone costs more than the 50 ms budget of `pylon ws changes`). Both paths call the handlers in
ws_handlers.py, so behaviour is identical; this app is what parses `--help` and reports bad
options. Commands of the next part (new, list, path, rm, prune, move, apply, undo) join here.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from pylon.cli.common import APP_SETTINGS, JsonOpt

app = typer.Typer(name="ws", help="Workspace: baselines, changes, diffs, confined reads, owned worktrees.", **APP_SETTINGS)

SinceOpt = Annotated[
    Optional[str],
    typer.Option("--since", metavar="NAME|REV", help="Baseline name or git revision (default: session baseline, else `last`, else HEAD)."),
]


def _call(command: str, values: dict[str, object]) -> None:
    from pylon.cli import ws_handlers

    code = ws_handlers.dispatch(command, values)
    if code:
        raise typer.Exit(code)


@app.command("baseline")
def baseline_cmd(
    name: Annotated[str, typer.Argument(help="Baseline name (1-64 of A-Za-z0-9._-).")] = "last",
    delete: Annotated[bool, typer.Option("--delete", help="Delete the named baseline.")] = False,
    json_: JsonOpt = False,
) -> None:
    """Capture the checkout state (HEAD, index, working tree) as baseline NAME (default `last`)."""
    _call("baseline", {"words": [name], "--delete": delete, "--json": json_})


@app.command("changes")
def changes_cmd(
    since: SinceOpt = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="Most entries to list.")] = 200,
    json_: JsonOpt = False,
) -> None:
    """Paths changed since a baseline: status, lines added/removed or binary (bounded)."""
    _call("changes", {"words": [], "--since": since, "--limit": limit, "--json": json_})


@app.command("diff")
def diff_cmd(
    paths: Annotated[Optional[list[str]], typer.Argument(help="Literal paths (no globs).")] = None,
    since: SinceOpt = None,
    max_files: Annotated[Optional[int], typer.Option("--max-files", help="Most files to show (200).")] = None,
    max_lines: Annotated[Optional[int], typer.Option("--max-lines", help="Most diff lines to show (2000).")] = None,
    max_bytes: Annotated[Optional[int], typer.Option("--max-bytes", help="Most bytes to show (65536).")] = None,
    out: Annotated[Optional[str], typer.Option("--out", metavar="FILE", help="Write the complete diff to FILE.")] = None,
    json_: JsonOpt = False,
) -> None:
    """git-style unified diff against the baseline, bounded; --out FILE writes all of it."""
    _call(
        "diff",
        {"words": paths or [], "--since": since, "--max-files": max_files, "--max-lines": max_lines,
         "--max-bytes": max_bytes, "--out": out, "--json": json_},
    )


@app.command("cat")
def cat_cmd(
    path: Annotated[str, typer.Argument(help="File of the checkout, relative to the current folder.")],
    base: Annotated[bool, typer.Option("--base", help="Print the baseline's version instead.")] = False,
    since: SinceOpt = None,
    max_bytes: Annotated[Optional[int], typer.Option("--max-bytes", help="Read cap (1 MiB).")] = None,
    json_: JsonOpt = False,
) -> None:
    """Confined read of one file of the checkout (or of its baseline with --base)."""
    _call("cat", {"words": [path], "--base": base, "--since": since, "--max-bytes": max_bytes, "--json": json_})


@app.command("fingerprint")
def fingerprint_cmd(json_: JsonOpt = False) -> None:
    """A short stable fingerprint of the checkout state."""
    _call("fingerprint", {"words": [], "--json": json_})


@app.command("run", context_settings={"allow_interspersed_args": False})
def run_cmd(
    command: Annotated[list[str], typer.Argument(help="The command (after --); one argument runs through sh -c.")],
    limit: Annotated[Optional[int], typer.Option("--limit", help="Most paths to list (200).")] = None,
    json_: JsonOpt = False,
) -> None:
    """Run a command and report exactly which files it changed; exits with its status."""
    _call("run", {"words": command, "--limit": limit, "--json": json_})


@app.command("watch")
def watch_cmd(
    since: SinceOpt = None,
    timeout: Annotated[Optional[float], typer.Option("--timeout", metavar="S", help="Stop after S seconds.")] = None,
    settle: Annotated[Optional[float], typer.Option("--settle", metavar="S", help="Quiet time before a batch (0.2).")] = None,
    json_: JsonOpt = False,
) -> None:
    """Watch the checkout; print one line per settled batch of changes."""
    _call("watch", {"words": [], "--since": since, "--timeout": timeout, "--settle": settle, "--json": json_})


@app.command("status")
def status_cmd(json_: JsonOpt = False) -> None:
    """Where you are: checkout, HEAD, baselines, watch, owned worktrees."""
    _call("status", {"words": [], "--json": json_})
