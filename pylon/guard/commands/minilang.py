"""The small languages of text tools that can run shell commands or write files: awk programs
(`system()`, pipes to and from commands, `print > FILE`) and vim/ex commands (`-c ':!cmd'`, `:w`).
Each is read as far as needed to find those; a construct that runs text not known here makes the
command `unknown`. sed scripts have their own reader (`sedscript`)."""

from __future__ import annotations

import re

from pylon.guard.paths import destroyed
from pylon.guard.verdict import UNKNOWN, Finding
from pylon.guard.words import Arg

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.walk import Walk
    from pylon.guard.words import State

# -- awk ---------------------------------------------------------------------------------------

_STR = r'"((?:[^"\\\n]|\\.)*)"'
_AWK_SYSTEM = re.compile(r"\bsystem\s*\(")
_AWK_SYSTEM_LIT = re.compile(r"\bsystem\s*\(\s*" + _STR + r"\s*\)")
_AWK_GETLINE = re.compile(r"\|\s*getline")
_AWK_GETLINE_LIT = re.compile(_STR + r"\s*\|\s*getline")
_AWK_PIPE_OUT = re.compile(r"\bprintf?\b[^;{}\n]*?\|(?!\|)")
_AWK_PIPE_OUT_LIT = re.compile(r"\bprintf?\b[^;{}\n]*?\|(?!\|)\s*" + _STR)
_AWK_WRITE = re.compile(r"\bprintf?\b[^;{}\n]*?(?<![>=!<])>(?![>=])")
_AWK_WRITE_LIT = re.compile(r"\bprintf?\b[^;{}\n]*?(?<![>=!<])>(?![>=])\s*" + _STR)


def judge_awk(walk: Walk, args: list[Arg], state: State, words: str, line: int, sudo: bool) -> None:
    """awk [-F fs] [-v a=b] [-f FILE | PROGRAM] [FILE...]; gawk -i inplace edits the files."""
    program: str | None = None
    files: list[Arg] = []
    inplace = False
    given = False
    i = 1
    while i < len(args):
        text = args[i].text
        if text is not None and text.startswith("-") and text != "-" and not given:
            if text in (
                "-F",
                "-v",
                "-f",
                "-i",
                "--include",
                "-l",
                "--load",
                "-E",
                "--exec",
                "-o",
                "-p",
            ) and i + 1 < len(args):
                value = args[i + 1].text
                if text in ("-i", "--include", "-l", "--load") and value in ("inplace", "inplace.awk"):
                    inplace = True
                if text in ("-f", "-E", "--exec"):
                    from pylon.guard.stdin import read_file

                    program, _ = read_file(walk, value, state, args[i + 1].raw)
                    given = True
                i += 2
                continue
            if text.startswith(("--include=inplace", "-iinplace")):
                inplace = True
            i += 1
            continue
        if not given:
            program, given = text, True
        else:
            files.append(args[i])
        i += 1
    if not given:
        return
    if program is None:
        walk.add(Finding(UNKNOWN, f"`{words}` runs an awk program known only when it runs", words, line=line))
        return
    for pattern, literal, kind in (
        (_AWK_SYSTEM, _AWK_SYSTEM_LIT, "run"),
        (_AWK_GETLINE, _AWK_GETLINE_LIT, "run"),
        (_AWK_PIPE_OUT, _AWK_PIPE_OUT_LIT, "run"),
        (_AWK_WRITE, _AWK_WRITE_LIT, "write"),
    ):
        found = len(pattern.findall(program))
        known = literal.findall(program)
        if found > len(known) or "|&" in program:
            walk.add(
                Finding(
                    UNKNOWN,
                    f"`{words}` runs commands or writes files named only when the awk program runs",
                    words,
                    line=line,
                )
            )
            return
        for text in known:
            text = text.replace('\\"', '"').replace("\\\\", "\\")
            if kind == "run":
                walk.script(text, state.copy(), line)
            else:
                destroyed(
                    walk,
                    state,
                    [Arg(text, False, text)],
                    verb="writes (awk print >)",
                    words=words,
                    line=line,
                    recursive=False,
                    sudo=sudo,
                    must_exist=True,
                )
    if inplace:
        destroyed(walk, state, files, verb="edits in place", words=words, line=line, recursive=False, sudo=sudo)


# -- vim / ex ----------------------------------------------------------------------------------

