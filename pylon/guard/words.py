"""Resolved words and the walk's state, plus the small helpers every rule module shares."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.model import Cmd

MAX_EXPANSIONS = 64
# Shells whose `-c SCRIPT` (or script file) the walk reads as shell: the guard's judge and the reader.
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "fish"})


class Arg:
    """A resolved word: `text` None when it is known only at run time; `glob` for a pattern."""

    __slots__ = ("text", "glob", "raw", "under", "bare")

    def __init__(self, text: str | None, glob: bool, raw: str, under: bool = False, bare: bool = False) -> None:
        # under: the word stands for files below this folder (find -exec {}, paths fed to xargs);
        # bare: a run-time value outside quotes, which the shell splits into any number of words
        self.text, self.glob, self.raw, self.under, self.bare = text, glob, raw, under, bare

    def __repr__(self) -> str:
        return f"Arg({self.text!r})"


class State:
    """The walk's state: the folder (None: known only at run time), known variables, nesting depth,
    and the aliases defined so far: shell aliases by name, git aliases as "git NAME"."""

    __slots__ = ("cwd", "vars", "depth", "aliases")

    def __init__(
        self, cwd: str | None, vars: dict[str, list[str]], depth: int = 0, aliases: dict[str, str] | None = None
    ) -> None:
        self.cwd, self.vars, self.depth = cwd, vars, depth
        self.aliases: dict[str, str] = {} if aliases is None else aliases

    def copy(self) -> State:
        return State(self.cwd, dict(self.vars), self.depth, dict(self.aliases))


def basename(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def quote(args: list[Arg], limit: int = 8) -> str:
    """The words responsible, as the command wrote them (shortened past `limit` words)."""
    shown = [a.raw for a in args[:limit]]
    return " ".join(shown) + (" ..." if len(args) > limit else "")


MAX_INPUT = 1 << 20  # a file read as a command's input (SQL, a script) is read up to this size


def stdin_text(cmd: Cmd, upstream: Cmd | None) -> str | None:
    """What the command reads on stdin when the parse alone tells it: its heredoc, or `cat <<EOF | cmd`."""
    if cmd.stdin_text is not None:
        return cmd.stdin_text
    if upstream is not None and upstream.words and upstream.words[0].value == "cat" and len(upstream.words) == 1:
        return upstream.stdin_text
    return None


def operands(args: list[Arg], recursive_flags: str, takes: frozenset[str] = frozenset()) -> tuple[list[Arg], bool]:
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
