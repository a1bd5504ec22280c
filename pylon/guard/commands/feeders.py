"""xargs and GNU parallel: commands built from what they read (words, arguments after `:::`), each
judged as the command it becomes. What a producer before `| xargs` lists is read when the script
tells it (find's start folders, a listing command's folder, echo's words); otherwise the words are
known only at run time."""

from __future__ import annotations

from pylon.guard.verdict import IRREVERSIBLE, SAFE, UNKNOWN, Finding
from pylon.guard.words import quote

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.model import Cmd
    from pylon.guard.walk import Walk
    from pylon.guard.words import Arg, State

_XARGS_TAKES = frozenset(
    {
        "-n",
        "-L",
        "-P",
        "-s",
        "-d",
        "-E",
        "-a",
        "-I",
        "-J",
        "-R",
        "-S",
        "--max-args",
        "--max-procs",
        "--delimiter",
        "--arg-file",
        "--max-lines",
        "--max-chars",
        "--eof",
        "--process-slot-var",
    }
)


def _xargs_options(args: list[Arg]) -> tuple[int, str | None, bool]:
    """(where the command starts, the replacement string (-I, -J, -i, --replace), input from a file)."""
    i, replace, from_file = 1, None, False
    while i < len(args) and (text := args[i].text) is not None and text.startswith("-") and text != "-":
        if text == "--":
            return i + 1, replace, from_file
        if text in ("-I", "-J") and i + 1 < len(args):
            replace = args[i + 1].text
        elif text.startswith("-I") and len(text) > 2:
            replace = text[2:]
        elif text == "-i" or text == "--replace" or text.startswith(("-i", "--replace=")):
            replace = text.split("=", 1)[1] if "=" in text else (text[2:] if text.startswith("-i") else "") or "{}"
        elif text in ("-a", "--arg-file") or text.startswith(("--arg-file=", "-a")):
            from_file = True
        i += 2 if text in _XARGS_TAKES else 1
    return i, replace, from_file


def xargs(walk: Walk, args: list[Arg], cmd: Cmd, state: State, upstream: Cmd | None) -> None:
    """xargs CMD: CMD runs with the input's words added (or put in place of -I/-i/--replace's string)."""
    from pylon.guard.model import Cmd as C
    from pylon.guard.words import Arg as A

    i, replace, from_file = _xargs_options(args)
    if i < len(args) and args[i].text is None:
        walk.add(
            Finding(UNKNOWN, f"`{quote(args)}` runs a command known only when it runs", args[i].raw, line=cmd.line)
        )
        return
    inner = args[i:] or [A("echo", False, "echo")]
    inputs = None if from_file else stdin_paths(walk, upstream)
    for path in inputs if inputs is not None else [A(None, False, "(words read from its input)")]:
        line_args = [_replaced(a, replace, path) for a in inner] if replace else [*inner, path]
        walk.judge(walk, line_args, C([], [], [], cmd.line), state.copy(), None)


_PARALLEL_TAKES = frozenset(
    {
        "-j",
        "--jobs",
        "-P",
        "--max-procs",
        "-S",
        "--sshlogin",
        "-I",
        "-n",
        "--max-args",
        "-N",
        "-L",
        "--max-lines",
        "--delay",
        "--timeout",
        "--joblog",
        "--results",
        "--res",
        "-a",
        "--arg-file",
        "--colsep",
        "-C",
        "-d",
        "--delimiter",
        "-E",
        "--env",
        "--tmpdir",
        "--workdir",
        "--wd",
        "--basefile",
        "--bf",
        "--return",
        "--sshloginfile",
        "--slf",
        "--retries",
        "--load",
        "--memfree",
        "--halt",
        "--tagstring",
        "--tag-string",
        "-s",
        "--max-chars",
        "--block",
        "--blocksize",
        "--rpl",
        "--shebang-wrap",
        "--limit",
    }
)
_PARALLEL_SLOTS = ("{}", "{.}", "{/}", "{//}", "{/.}", "{#}", "{%}")


def _parallel_options(texts: list[str | None]) -> tuple[int, bool, str | None, bool]:
    """(where the command starts, jobs on other machines, the -I string, arguments from a file)."""
    i, remote, replace, from_file = 1, False, None, False
    while i < len(texts) and (text := texts[i]) is not None and text.startswith("-") and text != "-":
        if text in ("-S", "--sshlogin", "--sshloginfile", "--slf") or text.startswith("--sshlogin="):
            remote = remote or (i + 1 < len(texts) and texts[i + 1] != ":")
        if text == "-I" and i + 1 < len(texts):
            replace = texts[i + 1]
        if text in ("-a", "--arg-file") or text.startswith("--arg-file="):
            from_file = True
        i += 2 if text in _PARALLEL_TAKES else 1
    return i, remote, replace, from_file


