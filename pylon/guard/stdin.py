"""What a command reads on its input, when that can be told from the script: a heredoc or
here-string, `< FILE`, or a simple producer piped into it (`cat FILE`, `echo`, `printf`)."""

from __future__ import annotations

from pylon.guard.words import MAX_INPUT, basename, stdin_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.model import Cmd
    from pylon.guard.walk import Walk
    from pylon.guard.words import State


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
            return read_file(walk, r.target.value, state, r.target.raw)
    if upstream is None:
        return None, ""
    words = [w.value for w in upstream.words]
    name = basename(words[0] or "") if words else ""
    produced = _PRODUCERS[name](walk, words, state) if name in _PRODUCERS else None
    if produced is not None:
        return produced
    shown = " ".join(w.raw for w in upstream.words[:4])
    return None, f"what `{shown}` writes to it"


def _cat(walk: Walk, words: list[str | None], state: State) -> tuple[str | None, str] | None:
    if len(words) < 2 or not all(w is not None and not w.startswith("-") for w in words[1:]):
        return None
    texts = [read_file(walk, w, state, w or "") for w in words[1:]]
    if all(t is not None for t, _ in texts):
        return "".join(t or "" for t, _ in texts), ""
    return None, next(why for t, why in texts if t is None)


def _echo(walk: Walk, words: list[str | None], state: State) -> tuple[str | None, str] | None:
    if not all(w is not None for w in words[1:]):
        return None
    rest = [w or "" for w in words[1:]]
    rest = rest[1:] if rest[:1] in (["-n"], ["-e"], ["-E"]) else rest
    return " ".join(rest) + "\n", ""


def _printf(walk: Walk, words: list[str | None], state: State) -> tuple[str | None, str] | None:
    rest = [w or "" for w in words[1:]]
    if not all(w is not None for w in words[1:]) or not rest or "%" in rest[0]:
        return None
    from pylon.guard.quoting import ansi_c

    return ansi_c(rest[0]), ""


_PRODUCERS = {"cat": _cat, "echo": _echo, "printf": _printf}


def read_file(walk: Walk, path: str | None, state: State, raw: str) -> tuple[str | None, str]:
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
