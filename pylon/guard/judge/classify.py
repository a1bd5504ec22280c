"""`classify(command, context)`: the verdict on one shell command line or script."""

from __future__ import annotations

import os

from pylon.guard.context import Context
from pylon.guard.verdict import SAFE, UNKNOWN, Finding, Result
from pylon.guard.walk import Walk
from pylon.guard.words import State

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from pylon.guard.model import Node


BUDGET = 5.0  # seconds for one classification; past it the verdict is unknown (the hook allows 30 s)
MAX_COMMAND = 4 << 20  # characters: a longer command is not read at all (unknown)


def classify(command: str, ctx: Context, parser: Callable[[str], Node] | None = None, budget: float = BUDGET) -> Result:
    """The verdict on one shell command line (or script) run in ctx.cwd; `unknown` when it cannot
    be read within `budget` seconds."""
    from pylon.guard import model
    from pylon.guard.judge.rules import judge

    walk = Walk(ctx, judge, parser)
    if "\0" in command:
        walk.add(Finding(UNKNOWN, "the command holds a NUL byte, which no shell passes on", "\\0"))
        return Result(command, walk.findings, [])
    if len(command) > MAX_COMMAND:
        walk.add(
            Finding(
                UNKNOWN,
                f"the command is {len(command):,} characters long, more than pylon reads ({MAX_COMMAND:,})",
                command[:200],
            )
        )
        return Result(command, walk.findings, [])
    stopped = walk.run(command, State(ctx.cwd, {}, -1), budget)
    if stopped:
        walk.add(Finding(UNKNOWN, stopped, command[:200]))
    if "\n" not in command and any(f.reason == model.UNREADABLE for f in walk.findings):
        refused = (
            "every shell"
            if refused_everywhere(command)
            else refused_by_shells(command, ctx.env)
            if command.count("'") % 2 or command.count('"') % 2
            else ""
        )  # the shells asked only about quotes
        if refused:
            return Result(
                command,
                [
                    Finding(
                        SAFE,
                        f"no shell runs it: the line is a syntax error ({refused} refusing it), so no word of it runs",
                        command[:200],
                    )
                ],
                [],
            )
    return Result(command, walk.findings, walk.commands)


def refused_everywhere(line: str) -> bool:
    """Lines every shell refuses, known without asking one: a single quote character and nothing
    else that quotes or substitutes (`rm -rf x 'oops`: the string never closes), or a line that
    starts with an operator (`&& git reset --hard`, `| x`, `& x`: no command before it)."""
    quotes = [c for c in line if c in "'\""]
    if len(quotes) == 1 and not any(c in line for c in "\\$`#!"):
        return True
    head = line.lstrip(" \t")
    return head.startswith(("&&", "||", "|")) or (head.startswith("&") and not head.startswith("&>"))


_SHELLS = frozenset({"bash", "zsh", "sh", "dash", "ksh", "mksh", "yash", "posh", "fish", "tcsh", "csh"})


def refused_by_shells(command: str, env: dict[str, str]) -> str:
    """The shells that refuse one line of text as a syntax error ("" when any would run it, or
    none could be asked). A shell reads a whole line before it runs any of it, so a line it
    refuses runs nothing. Asked, at once: bash with extglob (which a user's start-up files may
    set; it only adds syntax, so what it refuses plain bash refuses too), zsh where installed
    (agents run their commands in bash or zsh), and the user's $SHELL when it is another."""
    import shutil
    import subprocess

    path = env.get("PATH")
    bash = shutil.which("bash", path=path) or shutil.which("bash")
    if bash is None:
        return ""
    shells = {os.path.realpath(bash): [bash, "-O", "extglob", "-n", "-c", command]}
    user = env.get("SHELL") or ""
    if user and os.path.basename(user) not in _SHELLS:
        return ""  # a program pylon cannot ask for a syntax check: it might run the line
    for found in (shutil.which("zsh", path=path), shutil.which("zsh", path="/bin:/usr/bin:/usr/local/bin"), user):
        if found and os.path.isabs(found) and os.access(found, os.X_OK) and os.path.realpath(found) not in shells:
            shells[os.path.realpath(found)] = [found, "-n", "-c", command]
    clean = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    try:
        procs = [
            subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=clean
            )
            for argv in shells.values()
        ]
    except OSError:
        return ""
    codes = []
    for proc in procs:
        try:
            codes.append(proc.wait(timeout=2.0))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            codes.append(0)  # no answer: not refused
    if any(code == 0 for code in codes):
        return ""
    return ", ".join(sorted({os.path.basename(p) for p in shells}))
