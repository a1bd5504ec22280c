"""Judging one simple command: wrappers looked through, then the command's own rule.

Commands not named here destroy nothing the classifier can see (`make`, `pytest`, `ls`) and are
safe; programs that run code given inline are followed (interp.py), remote and system commands
are in remote.py, git in gitrules.py.
"""

from __future__ import annotations

import os

from pylon.guard.commands.findrm import judge_find
from pylon.guard.paths import destroyed
from pylon.guard.verdict import UNKNOWN, Finding
from pylon.guard.words import Arg, basename, quote

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
    paths, recursive = _operands(c.args[1:], "rRd")
    c.destroys(paths, "removes", recursive=recursive)


def _dd(c: _Simple) -> None:
    for a in [a for a in c.args[1:] if a.text is None or a.text.startswith("of=")]:
        target = a if a.text is None else type(a)(a.text[3:], False, a.raw)
        c.destroys([target], "overwrites", must_exist=True)


def _truncate(c: _Simple) -> None:
    paths, _ = _operands(c.args[1:], "", takes=frozenset({"-s", "--size", "-r", "--reference"}))
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
        _tar_remove(c.walk, c.args, c.state, c.words, c.cmd.line, c.sudo)


def _modes(c: _Simple) -> None:
    operands, recursive = _operands(c.args[1:], "R")
    paths = operands[1:]  # the first operand is the mode or owner
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
    "mv": lambda c: _overwrites(c.walk, c.args, c.state, c.words, c.cmd.line, c.sudo),
    "cp": lambda c: _overwrites(c.walk, c.args, c.state, c.words, c.cmd.line, c.sudo),
    "install": lambda c: _overwrites(c.walk, c.args, c.state, c.words, c.cmd.line, c.sudo),
    "ln": lambda c: _overwrites(c.walk, c.args, c.state, c.words, c.cmd.line, c.sudo),
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


def _operands(args: list[Arg], recursive_flags: str, takes: frozenset[str] = frozenset()) -> tuple[list[Arg], bool]:
    """Non-option words (after `--` all are), and whether a recursive flag was given."""
    out: list[Arg] = []
    recursive = False
    options = True
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        text = a.text
        if options and text is not None and text.startswith("-") and text != "-":
            if text == "--":
                options = False
            elif text.startswith("--"):
                recursive = recursive or text in ("--recursive", "--dir")
                skip = text in takes
            else:
                recursive = recursive or any(f in text[1:] for f in recursive_flags)
                skip = text in takes
            continue
        out.append(a)
    return out, recursive


def _overwrites(walk: Walk, args: list[Arg], state: State, words: str, line: int, sudo: bool) -> None:
    """mv/cp/install/ln: the destinations that already exist are overwritten (not with -n)."""
    name = basename(args[0].text or "")
    if _never_overwrites(name, [a.text for a in args[1:] if a.text and a.text.startswith("-")]):
        return
    operands, _ = _operands(
        args[1:], "", takes=frozenset({"-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "-g"})
    )
    target_dir = next((args[i + 2] for i, a in enumerate(args[1:-1]) if a.text in ("-t", "--target-directory")), None)
    if target_dir is None and len(operands) < 2:
        return
    dest = target_dir or operands[-1]
    sources = operands if target_dir else operands[:-1]
    if dest.text is None:
        destroyed(walk, state, [dest], verb="writes into", words=words, line=line, sudo=sudo)
        return
    dest_abs = walk.ctx.absolute(dest.text, state.cwd or walk.ctx.cwd)
    hits = _existing(dest, dest_abs, sources, state.cwd or walk.ctx.cwd)
    destroyed(walk, state, hits, verb="overwrites", words=words, line=line, recursive=False, sudo=sudo)
    if name == "mv":  # sources leave the checkout, or go over a file: kept for the note
        # (an ignored source is in no state: after a restore of the file it replaced, it would be
        # gone); a source named only at run time may be anywhere: unknown (destroyed() says so)
        leaving = [s for s in sources if s.text is None or hits or walk.ctx.locate(dest_abs) != "inside"]
        destroyed(walk, state, leaving, verb="moves away", words=words, line=line, sudo=sudo)


def _never_overwrites(name: str, flags: list[str | None]) -> bool:
    """-n/--no-clobber and -b/--backup keep what is there; ln replaces only with -f."""
    given = [f for f in flags if f]
    if any(
        f in ("-n", "--no-clobber", "-b", "--backup") or (not f.startswith("--") and ("n" in f or "b" in f))
        for f in given
    ):
        return True
    return name == "ln" and not any(f == "--force" or (not f.startswith("--") and "f" in f) for f in given)


def _existing(dest: Arg, dest_abs: str, sources: list[Arg], cwd: str) -> list[Arg]:
    """What the copy or move lands on that exists now: the destination, or into a folder, each
    source's name there (a source known only at run time stands for itself)."""
    if not (os.path.isdir(dest_abs) and not os.path.islink(dest_abs)):
        return [dest] if os.path.lexists(dest_abs) else []
    hits: list[Arg] = []
    for src in sources:
        if src.text is None:
            hits.append(src)
            continue
        for leaf in (os.path.basename(p.rstrip("/")) for p in _names(src, cwd)):
            candidate = os.path.join(dest_abs, leaf)
            if os.path.lexists(candidate):
                hits.append(type(dest)(candidate, False, dest.raw))
    return hits


def _names(arg: Arg, cwd: str) -> list[str]:
    from pylon.guard.patterns import expand

    return expand(arg, cwd)


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


def _tar_remove(walk: Walk, args: list[Arg], state: State, words: str, line: int, sudo: bool) -> None:
    """tar --remove-files: the files it archives are removed afterwards (wherever the option sits)."""
    takes = {
        "-f",
        "--file",
        "-C",
        "--directory",
        "-T",
        "--files-from",
        "-X",
        "--exclude-from",
        "-b",
        "--blocking-factor",
        "-H",
        "--format",
        "-I",
        "--use-compress-program",
        "-g",
        "--listed-incremental",
        "-N",
        "--newer",
        "-V",
        "--label",
        "--transform",
        "--xform",
    }
    operands: list[Arg] = []
    i = 1
    first = True
    while i < len(args):
        text = args[i].text
        if text is not None and first and not text.startswith("-") and "f" in text:  # old style: tar cf ARCHIVE
            i += 2
            first = False
            continue
        first = False
        if text is not None and text.startswith("-") and text != "-":
            if text in ("-T", "--files-from") or text.startswith("--files-from="):
                walk.add(Finding(UNKNOWN, f"`{words}` removes the files a list names", words, line=line))
            short = not text.startswith("--")
            i += 2 if text in takes or (short and text[-1] in "fCTXbHIgNV" and len(text) > 1) else 1
            continue
        operands.append(args[i])
        i += 1
    destroyed(walk, state, operands, verb="removes (tar --remove-files)", words=words, line=line, sudo=sudo)