VIMS = frozenset({"vim", "vi", "nvim", "ex", "view", "gvim", "vimdiff", "rvim", "evim", "nex", "nvi", "elvis"})
_VIM_WRITES = re.compile(
    r"^(w|wq|x|xit|exi|exit|wa|wall|wqa|wqall|xa|xall|up|update|sav|saveas|wn|wN|wp|"
    r"wnext|wNext|wprevious)!?(\s|$)"
)
_VIM_RUNS = re.compile(
    r"^(norm|normal|exe|execute|so|source|call|lua|luado|luafile|py|python|py3|python3|pyf|"
    r"pyfile|py3f|py3file|pydo|py3do|perl|perldo|ruby|rubydo|rubyfile|ter|terminal|mak|make|"
    r"gr|grep|lgr|lgrep|sh|shell|let|argdo|bufdo|windo|tabdo|cdo|cfdo|ldo|lfdo|au|autocmd|"
    r"com|command|redir|mks|mksession|mkv|mkview|mkvimrc|wv|wviminfo|wsh|wshada)!?(\s|$)"
)
_VIM_RANGE = re.compile(r"^[\s:]*(%|\d+|\.|\$|'[a-z<>]|[,;+\-\d.$])*\s*")


_VIM_TAKES = frozenset(
    {
        "-c",
        "--cmd",
        "-S",
        "-s",
        "-u",
        "-U",
        "-i",
        "-T",
        "-w",
        "-W",
        "--startuptime",
        "-t",
        "-q",
        "--servername",
        "--remote-send",
        "--remote-expr",
    }
)


def _vim_line(args: list[Arg], ex_mode: bool) -> tuple[list[str | None], list[Arg]]:
    """(the editor commands its options give (None: from a file), the files it edits)."""
    commands: list[str | None] = []
    files: list[Arg] = []
    i = 1
    while i < len(args):
        text = args[i].text
        if text == "-s" and ex_mode:
            i += 1
            continue
        if text in _VIM_TAKES and i + 1 < len(args):
            if text in ("-c", "--cmd", "--remote-send", "--remote-expr"):
                commands.append(args[i + 1].text)
            elif text in ("-S", "-W", "-w") or (text == "-s" and not ex_mode):
                commands.append(None)  # commands from a file
            i += 2
            continue
        if text is not None and text.startswith("+") and len(text) > 1 and not text[1:].isdigit() and text[1] != "/":
            commands.append(text[1:])
        elif text is None or not text.startswith(("-", "+")):
            files.append(args[i])
        i += 1
    return commands, files


def judge_vim(
    walk: Walk,
    name: str,
    args: list[Arg],
    state: State,
    words: str,
    line: int,
    sudo: bool,
    stdin: tuple[str | None, str],
) -> None:
    ex_mode = name in ("ex", "nex") or any(a.text in ("-e", "-E", "-es", "-Es", "-s") for a in args[1:])
    commands, files = _vim_line(args, ex_mode)
    if ex_mode:
        body, why = stdin
        if body is not None:
            commands.extend(body.splitlines())
        elif why:
            commands.append(None)
    writes = False
    for command in commands:
        wrote = _vim_command(walk, command, files, state, words, line)
        if wrote is None:
            return  # unknown: said
        writes = writes or wrote
    if writes:
        destroyed(
            walk,
            state,
            files,
            verb="rewrites (editor :w)",
            words=words,
            line=line,
            recursive=False,
            sudo=sudo,
            must_exist=True,
        )


def _vim_command(walk: Walk, command: str | None, files: list[Arg], state: State, words: str, line: int) -> bool | None:
    """Judge one editor command line: True when it writes files (named ones joined to `files`),
    None when what it runs cannot be told (the finding added)."""
    if command is None:
        walk.add(Finding(UNKNOWN, f"`{words}` runs editor commands known only when it runs", words, line=line))
        return None
    writes = False
    for piece in _vim_pieces(command):
        rest = _VIM_RANGE.sub("", piece, count=1).strip()
        if rest.startswith("!") or re.match(r"^(r|read|w|write)\s*!", rest):
            walk.script(rest.split("!", 1)[1], state.copy(), line)
        elif _VIM_RUNS.match(rest):
            walk.add(
                Finding(
                    UNKNOWN,
                    f"`{words}` runs the editor command `{rest[:80]}`, which can run anything",
                    words,
                    line=line,
                )
            )
            return None
        elif _VIM_WRITES.match(rest):
            writes = True
            named = rest.split(None, 1)[1:] if " " in rest else []
            if named:
                files.append(Arg(named[0], False, named[0]))
    return writes


def _vim_pieces(command: str) -> list[str]:
    """Ex commands separated by `|` (a `!` command takes the rest of the line, bars included)."""
    out: list[str] = []
    rest = command
    while rest:
        stripped = _VIM_RANGE.sub("", rest, count=1).lstrip()
        if stripped.startswith("!") or re.match(r"^(r|read|w|write)\s*!", stripped):
            out.append(rest)
            break
        head, bar, rest = rest.partition("|")
        out.append(head)
        if not bar:
            break
    return [p for p in (x.strip() for x in out) if p]
