"""git's subcommands, one small rule each: what each destroys in the working tree, the index or
the repository's data (the note names it; the state kept before every command gives it back), and
what is asked (another checkout's worktree, branch reflogs). Settings git runs as a command
(`core.pager`, `alias.x='!...'`) are read as shell. gitrules.py reads git's own options and aliases
and hands the subcommand here.
"""

from __future__ import annotations

import os

from pylon.guard import context as cx
from pylon.guard.commands.gitrefs import judge as judge_refs
from pylon.guard.paths import destroyed
from pylon.guard.verdict import CHECKOUT, GIT_CLEAN, IRREVERSIBLE, PATH, REVERSIBLE, TRACKED, UNKNOWN, Finding, Target

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from pylon.guard.walk import Walk
    from pylon.guard.words import Arg, State


# Short options whose value may be attached (`-bfeature`): a cluster ends at them.
_SHORT_VALUES = frozenset("bBcCmSoUn")


def _flags(rest: list[Arg]) -> tuple[set[str], list[Arg], list[Arg]]:
    """(options, words before `--`, words after `--`); short clusters split (-fdx -> -f -d -x), up to
    a letter that takes a value (`-qbfeature` is -q -b feature)."""
    flags: set[str] = set()
    before: list[Arg] = []
    after: list[Arg] = []
    dashed = False
    for a in rest:
        t = a.text
        if dashed:
            after.append(a)
        elif t == "--":
            dashed = True
        elif t is not None and t.startswith("--"):
            flags.add(t.split("=", 1)[0])
            if "=" in t:
                flags.add(t)
        elif t is not None and t.startswith("-") and len(t) > 1:
            for c in t[1:]:
                flags.add("-" + c)
                if c in _SHORT_VALUES:
                    break
            flags.add(t)
        else:
            before.append(a)
    return flags, before, after


def _checkout_all(walk: Walk, verdict_words: str, line: int, what: str) -> None:
    walk.add(Finding(REVERSIBLE, f"`{verdict_words}` {what}", verdict_words, [Target(CHECKOUT)], line=line))


class _Call:
    """One git subcommand as its rule reads it: options, operands before and after `--`."""

    __slots__ = ("walk", "sub", "rest", "flags", "before", "after", "state", "words", "line")

    def __init__(self, walk: Walk, sub: str, rest: list[Arg], state: State, words: str, line: int) -> None:
        self.walk, self.sub, self.rest, self.state, self.words, self.line = walk, sub, rest, state, words, line
        self.flags, self.before, self.after = _flags(rest)

    def has(self, *names: str) -> bool:
        return bool(self.flags & set(names))

    def all_checkout(self, what: str) -> None:
        _checkout_all(self.walk, self.words, self.line, what)

    def irreversible(self, why: str) -> None:
        self.walk.add(Finding(IRREVERSIBLE, f"`{self.words}` {why}", self.words, line=self.line))

    def tracked(self, paths: list[Arg], verb: str = "discards the uncommitted changes of") -> None:
        destroyed(
            self.walk, self.state, paths, verb=verb, words=self.words, line=self.line, checkout_ok=True, kind=TRACKED
        )


def _subcommand(walk: Walk, sub: str, rest: list[Arg], state: State, words: str, line: int) -> None:
    call = _Call(walk, sub, rest, state, words, line)
    if call.has("--help", "-h") and sub not in ("clean", "rm"):  # prints help (git rm -h too, but rarely asked)
        return
    if any(f.startswith("--pathspec-from-file") for f in call.flags) and sub in ("checkout", "restore", "reset", "rm"):
        call.after = [_dot()]  # the paths are in a file: judged as the whole checkout
        if sub == "checkout":
            call.flags.discard("-f")
    if judge_refs(walk, sub, call.flags, call.before, words, line):
        return
    rule = _SUBCOMMANDS.get(sub)
    if rule is not None:
        rule(call)


def _reset(c: _Call) -> None:
    if c.has("--hard", "--merge", "--keep"):
        c.all_checkout("discards uncommitted changes to tracked files")
    elif not c.has("--soft", "-p", "--patch"):
        _reset_mixed(c.walk, c.before + c.after, c.state, c.words, c.line)


def _config_rule(c: _Call) -> None:
    _config(c.walk, c.rest, c.state, c.words, c.line)


def _checkout(c: _Call) -> None:
    branching = c.has("-b", "-B", "--orphan")
    if c.has("-f", "--force") and branching:
        c.all_checkout("discards uncommitted changes while creating the branch")
    elif branching and not c.after:
        return
    elif c.after or c.has("-p", "--patch"):
        c.tracked(c.after or [_dot()])
    elif c.has("-f", "--force"):
        c.all_checkout("discards uncommitted changes while switching")
    else:
        ctx = c.walk.ctx
        paths = [
            a
            for a in c.before
            if a.text is None or a.text == "." or os.path.lexists(ctx.absolute(a.text, c.state.cwd or ctx.cwd))
        ]
        if paths:
            c.tracked(paths)


