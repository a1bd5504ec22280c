"""Judging one simple command: wrappers looked through, then the command's own rule.

Commands not named here destroy nothing the classifier can see (`make`, `pytest`, `ls`) and are
safe; programs that run code given inline are followed (interp.py), remote and system commands
are in remote.py, git in gitrules.py.
"""

from __future__ import annotations

import os

from pylon.guard.commands.findrm import RECURSIVE, reaches_git, rm_of_matches
from pylon.guard.paths import destroyed
from pylon.guard.words import Arg, basename, quote
from pylon.guard.verdict import FIND, PATH, UNKNOWN, Finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.walk import Walk
    from pylon.guard.words import State
    from pylon.guard.model import Cmd

_REMOVERS = frozenset({"rm", "unlink", "shred", "srm", "wipe", "rimraf"})
_VIMS = frozenset({"vim", "vi", "nvim", "ex", "view", "gvim", "vimdiff", "rvim", "evim", "nex", "nvi", "elvis"})
_TRUNCATING = frozenset({">", ">|", "&>", ">&"})
_FIND_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls", "-delete",
                           "-quit"})
_FIND_PRINTS = frozenset({"-print", "-print0", "-printf", "-ls"})  # they would mix into the snapshot's listing
# Tests and options of find that take the next word as their value.
_FIND_TAKES = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-newer",
                         "-mtime", "-mmin", "-size", "-type", "-user", "-group", "-perm", "-ctime", "-atime", "-cmin",
                         "-amin", "-maxdepth", "-mindepth", "-lname", "-ilname", "-inum", "-links", "-samefile",
                         "-uid", "-gid", "-fstype", "-printf", "-fprint", "-fprint0", "-fls", "-regextype",
                         "-context", "-xtype", "-used", "-newerXY", "-anewer", "-cnewer"})
_FIND_TESTS = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-regex", "-iregex", "-newer", "-mtime",
                         "-mmin", "-size", "-empty", "-type", "-user", "-perm", "-ctime", "-atime", "-cmin"})


