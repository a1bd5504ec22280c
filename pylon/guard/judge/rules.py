"""Judging one simple command: wrappers looked through, then the command's own rule.

Commands not named here destroy nothing the classifier can see (`make`, `pytest`, `ls`) and are
safe; programs that run code given inline are followed (interp.py), remote and system commands
are in remote.py, git in gitrules.py.
"""

from __future__ import annotations

from pylon.guard.commands.findrm import judge_find
from pylon.guard.judge.writers import overwrites, tar_remove
from pylon.guard.paths import destroyed
from pylon.guard.verdict import UNKNOWN, Finding
from pylon.guard.words import Arg, basename, operands, quote

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from pylon.guard.model import Cmd
    from pylon.guard.walk import Walk
    from pylon.guard.words import State

_REMOVERS = frozenset({"rm", "unlink", "shred", "srm", "wipe", "rimraf"})
_VIMS = frozenset({"vim", "vi", "nvim", "ex", "view", "gvim", "vimdiff", "rvim", "evim", "nex", "nvi", "elvis"})
_TRUNCATING = frozenset({">", ">|", "&>", ">&"})


class _Simple:
    """One simple command as its rule reads it, wrappers peeled."""

    __slots__ = ("walk", "args", "cmd", "state", "upstream", "sudo", "words", "name")

    def __init__(self, walk: Walk, args: list[Arg], cmd: Cmd, state: State, upstream: Cmd | None, sudo: bool) -> None:
        self.walk, self.args, self.cmd, self.state, self.upstream, self.sudo = walk, args, cmd, state, upstream, sudo
        self.words = quote(args)
        self.name = basename(args[0].text or "")

    def destroys(self, paths: list[Arg], verb: str, **options: Any) -> None:  # destroyed()'s keyword options
        destroyed(
            self.walk, self.state, paths, verb=verb, words=self.words, line=self.cmd.line, sudo=self.sudo, **options
        )


def judge(walk: Walk, args: list[Arg], cmd: Cmd, state: State, upstream: Cmd | None) -> None:
    redirections(walk, cmd, args, state)
    from pylon.guard.commands.wrappers import unwrap

    wrapped = unwrap(args)
    if wrapped.unknown:
        walk.add(
            Finding(
                UNKNOWN,
                f"`{quote(args)}` runs a command that cannot be told before it runs ({wrapped.unknown})",
                quote(args),
                line=cmd.line,
            )
        )
        return
    args = wrapped.args
    if not args:
        return
    if wrapped.chdir is not None:  # env -C DIR: the command runs there
        state = state.copy()
        walk.change_dir([Arg("cd", False, "cd"), wrapped.chdir], state)
    head = args[0]
    if head.text is None or (head.glob and any(c in head.text for c in "*?")):  # `/*/bin/x`: from the disk
        walk.add(Finding(UNKNOWN, f"the command word {head.raw} is known only when it runs", head.raw, line=cmd.line))
        return
    simple = _Simple(walk, args, cmd, state, upstream, wrapped.sudo)
    if "/" in head.text and _shell_script(walk, head.text, state):  # ./scripts/clean.sh: read it
        from pylon.guard.commands.interp import run_script

        run_script(walk, head, state, simple.words, cmd.line)
        return
    rule = _RULES.get(simple.name) or _family(simple.name)
    rule(simple)


def _family(name: str) -> Callable[[_Simple], None]:
    if name in _REMOVERS:
        return _remove
    if name in _VIMS:
        return _vim
    if name in ("awk", "gawk", "mawk", "nawk", "busybox-awk"):
        return _awk
    return _other


def _remove(c: _Simple) -> None:
    paths, recursive = operands(c.args[1:], "rRd")
    c.destroys(paths, "removes", recursive=recursive)


def _dd(c: _Simple) -> None:
    for a in [a for a in c.args[1:] if a.text is None or a.text.startswith("of=")]:
        target = a if a.text is None else type(a)(a.text[3:], False, a.raw)
        c.destroys([target], "overwrites", must_exist=True)


def _truncate(c: _Simple) -> None:
    paths, _ = operands(c.args[1:], "", takes=frozenset({"-s", "--size", "-r", "--reference"}))
    if c.name == "tee" and any(a.text in ("-a", "--append") for a in c.args[1:]):
        return
    c.destroys(paths, "truncates", must_exist=True)


def _vim(c: _Simple) -> None:
    from pylon.guard.commands.minilang import judge_vim
    from pylon.guard.stdin import stdin_input

    judge_vim(
        c.walk, c.name, c.args, c.state, c.words, c.cmd.line, c.sudo, stdin_input(c.walk, c.cmd, c.upstream, c.state)
    )


def _awk(c: _Simple) -> None:
    from pylon.guard.commands.minilang import judge_awk

    judge_awk(c.walk, c.args, c.state, c.words, c.cmd.line, c.sudo)


def _rg(c: _Simple) -> None:
    if any((a.text or "").startswith("--pre") for a in c.args[1:]):
        _rg_pre(c.walk, c.args, c.state, c.cmd.line)


def _tar(c: _Simple) -> None:
    if any((a.text or "") == "--remove-files" for a in c.args[1:]):
        tar_remove(c.walk, c.args, c.state, c.words, c.cmd.line, c.sudo)


def _modes(c: _Simple) -> None:
    given, recursive = operands(c.args[1:], "R")
    paths = given[1:]  # the first operand is the mode or owner
    if recursive or c.sudo:
        ctx, cwd = c.walk.ctx, c.state.cwd or c.walk.ctx.cwd
        kept = [p for p in paths if p.text is None or ctx.locate(ctx.absolute(p.text, cwd)) != "inside"]
        c.destroys(kept, "changes the owner or mode of")


