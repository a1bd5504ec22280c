"""Resolved words and the walk's state, plus the small helpers every rule module shares."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.model import Cmd
    from pylon.guard.walk import Walk

MAX_EXPANSIONS = 64


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

    def __init__(self, cwd: str | None, vars: dict[str, list[str]], depth: int = 0,
                 aliases: dict[str, str] | None = None) -> None:
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


def stdin_input(walk: Walk, cmd: Cmd, upstream: Cmd | None, state: State) -> tuple[str | None, str]:
    """(text, "") when the command's input is known: a heredoc or here-string, `< FILE`, `cat FILE |`,
    `echo WORDS |`, `printf TEXT |`; (None, why) when it reads input that cannot be told here;
    (None, "") when nothing is redirected or piped into it (a terminal, or nothing)."""
    known = stdin_text(cmd, upstream)
    if known is not None:
        return known, ""
    for r in reversed(cmd.redirs):
        if r.op == "<<<" or (r.op.startswith("<<") and r.body is None):
            return None, "a here-string known only when it runs"
        if r.op in ("<", "<>") and r.fd in ("", "0") and r.target is not None:
            return _read_file(walk, r.target.value, state, r.target.raw)
    if upstream is None:
        return None, ""
    words = [w.value for w in upstream.words]
    name = basename(words[0] or "") if words else ""
    if name == "cat" and len(words) > 1 and all(w is not None and not w.startswith("-") for w in words[1:]):
        texts = [_read_file(walk, w, state, w or "") for w in words[1:]]
        if all(t is not None for t, _ in texts):
            return "".join(t or "" for t, _ in texts), ""
        return None, next(why for t, why in texts if t is None)
    if name in ("echo", "printf") and all(w is not None for w in words[1:]):
        rest = [w or "" for w in words[1:]]
        if name == "echo":
            rest = rest[1:] if rest[:1] in (["-n"], ["-e"], ["-E"]) else rest
            return " ".join(rest) + "\n", ""
        if rest and "%" not in rest[0]:
            from pylon.guard.shell import ansi_c

            return ansi_c(rest[0]), ""
    shown = " ".join((w.raw for w in upstream.words[:4]))
    return None, f"what `{shown}` writes to it"


def _read_file(walk: Walk, path: str | None, state: State, raw: str) -> tuple[str | None, str]:
    if path is None:
        return None, f"{raw}, a file named only when it runs"
    try:
        with open(walk.ctx.absolute(path, state.cwd or walk.ctx.cwd), "rb") as fh:
            data = fh.read(MAX_INPUT + 1)
    except OSError:
        return None, f"{path}, which cannot be read now"
    if len(data) > MAX_INPUT or b"\0" in data:
        return None, f"{path}, which is too large or not text"
    return data.decode("utf-8", "surrogateescape"), ""