def parallel(walk: Walk, args: list[Arg], cmd: Cmd, state: State, upstream: Cmd | None, words: str) -> None:
    """GNU parallel CMD ::: ARGS (or ARGS on stdin): each job is a shell string, CMD with the
    argument in its {} slots (or appended); with no CMD each argument is itself a command."""
    from pylon.guard.words import Arg as A

    texts = [a.text for a in args]
    i, remote, replace, from_file = _parallel_options(texts)
    seps = [k for k in range(i, len(args)) if texts[k] in (":::", "::::", ":::+", "::::+")]
    command = args[i : seps[0]] if seps else args[i:]
    inputs: list[Arg] | None
    if seps:
        inputs = [a for k, a in enumerate(args[seps[0] :], seps[0]) if k not in seps]
        if any(texts[k] in ("::::", "::::+") for k in seps):
            inputs = None
    else:
        inputs = None if from_file else stdin_paths(walk, upstream)
    if any(a.text is None for a in command):
        walk.add(Finding(UNKNOWN, f"`{words}` runs a command known only when it runs", words, line=cmd.line))
        return
    slots = (replace,) if replace else _PARALLEL_SLOTS
    before = len(walk.findings)
    for value in inputs if inputs is not None else [A(None, False, "(arguments read from its input)")]:
        _job(walk, command, value, slots, cmd, state, words)
    if remote and any(f.verdict != SAFE for f in walk.findings[before:]):
        walk.add(Finding(IRREVERSIBLE, f"`{words}` runs its jobs on other machines", words, line=cmd.line))


def _job(
    walk: Walk, command: list[Arg], value: Arg, slots: tuple[str, ...], cmd: Cmd, state: State, words: str
) -> None:
    """One job of parallel: the command with `value` in its slots."""
    if not command and value.text is None:
        walk.add(Finding(UNKNOWN, f"`{words}` runs commands known only when it runs", value.raw, line=cmd.line))
        return
    if value.text is None or value.under:  # parallel quotes the argument: one word, as xargs gives it
        from pylon.guard.model import Cmd as C

        line_args = [value if a.text in slots else _replaced(a, slots[0], value) for a in command]
        if line_args == command:
            line_args = [*command, value]
        walk.judge(walk, line_args, C([], [], [], cmd.line), state.copy(), None)
        return
    if not command:
        walk.script(value.text, state.copy(), cmd.line)
        return
    import shlex

    quoted = shlex.quote(value.text)
    # GNU parallel joins the command's words with spaces for the shell; judged that way and with
    # each word kept whole (`parallel bash -c 'rm -rf {}'`), so that neither reading escapes
    for text in (" ".join(a.text or "" for a in command), " ".join(shlex.quote(a.text or "") for a in command)):
        line = text
        for slot in slots:
            line = line.replace(slot, quoted)
        walk.script(line if line != text else f"{text} {quoted}", state.copy(), cmd.line)


def _replaced(word: Arg, replace: str, value: Arg) -> Arg:
    """`word` with xargs' replacement string put in, wherever it occurs inside the word."""
    from pylon.guard.words import Arg as A

    if word.text is None or replace not in word.text:
        return word
    if word.text == replace:
        return value
    if value.text is None:
        return A(None, False, word.raw)
    return A(word.text.replace(replace, value.text), False, word.raw)


_LISTERS = ("fd", "fdfind", "git", "grep", "rg", "ag", "ack")


def stdin_paths(walk: Walk, upstream: Cmd | None) -> list[Arg] | None:
    """What a producer before `| xargs` lists: find's start folders, the folder of a listing
    command, echo's words; None when it cannot be told."""
    from pylon.guard.words import Arg as A
    from pylon.guard.words import basename

    if upstream is None or not upstream.words or upstream.words[0].value is None:
        return None
    name = basename(upstream.words[0].value or "")
    rest = [w.value for w in upstream.words[1:]]
    if any(r is None for r in rest):
        return None
    plain = [r for r in rest if r is not None and not r.startswith("-")]
    if name == "find":
        return _find_starts([r or "" for r in rest])
    if name in ("echo", "printf"):
        return [A(p, False, p) for p in plain[1 if name == "printf" else 0 :]]
    if name == "ls":  # bare names, which xargs then opens relative to its own folder
        return [A(".", False, "(names listed by ls)", under=True)]
    if name in _LISTERS:  # paths below the folders searched
        folders = [p for p in plain[1 if name == "git" else 0 :] if p.startswith(("/", "~", ".."))]
        return [A(f, False, f"(paths listed by {name} under {f})", under=True) for f in folders] or [
            A(".", False, f"(paths listed by {name})", under=True)
        ]
    return None


def _find_starts(rest: list[str]) -> list[Arg]:
    from pylon.guard.words import Arg as A

    starts = []
    for r in rest:
        if r[:1] in "-!(":
            break
        starts.append(r)
    return [A(s, False, s, under=True) for s in starts or ["."]]
