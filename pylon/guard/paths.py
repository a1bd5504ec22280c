"""Judging the paths a command destroys: expand patterns against the file system, place each
path (temporary, inside the checkout, its .git, outside) and word the finding."""

from __future__ import annotations

import os

from pylon.devpaths import is_device
from pylon.guard import context as cx
from pylon.guard.model import check_deadline
from pylon.guard.patterns import expand
from pylon.guard.verdict import IRREVERSIBLE, PATH, REVERSIBLE, UNKNOWN, Finding, Target

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.walk import Walk
    from pylon.guard.words import Arg, State

MAX_MATCHES = 2000  # a pattern matching more is kept as its folder (the snapshot saves all of it)


def _names(loss: _Loss, arg: Arg) -> list[str] | None:
    """The paths a word names (its patterns expanded), or None (with the finding) when they cannot be
    told: known only at run time, in a folder known only at run time, or the whole checkout below."""
    ctx, state = loss.walk.ctx, loss.state
    if arg.text is None:
        loss.add(UNKNOWN, f"{arg.raw}, a path known only when it runs", arg.raw)
        return None
    if (
        arg.under
        and state.cwd is not None
        and ctx.locate(ctx.absolute(arg.text, state.cwd)) == cx.CONTAINS_CHECKOUT
        and ctx.absolute(arg.text, state.cwd) != ctx.root
    ):
        loss.add(IRREVERSIBLE, f"{arg.text}, which holds the whole checkout", arg.raw)
        return None
    if state.cwd is None and not os.path.isabs(arg.text) and not arg.text.startswith("~"):
        loss.add(UNKNOWN, f"{arg.text} in a folder known only when it runs (an earlier cd)", arg.raw)
        return None
    names = expand(arg, state.cwd or ctx.cwd)
    return [_pattern_dir(arg.text)] if len(names) > MAX_MATCHES else names


def _place(loss: _Loss, arg: Arg, full: str) -> Target | None:
    """The target of one path inside the checkout (None: a finding of its own, or nothing lost)."""
    ctx = loss.walk.ctx
    if loss.must_exist and not os.path.lexists(full) and not is_device(full):  # a new file loses nothing
        return None
    where = ctx.locate(full)
    shown = ctx.show(full)
    if loss.sudo and where != cx.TMP:
        loss.add(IRREVERSIBLE, f"{shown} as root", arg.raw)
    elif where == cx.INSIDE:
        return Target(loss.kind, ctx.relative(full), loss.args_of_target)
    elif where == cx.GIT_DATA:  # pylon's store keeps the checkout's .git (docs/explanation/guard.md, "What is kept")
        return Target(PATH, ctx.relative(full), loss.args_of_target)
    elif where == cx.CONTAINS_CHECKOUT and full == ctx.root and (loss.checkout_ok or arg.under or not loss.recursive):
        return Target(loss.kind, "", loss.args_of_target)  # git acts on the working tree, never on .git
    elif where == cx.CONTAINS_CHECKOUT:
        if loss.recursive:
            loss.add(IRREVERSIBLE, f"{shown}, which holds the whole checkout and its .git", arg.raw)
    elif where == cx.DEVICE:
        loss.walk.add(Finding(IRREVERSIBLE, f"`{loss.words}` writes to the device {shown}", arg.raw, line=loss.line))
    elif where != cx.TMP:
        loss.add(IRREVERSIBLE, f"{shown}, outside the checkout", arg.raw)
    return None


def _pattern_dir(path: str) -> str:
    """The folder a pattern is confined to (the part before the first wildcard)."""
    cut = min([i for i, c in enumerate(path) if c in "*?["] or [len(path)])
    return os.path.dirname(path[:cut]) or "."


class _Loss:
    """What one command does to the paths it names, as `destroyed` judges each of them."""

    __slots__ = (
        "walk",
        "state",
        "verb",
        "words",
        "line",
        "recursive",
        "sudo",
        "must_exist",
        "checkout_ok",
        "kind",
        "args_of_target",
    )

    def __init__(
        self,
        walk: Walk,
        state: State,
        verb: str,
        words: str,
        line: int,
        recursive: bool,
        sudo: bool,
        must_exist: bool,
        checkout_ok: bool,
        kind: str,
        args_of_target: tuple[str, ...],
    ) -> None:
        self.walk, self.state, self.verb, self.words, self.line = walk, state, verb, words, line
        self.recursive, self.sudo, self.must_exist, self.checkout_ok = recursive, sudo, must_exist, checkout_ok
        self.kind, self.args_of_target = kind, args_of_target

    def add(self, verdict: str, why: str, raw: str) -> None:
        self.walk.add(Finding(verdict, f"`{self.words}` {self.verb} {why}", raw, line=self.line))


def destroyed(
    walk: Walk,
    state: State,
    args: list[Arg],
    *,
    verb: str,
    words: str,
    line: int,
    recursive: bool = True,
    sudo: bool = False,
    must_exist: bool = False,
    checkout_ok: bool = False,
    kind: str = PATH,
    args_of_target: tuple[str, ...] = (),
) -> None:
    """Add the findings for a command that removes or overwrites the paths `args` name."""
    loss = _Loss(walk, state, verb, words, line, recursive, sudo, must_exist, checkout_ok, kind, args_of_target)
    targets: list[Target] = []
    for arg in args:
        check_deadline()
        names = _names(loss, arg)
        for name in names or []:
            target = _place(loss, arg, walk.ctx.absolute(name, state.cwd or walk.ctx.cwd))
            if target is not None:
                targets.append(target)
    if targets:
        shown_paths = ", ".join((t.path or ".") for t in targets[:5]) + (
            f" and {len(targets) - 5} more" if len(targets) > 5 else ""
        )
        walk.add(Finding(REVERSIBLE, f"`{words}` {verb} {shown_paths} inside the checkout", words, targets, line=line))
