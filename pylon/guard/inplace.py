"""How sed and perl read their own command lines: whether they edit files in place (`-i`, with a
backup suffix or none), where their program comes from (`-e`/`-f` values, or the first operand)
and which words are the files. One reading for the guard (the files an in-place edit destroys)
and canon's agent hook (the files a command writes, backups included)."""

from __future__ import annotations

# Short options whose value follows them (the rest of the word, else the next word): those that
# give the program, then the others. GNU sed; perl (ruby reads its one-liners the same way).
_VALUES = {"sed": ("ef", "l"), "perl": ("eE", "IMmFCdDx")}
_LONG_PROGRAM = frozenset({"--expression", "--file"})
_LONG_VALUE = frozenset({"--expression", "--file", "--line-length"})


class EditorLine:
    """`in_place` and its backup `suffix` ("" for none); `programs`: (letter, value) for each
    program given by an option (`e` an expression, `f` a script file; value None when known only
    at run time); `files`: the positions (in the words given) of the files it reads or edits;
    `sandbox`: sed's --sandbox (its script cannot run or write anything)."""

    __slots__ = ("in_place", "suffix", "programs", "files", "sandbox", "first")

    def __init__(self) -> None:
        self.in_place, self.suffix, self.sandbox = False, "", False
        self.programs: list[tuple[str, str | None]] = []
        self.files: list[int] = []
        self.first: int | None = None  # the position of the program given as the first operand


def read_line(program: str, words: list[str | None]) -> EditorLine:
    """The command line `words` (after the program's name) of sed or perl as the program reads it.
    A word known only at run time (None) is taken as an operand. Options may follow operands (GNU
    getopt): the first operand is the program only when no option gave one."""
    scripts, others = _VALUES["perl" if program == "perl" else "sed"]
    line = EditorLine()
    operands: list[int] = []
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word is None or not word.startswith("-") or word == "-":
            operands.append(i - 1)
        elif word == "--":
            operands += range(i, len(words))
            break
        elif word.startswith("--"):
            name, eq, given = word.partition("=")
            value: str | None = given
            if name == "--in-place":
                line.in_place, line.suffix = True, given
            line.sandbox = line.sandbox or name == "--sandbox"
            if name in _LONG_VALUE:
                if not eq:
                    value, i = (words[i] if i < len(words) else ""), i + 1
                if name in _LONG_PROGRAM:
                    line.programs.append((name[2], value))
        else:
            for k, letter in enumerate(word[1:], 2):
                if letter == "i":
                    line.in_place, line.suffix = True, word[k:]
                    break
                if letter in scripts or letter in others:
                    value = word[k:] or None
                    if not value:
                        value, i = (words[i] if i < len(words) else ""), i + 1
                    if letter in scripts:
                        line.programs.append((letter, value))
                    break
    if not line.programs and operands:
        line.first = operands.pop(0)
    line.files = operands
    return line
