"""`classify(command, context)`: the verdict on one shell command line or script."""

from __future__ import annotations

from pylon.guard.context import Context
from pylon.guard.verdict import UNKNOWN, Finding, Result
from pylon.guard.walk import Walk
from pylon.guard.words import State

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from pylon.guard.model import Node


def classify(command: str, ctx: Context, parser: Callable[[str], Node] | None = None) -> Result:
    """The verdict on one shell command line (or script) run in ctx.cwd."""
    from pylon.guard.rules import judge

    walk = Walk(ctx, judge, parser)
    if "\0" in command:
        walk.add(Finding(UNKNOWN, "the command holds a NUL byte, which no shell passes on", "\\0"))
        return Result(command, walk.findings, [])
    try:
        walk.script(command, State(ctx.cwd, {}, -1))
    except RecursionError:
        walk.add(Finding(UNKNOWN, "the command is nested too deeply to analyse", command[:200]))
    except ImportError as exc:  # the parser is not installed: never guess
        walk.add(Finding(UNKNOWN, f"the shell parser is not available ({exc.name})", command[:200]))
    return Result(command, walk.findings, walk.commands)