def _restore(c: _Call) -> None:
    if c.has("--staged", "-S") and not c.has("--worktree", "-W"):
        if c.walk.ctx.probe is None:
            c.all_checkout("unstages changes (the staged content is lost)")
        else:
            _reset_mixed(c.walk, c.before + c.after, c.state, c.words, c.line)
    else:
        c.tracked((c.before + c.after) or [_dot()])


def _switch(c: _Call) -> None:
    if c.has("-f", "--force", "--discard-changes"):
        c.all_checkout("discards uncommitted changes while switching")


def _clean(c: _Call) -> None:
    if c.has("-n", "--dry-run") or not c.has("-f", "--force", "-i", "--interactive"):
        return
    kept = tuple(sorted(f for f in c.flags if f in ("-d", "-x", "-X", "-ff")))
    if "-f" in c.flags and any(
        (a.text or "").startswith("-") and not (a.text or "").startswith("--") and (a.text or "").count("f") > 1
        for a in c.rest
    ):
        kept += ("-ff",)
    cleaned = [(a.text or "") for a in c.before + c.after if not _excluded(c.rest, a)]
    what = (
        "ignored and untracked files" if "-x" in c.flags else "ignored files" if "-X" in c.flags else "untracked files"
    )
    ctx = c.walk.ctx
    base = ctx.relative(c.state.cwd) if c.state.cwd and ctx.locate(c.state.cwd) == cx.INSIDE else ""
    excludes = tuple(x for a in _exclusions(c.rest) for x in ("-e", a))
    c.walk.add(
        Finding(
            REVERSIBLE,
            f"`{c.words}` removes {what}" + (" and folders" if "-d" in c.flags else ""),
            c.words,
            [Target(GIT_CLEAN, base, (*kept, *excludes, "--", *cleaned))],
            line=c.line,
        )
    )


def _exclusions(rest: list[Arg]) -> list[str]:
    """The patterns of `-e PATTERN` / `--exclude=PATTERN` (git clean keeps what they match)."""
    found = []
    for i, a in enumerate(rest):
        t = a.text or ""
        if t in ("-e", "--exclude") and i + 1 < len(rest):
            found.append(rest[i + 1].text or "")
        elif t.startswith("--exclude="):
            found.append(t.partition("=")[2])
        elif t.startswith("-e") and len(t) > 2 and not t.startswith("--"):
            found.append(t[2:])
    return [f for f in found if f]


def _excluded(rest: list[Arg], arg: Arg) -> bool:
    """Is `arg` the value of a `-e`/`--exclude` (a pattern, not a path to clean)?"""
    return any(rest[i + 1] is arg and (a.text or "") in ("-e", "--exclude") for i, a in enumerate(rest[:-1]))


def _rm(c: _Call) -> None:
    if not c.has("--cached", "-n", "--dry-run"):
        c.tracked(c.before + c.after, verb="removes")


def _mv(c: _Call) -> None:
    if c.has("-f", "--force") and len(c.before) >= 2:
        destroyed(c.walk, c.state, c.before[-1:], verb="may overwrite", words=c.words, line=c.line, must_exist=True)


def _worktree(c: _Call) -> None:
    action = c.before[0].text if c.before else None
    if action == "remove" and c.has("-f", "--force"):
        c.irreversible("removes a worktree with its uncommitted changes, outside this checkout")


def _filter_repo(c: _Call) -> None:
    c.irreversible("rewrites the history of every branch, expires the reflogs and prunes what it replaced")


def _reflog(c: _Call) -> None:
    if c.before and c.before[0].text in ("expire", "delete"):
        c.irreversible("deletes reflog entries, the record of where branches were")


def _writes_worktree(c: _Call) -> None:
    if c.has("-f", "--force", "-u", "--reset"):
        c.all_checkout("overwrites files of the working tree")


def _filter_branch(c: _Call) -> None:
    c.all_checkout("rewrites the history of the branches it names and checks out the result")


def _prune(c: _Call) -> None:
    if c.sub == "prune" or any(f.startswith("--prune=") and f != "--prune=never" for f in c.flags):
        c.walk.add(
            Finding(
                REVERSIBLE,
                f"`{c.words}` deletes unreachable objects now (lost commits, dropped "
                "stashes; pylon's store keeps a copy of each)",
                c.words,
                [Target(PATH, ".git/objects")],
                line=c.line,
            )
        )


def _submodule(c: _Call) -> None:
    if c.before and c.before[0].text == "deinit" and c.has("-f", "--force"):
        c.all_checkout("removes submodule working trees")