def _git(c: _Simple) -> None:
    from pylon.guard.commands.gitrules import judge_git

    judge_git(c.walk, c.args, c.cmd, c.state, c.sudo)


def _other(c: _Simple) -> None:
    from pylon.guard.commands.interp import judge_interp
    from pylon.guard.commands.remote import judge_remote

    if not judge_interp(c.walk, c.name, c.args, c.cmd, c.state, c.upstream, c.sudo):
        judge_remote(c.walk, c.name, c.args, c.cmd, c.state, c.sudo)


_RULES: dict[str, Callable[[_Simple], None]] = {
    "alias": lambda c: _alias(c.walk, c.args, c.state),
    "unalias": lambda c: _alias(c.walk, c.args, c.state),
    "cd": lambda c: c.walk.change_dir(c.args, c.state),
    "pushd": lambda c: c.walk.change_dir(c.args, c.state),
    "popd": lambda c: c.walk.change_dir(c.args, c.state),
    "mv": lambda c: overwrites(c.walk, c.args, c.state, c.words, c.cmd.line, c.sudo),
    "cp": lambda c: overwrites(c.walk, c.args, c.state, c.words, c.cmd.line, c.sudo),
    "install": lambda c: overwrites(c.walk, c.args, c.state, c.words, c.cmd.line, c.sudo),
    "ln": lambda c: overwrites(c.walk, c.args, c.state, c.words, c.cmd.line, c.sudo),
    "dd": _dd,
    "truncate": _truncate,
    "tee": _truncate,
    "sed": lambda c: _sed(c.walk, c.args, c.state, c.words, c.cmd.line, c.sudo),
    "gsed": lambda c: _sed(c.walk, c.args, c.state, c.words, c.cmd.line, c.sudo),
    "rg": _rg,
    "tar": _tar,
    "find": lambda c: judge_find(c.walk, c.args, c.cmd, c.state, c.sudo),
    "chmod": _modes,
    "chown": _modes,
    "chgrp": _modes,
    "git": _git,
}


def _alias(walk: Walk, args: list[Arg], state: State) -> None:
    """`alias NAME=TEXT` is remembered (later command words NAME run TEXT); `unalias` forgets."""
    for a in args[1:]:
        if a.text is None:
            if args[0].text == "alias":
                walk.add(Finding(UNKNOWN, f"`{quote(args)}` defines an alias known only when it runs", a.raw))
            continue
        if args[0].text == "unalias":
            if a.text == "-a":
                state.aliases.clear()
            state.aliases.pop(a.text, None)
        elif "=" in a.text and not a.text.startswith("-"):
            name, _, text = a.text.partition("=")
            state.aliases[name] = text


def _shell_script(walk: Walk, path: str, state: State) -> bool:
    """A file named as the command whose first line asks for a POSIX shell."""
    try:
        with open(walk.ctx.absolute(path, state.cwd or walk.ctx.cwd), "rb") as fh:
            first = fh.readline(200)
    except OSError:
        return False
    words = first[2:].split() if first.startswith(b"#!") else []
    shell = words[1] if words and words[0].endswith(b"/env") and len(words) > 1 else (words[0] if words else b"")
    return shell.rsplit(b"/", 1)[-1] in (b"sh", b"bash", b"dash", b"zsh", b"ksh")


def redirections(walk: Walk, cmd: Cmd, args: list[Arg], state: State) -> None:
    """`> file`, `:> file`, `&> file`: an existing file is truncated (appending `>>` is not)."""
    from pylon.guard.model import Word

    for r in cmd.redirs:
        if r.op not in _TRUNCATING or r.target is None:
            continue
        if r.op == ">&" and (r.target.value or "").isdigit():
            continue  # 2>&1 duplicates a descriptor
        resolved = walk.resolve(r.target, state, split=False) if isinstance(r.target, Word) else []
        destroyed(
            walk,
            state,
            resolved,
            verb="truncates",
            words=f"{r.fd}{r.op} {r.target.raw}",
            line=cmd.line,
            recursive=False,
            must_exist=True,
        )


def _rg_pre(walk: Walk, args: list[Arg], state: State, line: int) -> None:
    """`rg --pre CMD`: ripgrep runs CMD with each file it searches."""
    from pylon.guard.model import Cmd as C

    for i, a in enumerate(args[1:], 1):
        text = a.text or ""
        if text == "--pre" and i + 1 < len(args):
            program = args[i + 1]
        elif text.startswith("--pre="):
            program = Arg(text[len("--pre=") :], False, a.raw)
        else:
            continue
        judge(walk, [program, Arg(None, False, "(each file searched)")], C([], [], [], line), state.copy(), None)


def _sed(walk: Walk, args: list[Arg], state: State, words: str, line: int, sudo: bool) -> None:
    """sed: -i edits its files in place; the script's own `e`, `w FILE` and `s///[ew]` are read too."""
    from pylon.guard.commands.sedscript import judge_sed_script
    from pylon.guard.inplace import read_line
    from pylon.guard.stdin import read_file

    read = read_line("sed", [a.text for a in args[1:]])
    scripts = [
        read_file(walk, value, state, value)[0] if letter == "f" and value is not None else value
        for letter, value in read.programs
    ]
    if read.first is not None:
        scripts.append(args[1 + read.first].text)
    if not read.sandbox:
        for script in scripts:
            judge_sed_script(walk, script, state, words, line, sudo)
    if read.in_place:
        destroyed(
            walk,
            state,
            [args[1 + i] for i in read.files],
            verb="edits in place",
            words=words,
            line=line,
            recursive=False,
            sudo=sudo,
        )
