"""The `pylon` root app: global options, `guide`, and lazily loaded parts."""

from __future__ import annotations

from typing import Annotated

import typer

from pylon.cli.common import APP_SETTINGS, global_options, lazy_group

LAZY = {
    "canon": ("pylon.cli.canon_cmds", "app", "Project memory: articles, journal, lint (same as the `canon` command)."),
    "read": ("pylon.cli.edit_cmds", "read_app", "Print a file with absolute line numbers and a revision tag."),
    "edit": ("pylon.cli.edit_cmds", "edit_app", "Apply whole-line edits to a file read with `pylon read`."),
    "ws": ("pylon.cli.ws_cmds", "app", "Workspace: baselines, changes, diffs, owned worktrees."),
}

GUIDE_PARTS = ("overview", "canon", "edits", "workspace")


def guide(
    part: Annotated[str | None, typer.Argument(help="One part only: overview, canon, edits, workspace.")] = None,
) -> None:
    """Print the compact usage guide for agents (paste it into a system prompt)."""
    from pathlib import Path

    from pylon.errors import UsageError

    if part is not None and part not in GUIDE_PARTS:
        raise UsageError("usage", f"No guide part named {part!r}.", "pylon guide [overview|canon|edits|workspace]")
    folder = Path(__file__).with_name("guide")
    texts = []
    for name in [part] if part else GUIDE_PARTS:
        path = folder / f"{name}.md"
        if path.exists():
            texts.append(path.read_text(encoding="utf-8").strip())
    typer.echo("\n\n".join(texts))


def build_app() -> typer.Typer:
    app = typer.Typer(
        name="pylon",
        help="pylon: git-centric workspace and memory toolkit. Start with `pylon guide`.",
        cls=lazy_group(LAZY),
        callback=global_options,
        **APP_SETTINGS,
    )
    app.command("guide")(guide)
    return app