# What each subcommand destroys (`gc --prune` and `prune` delete objects the store keeps a copy of).
_SUBCOMMANDS: dict[str, Callable[[_Call], None]] = {
    "reset": _reset,
    "config": _config_rule,
    "checkout": _checkout,
    "restore": _restore,
    "switch": _switch,
    "clean": _clean,
    "rm": _rm,
    "mv": _mv,
    "worktree": _worktree,
    "filter-branch": _filter_branch,
    "filter-repo": _filter_repo,
    "reflog": _reflog,
    "checkout-index": _writes_worktree,
    "read-tree": _writes_worktree,
    "submodule": _submodule,
    "gc": _prune,
    "prune": _prune,
}


def _reset_mixed(walk: Walk, operands: list[Arg], state: State, words: str, line: int) -> None:
    """A plain `git reset [REV] [PATH]`: the index takes REV's content, so staged content that the
    work tree no longer holds is lost (snapshotted); when nothing is staged that way, nothing is."""
    probe = walk.ctx.probe
    if probe is None:
        return
    texts = [a.text for a in operands]
    if any(t is None for t in texts):
        walk.add(Finding(UNKNOWN, f"`{words}` resets paths known only when it runs", words, line=line))
        return
    cwd = state.cwd or walk.ctx.cwd
    lost = probe("staged-unique", cwd, [t for t in texts if t is not None])
    if lost is None:
        walk.add(
            Finding(UNKNOWN, f"`{words}`: pylon cannot tell whether staged content would be lost", words, line=line)
        )
    elif lost:
        _checkout_all(walk, words, line, f"unstages content that the work tree no longer holds ({lost[:200]})")


# Settings whose value git runs as a shell command (or whose value names commands to run).
_PROGRAM_KEYS = (
    "core.pager",
    "core.editor",
    "sequence.editor",
    "core.sshcommand",
    "core.fsmonitor",
    "core.askpass",
    "diff.external",
    "gpg.program",
    "credential.helper",
    "uploadpack.packobjectshook",
    "interactive.difffilter",
    "core.alternaterefscommand",
    "sendemail.smtpserver",
    "web.browser",
)
_PROGRAM_SUFFIXES = (".textconv", ".command", ".driver", ".clean", ".smudge", ".process", ".program", ".cmd", ".helper")


def _program_setting(walk: Walk, key: str, value: str, state: State, words: str, line: int) -> None:
    """`git -c KEY=VALUE` or `git config KEY VALUE` for a setting git runs as a command."""
    key = key.lower()
    if key == "core.hookspath" or key.startswith("include"):
        walk.add(
            Finding(
                UNKNOWN,
                f"`{words}` makes git run hooks or read settings from {value}, which pylon does not read",
                words,
                line=line,
            )
        )
    elif key in _PROGRAM_KEYS or key.startswith(("pager.", "alias.")) or key.endswith(_PROGRAM_SUFFIXES):
        if key.startswith("alias.") and not value.startswith("!"):
            return
        if key == "core.fsmonitor" and value.lower() in ("true", "false", "yes", "no", "on", "off", "1", "0", ""):
            return
        if key.startswith("pager.") and value.lower() in ("true", "false", "yes", "no", "on", "off", "1", "0"):
            return
        walk.script(value[1:] if value.startswith("!") else value, state.copy(), line)


def _config(walk: Walk, rest: list[Arg], state: State, words: str, line: int) -> None:
    """`git config [scope] [set] KEY VALUE`: an alias is remembered for later `git NAME` in the
    script; a setting git runs as a command is judged now (any later git command may run it)."""
    takes = {"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"}
    operands: list[Arg] = []
    i = 0
    while i < len(rest):
        text = rest[i].text
        if text is not None and text.startswith("-"):
            if text in (
                "--unset",
                "--unset-all",
                "--get",
                "--get-all",
                "--get-regexp",
                "-l",
                "--list",
                "-e",
                "--edit",
                "--remove-section",
                "--rename-section",
            ):
                return
            i += 2 if text in takes else 1
            continue
        operands.append(rest[i])
        i += 1
    if operands and operands[0].text in ("set",):
        operands = operands[1:]
    elif operands and operands[0].text in ("get", "list", "unset", "edit", "remove-section", "rename-section"):
        return
    if len(operands) < 2:
        return
    key, value = operands[0].text, operands[1].text
    if key is None or value is None:
        walk.add(Finding(UNKNOWN, f"`{words}` sets a git setting known only when it runs", words, line=line))
        return
    if key.lower().startswith("alias."):
        state.aliases["git " + key[len("alias.") :]] = value
    _program_setting(walk, key, value, state, words, line)


def _dot() -> Arg:
    from pylon.guard.words import Arg as A

    return A(".", False, ".")
