"""`pylon ws`: workspace commands. Parse, call pylon.workspace, render, exit."""

from __future__ import annotations

import typer

from pylon.cli.common import APP_SETTINGS, JsonOpt

app = typer.Typer(name="ws", help="Workspace: baselines, changes, diffs, confined reads, owned worktrees.", **APP_SETTINGS)


@app.command("status")
def status_cmd(json_: JsonOpt = False) -> None:
    """Where you are: checkout, baselines, owned worktrees."""
    raise NotImplementedError("pylon ws status")
