"""`canon` / `pylon canon`: project memory commands. Parse, call pylon.canon, render, exit."""

from __future__ import annotations

import typer

from pylon.cli.common import APP_SETTINGS, JsonOpt, global_options

app = typer.Typer(
    name="canon",
    help="canon: project memory. One article per asset under .canon/articles/, an append-only journal, lint.",
    callback=global_options,
    **APP_SETTINGS,
)


def build_canon_app() -> typer.Typer:
    return app


@app.command("init")
def init_cmd(json_: JsonOpt = False) -> None:
    """Create the store (.canon/ with schema.json and .gitignore); idempotent."""
    raise NotImplementedError("canon init")


# `canon lint` lives in its own module (formats, fixes); registered here so both entry points have it.
from pylon.cli.canon_lint_cmd import lint_cmd  # noqa: E402

app.command("lint")(lint_cmd)
