"""The small languages of text tools that can run shell commands or write files: sed scripts
(GNU `e`, `w FILE`, `s///e`, `s///w FILE`), awk programs (`system()`, pipes to and from
commands, `print > FILE`) and vim/ex commands (`-c ':!cmd'`, `:w`). Each is read as far as
needed to find those; a construct that runs text not known here makes the command `unknown`."""

from __future__ import annotations

import re

from pylon.guard.paths import destroyed
from pylon.guard.verdict import UNKNOWN, Finding
from pylon.guard.words import Arg

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.walk import Walk
    from pylon.guard.words import State

# -- sed ---------------------------------------------------------------------------------------


class SedEffects:
    """What a sed script does beyond its output: shell commands it runs (None: the pattern space,
    known only at run time), files it writes, and why it could not be read ("" when it could)."""

    __slots__ = ("runs", "writes", "unreadable")

    def __init__(self) -> None:
        self.runs: list[str | None] = []
        self.writes: list[str] = []
        self.unreadable = ""


class _Sed:
    """A sed script read command by command (positions into `text`)."""

    def __init__(self, text: str, out: SedEffects) -> None:
        self.text, self.n, self.out = text, len(text), out

    def to_eol(self, j: int) -> tuple[str, int]:
        k = self.text.find("\n", j)
        k = self.n if k < 0 else k
        return self.text[j:k].strip(), k

    def delimited(self, j: int, delim: str) -> int:
        while j < self.n and self.text[j] != delim:
            j += 2 if self.text[j] == "\\" else 1
        if j >= self.n:
            raise ValueError("unterminated")
        return j + 1

    def address(self, j: int) -> int:
        text, n = self.text, self.n
        if j < n and text[j].isdigit():
            while j < n and (text[j].isdigit() or text[j] == "~"):
                j += 1
        elif j < n and text[j] == "$":
            j += 1
        elif j < n and text[j] in "/\\":
            j = self.delimited(j + 1, "/") if text[j] == "/" else self.delimited(j + 2, text[j + 1])
            while j < n and text[j] in "IM":
                j += 1
        return j

    def skip(self, j: int, chars: str) -> int:
        while j < self.n and self.text[j] in chars:
            j += 1
        return j

    def addresses(self, i: int) -> int:
        """Past `ADDR[,ADDR]` (a number, $, /regex/, \\cregexc; the second also +N or ~N) and `!`."""
        i = self.skip(self.address(i), " \t")
        if i < self.n and self.text[i] == ",":
            i = self.skip(i + 1, " \t")
            i = self.address(i + 1 if i < self.n and self.text[i] in "+~" else i)
        return self.skip(i, " \t!")

    def read(self) -> None:
        i = 0
        while i < self.n:
            c = self.text[i]
            if c in " \t\n;{}!":
                i += 1
            elif c == "#":
                i = self.to_eol(i)[1]
            else:
                i = self.addresses(i)
                if i < self.n:
                    i = self.command(self.text[i], i + 1)

    def command(self, c: str, i: int) -> int:
        for letters, rule in _SED_COMMANDS:
            if c in letters:
                return rule(self, c, i)
        raise ValueError(f"unknown command {c!r}")


def _sed_text(r: _Sed, c: str, i: int) -> int:
    text, i = r.to_eol(i)
    while c != ":" and text.endswith("\\") and i < r.n:  # a\ with the text on following lines
        text, i = r.to_eol(i + 1)
    return i


def _sed_label(r: _Sed, c: str, i: int) -> int:
    m = re.compile(r"[^;\n}]*").match(r.text, i)
    return m.end() if m else i


def _sed_file(r: _Sed, c: str, i: int) -> int:
    name, i = r.to_eol(i)
    if c in "wW":
        r.out.writes.append(name)
    return i


def _sed_run(r: _Sed, c: str, i: int) -> int:
    command, i = r.to_eol(i)
    r.out.runs.append(command or None)
    return i


def _sed_subst(r: _Sed, c: str, i: int) -> int:
    if i >= r.n:
        raise ValueError("s without delimiter")
    delim = r.text[i]
    i = r.delimited(r.delimited(i + 1, delim), delim)
    m = re.compile(r"[gpiImMe0-9]*").match(r.text, i)
    flags = m.group(0) if m else ""
    i = m.end() if m else i
    if "e" in flags:
        r.out.runs.append(None)
    if i < r.n and r.text[i] == "w":
        name, i = r.to_eol(i + 1)
        r.out.writes.append(name)
    return i


def _sed_y(r: _Sed, c: str, i: int) -> int:
    delim = r.text[i]
    return r.delimited(r.delimited(i + 1, delim), delim)


def _sed_quit(r: _Sed, c: str, i: int) -> int:
    m = re.compile(r"\s*\d*").match(r.text, i)
    return m.end() if m else i


_SED_COMMANDS = (
    ("{};\n", lambda r, c, i: i),
    ("#", lambda r, c, i: r.to_eol(i)[1]),
    (":aic", _sed_text),
    ("btTv", _sed_label),
    ("rRwW", _sed_file),
    ("e", _sed_run),
    ("s", _sed_subst),
    ("y", _sed_y),
    ("qQlL", _sed_quit),
    ("=dDgGhHnNpPxzF", lambda r, c, i: i),
)


def sed_effects(script: str) -> SedEffects:
    out = SedEffects()
    try:
        _Sed(script, out).read()
    except (ValueError, IndexError) as exc:
        out.unreadable = str(exc)
    return out


def judge_sed_script(walk: Walk, script: str | None, state: State, words: str, line: int, sudo: bool) -> None:
    if script is None:
        walk.add(Finding(UNKNOWN, f"`{words}` runs a sed script known only when it runs", words, line=line))
        return
    effects = sed_effects(script)
    if effects.unreadable:
        walk.add(
            Finding(
                UNKNOWN,
                f"`{words}`: pylon cannot read the sed script ({effects.unreadable}), which "
                "may run commands or write files",
                words,
                line=line,
            )
        )
        return
    for command in effects.runs:
        if command is None:
            walk.add(Finding(UNKNOWN, f"`{words}` runs the text it edits as a shell command (sed e)", words, line=line))
        else:
            walk.script(command, state.copy(), line)
    files = [Arg(w, False, w) for w in effects.writes if w not in ("/dev/stdout", "/dev/stderr")]
    destroyed(
        walk, state, files, verb="writes (sed w)", words=words, line=line, recursive=False, sudo=sudo, must_exist=True
    )


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