def judge(walk: Walk, args: list[Arg], cmd: Cmd, state: State, upstream: Cmd | None) -> None:
    redirections(walk, cmd, args, state)
    from pylon.guard.commands.wrappers import unwrap

    wrapped = unwrap(args)
    if wrapped.unknown:
        walk.add(Finding(UNKNOWN, f"`{quote(args)}` runs a command that cannot be told before it runs "
                         f"({wrapped.unknown})", quote(args), line=cmd.line))
        return
    args, sudo = wrapped.args, wrapped.sudo
    if not args:
        return
    if wrapped.chdir is not None:  # env -C DIR: the command runs there
        state = state.copy()
        walk.change_dir([Arg("cd", False, "cd"), wrapped.chdir], state)
    head = args[0]
    if head.text is None or (head.glob and any(c in head.text for c in "*?")):  # `/*/bin/x`: from the disk
        walk.add(Finding(UNKNOWN, f"the command word {head.raw} is known only when it runs", head.raw, line=cmd.line))
        return
    name = basename(head.text)
    words = quote(args)
    if "/" in head.text and _shell_script(walk, head.text, state):  # ./scripts/clean.sh: read it
        from pylon.guard.commands.interp import run_script

        run_script(walk, head, state, words, cmd.line)
    elif name in _REMOVERS:
        paths, recursive = _operands(args[1:], "rRd")
        destroyed(walk, state, paths, verb="removes", words=words, line=cmd.line, recursive=recursive, sudo=sudo)
    elif name in ("alias", "unalias"):
        _alias(walk, args, state)
    elif name in ("cd", "pushd", "popd"):
        walk.change_dir(args, state)
    elif name in ("mv", "cp", "install", "ln"):
        _overwrites(walk, args, state, words, cmd.line, sudo)
    elif name == "dd":
        outs = [a for a in args[1:] if a.text is None or a.text.startswith("of=")]
        for a in outs:
            target = a if a.text is None else type(a)(a.text[3:], False, a.raw)
            destroyed(walk, state, [target], verb="overwrites", words=words, line=cmd.line, sudo=sudo,
                      must_exist=True)
    elif name in ("truncate", "tee"):
        paths, _ = _operands(args[1:], "", takes=frozenset({"-s", "--size", "-r", "--reference"}))
        if name == "tee" and any(a.text in ("-a", "--append") for a in args[1:]):
            return
        destroyed(walk, state, paths, verb="truncates", words=words, line=cmd.line, sudo=sudo, must_exist=True)
    elif name in ("sed", "gsed"):
        _sed(walk, args, state, words, cmd.line, sudo)
    elif name in ("awk", "gawk", "mawk", "nawk", "busybox-awk"):
        from pylon.guard.commands.minilang import judge_awk

        judge_awk(walk, args, state, words, cmd.line, sudo)
    elif name in _VIMS:
        from pylon.guard.commands.minilang import judge_vim
        from pylon.guard.stdin import stdin_input

        judge_vim(walk, name, args, state, words, cmd.line, sudo, stdin_input(walk, cmd, upstream, state))
    elif name == "rg" and any((a.text or "").startswith("--pre") for a in args[1:]):
        _rg_pre(walk, args, state, cmd.line)
    elif name == "tar" and any((a.text or "") == "--remove-files" for a in args[1:]):
        _tar_remove(walk, args, state, words, cmd.line, sudo)
    elif name == "find":
        _find(walk, args, cmd, state, sudo)
    elif name in ("chmod", "chown", "chgrp"):
        operands, recursive = _operands(args[1:], "R")
        paths = operands[1:]  # the first operand is the mode or owner
        if recursive or sudo:
            kept = [p for p in paths if p.text is None or walk.ctx.locate(walk.ctx.absolute(p.text, state.cwd or
                                                                                             walk.ctx.cwd)) != "inside"]
            destroyed(walk, state, kept, verb="changes the owner or mode of", words=words, line=cmd.line,
                      sudo=sudo)
    elif name == "git":
        from pylon.guard.commands.gitrules import judge_git

        judge_git(walk, args, cmd, state, sudo)
    else:
        from pylon.guard.commands.interp import judge_interp
        from pylon.guard.commands.remote import judge_remote

        if not judge_interp(walk, name, args, cmd, state, upstream, sudo):
            judge_remote(walk, name, args, cmd, state, sudo)


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
        destroyed(walk, state, resolved, verb="truncates", words=f"{r.fd}{r.op} {r.target.raw}", line=cmd.line,
                  recursive=False, must_exist=True)


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
    flags = [a.text for a in args[1:] if a.text and a.text.startswith("-")]
    if any(f in ("-n", "--no-clobber", "-b", "--backup") or (f.startswith("-") and not f.startswith("--")
                                                            and ("n" in f or "b" in f)) for f in flags):
        return
    if name == "ln" and not any(f == "--force" or (not f.startswith("--") and "f" in f) for f in flags):
        return
    operands, _ = _operands(args[1:], "", takes=frozenset({"-t", "--target-directory", "-S", "--suffix", "-m",
                                                           "--mode", "-o", "-g"}))
    target_dir = next((args[i + 2] for i, a in enumerate(args[1:-1]) if a.text in ("-t", "--target-directory")),
                      None)
    if target_dir is None and len(operands) < 2:
        return
    dest = target_dir or operands[-1]
    sources = operands if target_dir else operands[:-1]
    if dest.text is None:
        destroyed(walk, state, [dest], verb="writes into", words=words, line=line, sudo=sudo)
        return
    cwd = state.cwd or walk.ctx.cwd
    dest_abs = walk.ctx.absolute(dest.text, cwd)
    hits: list[Arg] = []
    if os.path.isdir(dest_abs) and not os.path.islink(dest_abs):
        for s in sources:
            if s.text is None:
                hits.append(s)
                continue
            for name_ in (os.path.basename(p.rstrip("/")) for p in _names(s, cwd)):
                candidate = os.path.join(dest_abs, name_)
                if os.path.lexists(candidate):
                    hits.append(type(dest)(candidate, False, dest.raw))
    elif os.path.lexists(dest_abs):
        hits.append(dest)
    destroyed(walk, state, hits, verb="overwrites", words=words, line=line, recursive=False, sudo=sudo)
    if name == "mv":  # sources leave the checkout, or go over a file: the snapshot keeps them
        # (an ignored source is in no state: after `ws restore` of the file it replaced, it would be
        # gone); a source named only at run time may be anywhere: unknown (destroyed() says so)
        leaving = [s for s in sources if s.text is None or hits or walk.ctx.locate(dest_abs) != "inside"]
        destroyed(walk, state, leaving, verb="moves away", words=words, line=line, sudo=sudo)


def _names(arg: Arg, cwd: str) -> list[str]:
    from pylon.guard.patterns import expand

    return expand(arg, cwd)


def _sed(walk: Walk, args: list[Arg], state: State, words: str, line: int, sudo: bool) -> None:
    """sed: -i edits its files in place; the script's own `e`, `w FILE` and `s///[ew]` are read too."""
    from pylon.guard.commands.minilang import judge_sed_script
    from pylon.guard.inplace import read_line
    from pylon.guard.stdin import read_file

    read = read_line("sed", [a.text for a in args[1:]])
    scripts = [read_file(walk, value, state, value)[0] if letter == "f" and value is not None else value
               for letter, value in read.programs]
    if read.first is not None:
        scripts.append(args[1 + read.first].text)
    if not read.sandbox:
        for script in scripts:
            judge_sed_script(walk, script, state, words, line, sudo)
    if read.in_place:
        destroyed(walk, state, [args[1 + i] for i in read.files], verb="edits in place", words=words, line=line,
                  recursive=False, sudo=sudo)


