"""`classify(command, context)`: the verdict on one shell command line or script."""

from __future__ import annotations

from pylon.guard.context import Context
import os

from pylon.guard.verdict import SAFE, UNKNOWN, Finding, Result
from pylon.guard.walk import Walk
from pylon.guard.words import State

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from pylon.guard.model import Node


BUDGET = 5.0  # seconds for one classification; past it the verdict is unknown (the hook allows 30 s)
MAX_COMMAND = 4 << 20  # characters: a longer command is not read at all (unknown)


def classify(command: str, ctx: Context, parser: Callable[[str], Node] | None = None,
             budget: float = BUDGET) -> Result:
    """The verdict on one shell command line (or script) run in ctx.cwd; `unknown` when it cannot
    be read within `budget` seconds."""
    import gc
    import time

    from pylon.guard import model
    from pylon.guard.rules import judge

    walk = Walk(ctx, judge, parser)
    if "\0" in command:
        walk.add(Finding(UNKNOWN, "the command holds a NUL byte, which no shell passes on", "\\0"))
        return Result(command, walk.findings, [])
    if len(command) > MAX_COMMAND:
        walk.add(Finding(UNKNOWN, f"the command is {len(command):,} characters long, more than pylon reads "
                         f"({MAX_COMMAND:,})", command[:200]))
        return Result(command, walk.findings, [])
    collecting = gc.isenabled()
    gc.disable()  # the parse makes many small objects: the cyclic collector would make it quadratic
    previous, model.DEADLINE[0] = model.DEADLINE[0], time.monotonic() + budget
    try:
        walk.script(command, State(ctx.cwd, {}, -1))
    except model.OverBudget:
        walk.add(Finding(UNKNOWN, f"the command could not be read within {budget:g} s", command[:200]))
    except RecursionError:
        walk.add(Finding(UNKNOWN, "the command is nested too deeply to analyse", command[:200]))
    except ImportError as exc:  # the parser is not installed: never guess
        walk.add(Finding(UNKNOWN, f"the shell parser is not available ({exc.name})", command[:200]))
    finally:
        model.DEADLINE[0] = previous
        if collecting:
            gc.enable()
    if "\n" not in command and any(f.reason == model.UNREADABLE for f in walk.findings):
        refused = refused_by_shells(command, ctx.env.get("PATH"))
        if refused:
            return Result(command, [Finding(SAFE, f"no shell runs it: {refused} refuse the line (syntax error), "
                                            "so no word of it runs", command[:200])], [])
    return Result(command, walk.findings, walk.commands)


def refused_by_shells(command: str, path: str | None) -> str:
    """The shells that refuse one line of text as a syntax error ("" when any would run it, or
    none could be asked). A shell reads a whole line before it runs any of it, so a line it
    refuses runs nothing. Asked of bash (also with extglob, which a user's start-up files may
    set), and of zsh, dash and sh where installed: the agent's shell is one of them."""
    import shutil
    import subprocess

    shells: list[list[str]] = []
    bash = shutil.which("bash", path=path) or shutil.which("bash")
    if bash is None:
        return ""
    shells += [[bash, "-n", "-c"], [bash, "-O", "extglob", "-n", "-c"]]
    for name in ("zsh", "dash", "sh", "ksh", "mksh"):
        for found in {shutil.which(name, path=path), shutil.which(name, path="/bin:/usr/bin:/usr/local/bin")}:
            if found:
                shells.append([found, "-n", "-c"])
    for argv in shells:
        try:
            proc = subprocess.run([*argv, command], capture_output=True, timeout=2.0, check=False,
                                  env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
        except (OSError, subprocess.SubprocessError):
            return ""
        if proc.returncode == 0:
            return ""
    return ", ".join(sorted({os.path.basename(a[0]) for a in shells}))
