"""Options shared by every `canon` command: `--root DIR` and `--mount DIR` (repeatable)."""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["MountOpt", "RootOpt"]

RootOpt = Annotated[
    str | None,
    typer.Option(
        "--root", metavar="DIR", help="The folder holding .canon/ (default: nearest ancestor with .canon/, else the git top-level)."
    ),
]
MountOpt = Annotated[
    list[str] | None,
    typer.Option("--mount", metavar="DIR", help="Mount another folder's .canon/ as <basename>:...; repeatable."),
]