def _rg_pre(walk: Walk, args: list[Arg], state: State, line: int) -> None:
    """`rg --pre CMD`: ripgrep runs CMD with each file it searches."""
    from pylon.guard.model import Cmd as C

    for i, a in enumerate(args[1:], 1):
        text = a.text or ""
        if text == "--pre" and i + 1 < len(args):
            program = args[i + 1]
        elif text.startswith("--pre="):
            program = Arg(text[len("--pre="):], False, a.raw)
        else:
            continue
        judge(walk, [program, Arg(None, False, "(each file searched)")], C([], [], [], line), state.copy(), None)


def _tar_remove(walk: Walk, args: list[Arg], state: State, words: str, line: int, sudo: bool) -> None:
    """tar --remove-files: the files it archives are removed afterwards (wherever the option sits)."""
    takes = {"-f", "--file", "-C", "--directory", "-T", "--files-from", "-X", "--exclude-from", "-b",
             "--blocking-factor", "-H", "--format", "-I", "--use-compress-program", "-g", "--listed-incremental",
             "-N", "--newer", "-V", "--label", "--transform", "--xform"}
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


def _find(walk: Walk, args: list[Arg], cmd: Cmd, state: State, sudo: bool) -> None:
    from pylon.guard.words import Arg as A

    starts: list[Arg] = []
    i = 1
    while i < len(args) and args[i].text in ("-H", "-L", "-P"):
        i += 1
    while i < len(args) and not (args[i].text or "x")[0] in "-!(" :
        starts.append(args[i])
        i += 1
    starts = [A(s.text, s.glob, s.raw, under=True) for s in starts or [A(".", False, ".")]]
    expr = args[i:]
    words = quote(args)
    skip_to = 0
    for j, a in enumerate(expr):
        if j < skip_to:
            continue  # the value of a test (`-name -delete`) or the words of an -exec
        if a.text in ("-fprint", "-fprint0", "-fls", "-fprintf") and j + 1 < len(expr):  # they truncate FILE
            destroyed(walk, state, [expr[j + 1]], verb="truncates", words=words, line=cmd.line, recursive=False,
                      sudo=sudo, must_exist=True)
        if a.text in _FIND_TAKES:
            skip_to = j + 2
            continue
        if a.text in ("-exec", "-execdir", "-ok", "-okdir"):
            skip_to = next((k for k in range(j + 1, len(expr)) if expr[k].text in (";", "+")), len(expr)) + 1
        if a.text == "-delete":
            # with a test (-name, -type, ...) find deletes matches below the start, never .git as a whole
            filtered = any((e.text or "") in _FIND_TESTS for e in expr)
            marked = [A(s.text, s.glob, s.raw, under=filtered) for s in starts]
            # the snapshot asks find itself what it would delete (the same tests, -print instead)
            tests = [e.text for e in expr if e.text != "-delete"]
            _find_delete(walk, starts, marked, state, tests, (), words, cmd.line, sudo, filtered)
        elif a.text in ("-exec", "-execdir", "-ok", "-okdir"):
            end = next((k for k in range(j + 1, len(expr)) if expr[k].text in (";", "+")), len(expr))
            inner = expr[j + 1 : end]
            if not inner:
                continue
            rm = rm_of_matches(inner)
            if rm is not None:  # `-exec rm {} +`: what find matches, as with -delete
                tests = [e.text for e in expr[:j] + expr[end + 1:]]
                _find_delete(walk, starts, starts, state, tests, (RECURSIVE,) if rm[1] else (), words, cmd.line,
                             sudo, True)
                continue
            from pylon.guard.model import Cmd as C

            for start in starts:
                replaced = [start if w.text == "{}" or (w.text or "").endswith("/{}") else w for w in inner]
                judge(walk, replaced, C([], [], [], cmd.line), state.copy(), None)


def _find_delete(walk: Walk, starts: list[Arg], marked: list[Arg], state: State, tests: list[str | None],
                 mark: tuple[str, ...], words: str, line: int, sudo: bool, filtered: bool) -> None:
    """find deletes what its tests match: listed by find itself at snapshot time (a FIND target)."""
    listable = all(t is not None and t not in _FIND_ACTIONS and t not in _FIND_PRINTS for t in tests)
    if listable and any(s.text is not None and reaches_git(walk, s.text, state, [t for t in tests if t], words, line)
                        for s in starts):
        return
    destroyed(walk, state, marked, verb="deletes files under", words=words, line=line, sudo=sudo,
              checkout_ok=filtered, kind=FIND if listable else PATH,
              args_of_target=(*mark, *(t for t in tests if t is not None)) if listable else ())
