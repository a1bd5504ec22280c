"""`canon lint`: parse options, call pylon.canon.lint, render in the chosen format, exit code."""

from __future__ import annotations

from typing import Annotated

import typer

from pylon.cli.common import JsonOpt


def lint_cmd(
    addresses: Annotated[list[str] | None, typer.Argument(help="Addresses or paths; whole store by default.")] = None,
    json_: JsonOpt = False,
) -> None:
    """Lint the store (exit 0 clean, 1 findings, 2 could not lint)."""
    raise NotImplementedError("canon lint")
