"""`find START TESTS -delete` and `find START TESTS -exec rm [-r] {} +|;`: judged on what find matches.

Both delete exactly what `find START TESTS -print` lists (with `rm -r`, a matched folder goes with
everything in it), so the snapshot asks find itself for that list (a FIND target: the tests,
`+r` first when matched folders go whole). Where a match lies in a `.git` folder (the checkout's
own, `find . -type f -delete`, or a nested repository's), the repository's history and refs would
go, which no snapshot of the checkout keeps: irreversible. The classifier asks find the same
question (bounded in time; past it, unknown) when the start lies in the checkout.
"""

from __future__ import annotations

import os
import subprocess

from pylon.guard import context as cx
from pylon.guard.verdict import IRREVERSIBLE, UNKNOWN, Finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.walk import Walk
    from pylon.guard.words import Arg, State

RECURSIVE = "+r"  # the first arg of a FIND target whose matched folders are removed whole (rm -r)
_RM = frozenset({"rm", "/bin/rm", "/usr/bin/rm"})
_TIMEOUT = 2.0


def rm_of_matches(inner: list[Arg]) -> tuple[bool, bool] | None:
    """(is rm of the matches, recursive) for the words of an -exec: `rm [-options] {}`; None otherwise."""
    if not inner or inner[0].text not in _RM:
        return None
    recursive = False
    operands = 0
    for w in inner[1:]:
        text = w.text
        if text is None:
            return None
        if text == "{}":
            operands += 1
        elif text.startswith("--"):
            recursive = recursive or text == "--recursive"
        elif text.startswith("-") and len(text) > 1:
            recursive = recursive or "r" in text or "R" in text
        else:
            return None
    return (True, recursive) if operands == 1 else None


def reaches_git(walk: Walk, start: str, state: State, tests: list[str], words: str, line: int) -> bool:
    """Add a finding and say True when find's matches reach into a .git folder (or cannot be told)."""
    ctx = walk.ctx
    cwd = state.cwd or ctx.cwd
    full = ctx.absolute(start, cwd)
    if ctx.root is None or not (ctx.locate(full) == cx.INSIDE or full == ctx.root):
        return False  # above the checkout: judged as removing all of it (paths.destroyed)
    try:
        proc = subprocess.run(["find", start, *tests, "-print0"], cwd=cwd, capture_output=True, timeout=_TIMEOUT,
                              check=False, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
    except (OSError, subprocess.SubprocessError):
        walk.add(Finding(UNKNOWN, f"`{words}`: pylon could not list what find matches within {_TIMEOUT:g} s", words,
                         line=line))
        return True
    for raw in proc.stdout.split(b"\0"):
        if b"/.git/" in b"/" + raw + b"/":
            shown = os.fsdecode(raw)[:200]
            walk.add(Finding(IRREVERSIBLE, f"`{words}` matches {shown}, inside a repository's .git (history, refs, "
                             "stashes), which no snapshot of the checkout keeps", words, line=line))
            return True
    return False
