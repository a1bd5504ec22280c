"""sed scripts read for what they do beyond editing text: GNU `e` and `s///e` run shell commands,
`w FILE` and `s///w FILE` write files. Apart from the awk and vim readers (`minilang`) because sed
is read command by command with its own small parser, where those match patterns."""

from __future__ import annotations

import re

from pylon.guard.paths import destroyed
from pylon.guard.verdict import UNKNOWN, Finding
from pylon.guard.words import Arg

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.walk import Walk
    from pylon.guard.words import State


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
