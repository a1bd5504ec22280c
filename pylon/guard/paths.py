"""Judging the paths a command destroys: expand patterns against the file system, place each
path (temporary, inside the checkout, its .git, outside) and word the finding."""

from __future__ import annotations

import os

from pylon.guard import context as cx
from pylon.guard.model import check_deadline
from pylon.guard.patterns import expand
from pylon.guard.verdict import IRREVERSIBLE, PATH, REVERSIBLE, UNKNOWN, Finding, Target

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.walk import Walk
    from pylon.guard.words import Arg, State

MAX_MATCHES = 2000  # a pattern matching more is kept as its folder (the snapshot saves all of it)


def _pattern_dir(path: str) -> str:
    """The folder a pattern is confined to (the part before the first wildcard)."""
    cut = min([i for i, c in enumerate(path) if c in "*?["] or [len(path)])
    return os.path.dirname(path[:cut]) or "."


def destroyed(walk: Walk, state: State, args: list[Arg], *, verb: str, words: str, line: int,
              recursive: bool = True, sudo: bool = False, must_exist: bool = False,
              checkout_ok: bool = False, kind: str = PATH, args_of_target: tuple[str, ...] = ()) -> None:
    """Add the findings for a command that removes or overwrites the paths `args` name."""
    ctx = walk.ctx
    targets: list[Target] = []
    for arg in args:
        check_deadline()
        if arg.text is None:
            walk.add(Finding(UNKNOWN, f"`{words}` {verb} {arg.raw}, a path known only when it runs", arg.raw,
                             line=line))
            continue
        if arg.under and state.cwd is not None and ctx.locate(ctx.absolute(arg.text, state.cwd)) == cx.CONTAINS_CHECKOUT \
                and ctx.absolute(arg.text, state.cwd) != ctx.root:
            walk.add(Finding(IRREVERSIBLE, f"`{words}` {verb} {arg.text}, which holds the whole checkout",
                             arg.raw, line=line))
            continue
        if state.cwd is None and not os.path.isabs(arg.text) and not arg.text.startswith("~"):
            walk.add(Finding(UNKNOWN, f"`{words}` {verb} {arg.text} in a folder known only when it runs "
                             "(an earlier cd)", arg.raw, line=line))
            continue
        cwd = state.cwd or ctx.cwd
        names = expand(arg, cwd)
        if len(names) > MAX_MATCHES:
            names = [_pattern_dir(arg.text)]
        for name in names:
            full = ctx.absolute(name, cwd)
            if must_exist and not os.path.lexists(full) and not full.startswith("/dev/"):  # a new file loses nothing
                continue
            where = ctx.locate(full)
            shown = ctx.show(full)
            if sudo and where != cx.TMP:
                walk.add(Finding(IRREVERSIBLE, f"`{words}` {verb} {shown} as root", arg.raw, line=line))
            elif where == cx.TMP:
                continue
            elif where == cx.INSIDE:
                targets.append(Target(kind, ctx.relative(full), args_of_target))
            elif where == cx.GIT_DATA:  # pylon's store keeps the checkout's .git (docs/guard.md, ".git lost")
                targets.append(Target(kind if kind == PATH else PATH, ctx.relative(full), args_of_target))
            elif where == cx.CONTAINS_CHECKOUT and (checkout_ok or arg.under or not recursive) and full == ctx.root:
                targets.append(Target(kind, "", args_of_target))  # git acts on the working tree, never on .git
            elif where == cx.CONTAINS_CHECKOUT:
                if recursive:
                    walk.add(Finding(IRREVERSIBLE, f"`{words}` {verb} {shown}, which holds the whole checkout "
                                     "and its .git", arg.raw, line=line))
            elif where == cx.DEVICE:
                walk.add(Finding(IRREVERSIBLE, f"`{words}` writes to the device {shown}", arg.raw, line=line))
            else:
                walk.add(Finding(IRREVERSIBLE, f"`{words}` {verb} {shown}, outside the checkout", arg.raw, line=line))
    if targets:
        shown_paths = ", ".join((t.path or ".") for t in targets[:5]) + (f" and {len(targets) - 5} more"
                                                                           if len(targets) > 5 else "")
        walk.add(Finding(REVERSIBLE, f"`{words}` {verb} {shown_paths} inside the checkout", words, targets,
                         line=line))
