"""Commands that run other code: shells (`bash -c`, scripts, `eval`, `source`), `xargs`, Python
(`python -c`, through ast), SQL clients (through sqlglot), and code fetched and piped into an
interpreter (`curl ... | sh`)."""

from __future__ import annotations

import os

from pylon.guard.paths import destroyed
from pylon.guard.stdin import stdin_input
from pylon.guard.verdict import IRREVERSIBLE, SAFE, UNKNOWN, Finding
from pylon.guard.words import SHELLS, quote

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from pylon.guard.model import Cmd
    from pylon.guard.walk import Walk
    from pylon.guard.words import Arg, State

PYTHONS = frozenset({"python", "python3", "python2", "pypy", "pypy3"})
OTHER_CODE = frozenset({"perl", "ruby", "node", "deno", "bun", "php", "lua", "Rscript"})
FETCHERS = frozenset({"curl", "wget", "fetch", "http", "xh", "aria2c"})
# Words of a one-liner in a language pylon does not parse that can destroy something.
_RISKY_CODE = (
    "unlink",
    "rmtree",
    "rmdir",
    "remove",
    "system",
    "exec",
    "spawn",
    "`",
    "open",
    "rename",
    "truncate",
    "writeFile",
    "rm_rf",
    "rm -",
    "delete",
    "File.write",
    "fs.",
    "child_process",
    "rmSync",
    "unlinkSync",
    "'fs'",
    '"fs"',
    "FileUtils",
)
MAX_SCRIPT = 1 << 20
STDIN_FILES = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"})


def _python_name(name: str) -> bool:
    return name in PYTHONS or (name.startswith("python") and name[6:].replace(".", "").isdigit())


def judge_interp(
    walk: Walk, name: str, args: list[Arg], cmd: Cmd, state: State, upstream: Cmd | None, sudo: bool
) -> bool:
    """Handle the command if it runs other code; False when it is not one of those."""
    words = quote(args)
    before = len(walk.findings)
    if name in SHELLS:
        _shell(walk, args, cmd, state, upstream, words)
    elif name == "eval":
        texts = [a.text for a in args[1:]]
        if any(t is None for t in texts):
            walk.add(Finding(UNKNOWN, f"`{words}` runs text known only when it runs", words, line=cmd.line))
        else:
            walk.script(" ".join(t for t in texts if t is not None), state, cmd.line)
    elif name in ("source", "."):
        if len(args) > 1 and args[1].text in STDIN_FILES:
            _reads_stdin(walk, cmd, state, upstream, words, lambda body: walk.script(body, state, cmd.line))
        elif len(args) > 1:
            _script_file(walk, args[1], state, words, cmd.line)
    elif name == "xargs":
        from pylon.guard.commands.feeders import xargs

        xargs(walk, args, cmd, state, upstream)
    elif name == "parallel":
        from pylon.guard.commands.feeders import parallel

        parallel(walk, args, cmd, state, upstream, words)
    elif _python_name(name):
        _python(walk, args, cmd, state, upstream, words)
    elif name in OTHER_CODE:
        _other_code(walk, args, cmd, state, upstream, words, name)
    elif name in ("sqlite3", "psql", "mysql", "mariadb", "duckdb"):
        from pylon.guard.commands.sqlcmd import judge_sql

        judge_sql(walk, name, args, cmd, state, words, upstream)
    else:
        return False
    if sudo and any(f.verdict != SAFE for f in walk.findings[before:]):
        walk.add(Finding(IRREVERSIBLE, f"`{words}` runs as root", words, line=cmd.line))
    return True


def fetched(upstream: Cmd | None) -> str | None:
    """The fetch command feeding this one through a pipe (`curl ... | sh`), if any."""
    if upstream is None or not upstream.words:
        return None
    from pylon.guard.words import basename

    first = upstream.words[0].value
    return upstream.words[0].raw if first is not None and basename(first) in FETCHERS else None


def _reads_stdin(
    walk: Walk, cmd: Cmd, state: State, upstream: Cmd | None, words: str, run_text: Callable[[str], object]
) -> None:
    """The code comes on stdin: a heredoc (read it), a fetch (irreversible), another pipe (unknown)."""
    source = fetched(upstream)
    if source is not None:
        walk.add(
            Finding(IRREVERSIBLE, f"`{source} ... | {words}` runs code fetched from the network", words, line=cmd.line)
        )
        return
    body, why = stdin_input(walk, cmd, upstream, state)
    if body is not None:
        run_text(body)
    elif why:
        walk.add(Finding(UNKNOWN, f"`{words}` runs code it reads from its input ({why})", words, line=cmd.line))


def _shell(walk: Walk, args: list[Arg], cmd: Cmd, state: State, upstream: Cmd | None, words: str) -> None:
    i = 1
    while i < len(args):
        text = args[i].text
        if text is None and any(f in args[i].raw for f in FETCHERS):  # sh <(curl ...)
            walk.add(Finding(IRREVERSIBLE, f"`{words}` runs code fetched from the network", args[i].raw, line=cmd.line))
            return
        if text is None:
            walk.add(Finding(UNKNOWN, f"`{words}` takes an option known only when it runs", args[i].raw, line=cmd.line))
            return
        if text in ("-c", "--command") or (text.startswith("-") and not text.startswith("--") and "c" in text):
            if i + 1 >= len(args):
                return  # `bash -c` with no script: bash refuses to start
            if args[i + 1].text is None:
                source = args[i + 1].raw
                verdict = IRREVERSIBLE if "curl" in source or "wget" in source else UNKNOWN
                walk.add(
                    Finding(
                        verdict, f"`{words}` runs {source}, a script known only when it runs", source, line=cmd.line
                    )
                )
                return
            walk.script(args[i + 1].text or "", state.copy(), cmd.line)
            return
        if text in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2
            continue
        if text.startswith(("-", "+")) and text not in ("-", "--"):
            i += 1
            continue
        if text in ("-", "--"):
            i += 1
            if text == "-":
                break
            continue
        if text in STDIN_FILES:
            break
        _script_file(walk, args[i], state, words, cmd.line, search=os.path.basename(args[0].text or "") == "bash")
        return
    _reads_stdin(walk, cmd, state, upstream, words, lambda body: walk.script(body, state.copy(), cmd.line))


def run_script(walk: Walk, arg: Arg, state: State, words: str, line: int) -> None:
    """A shell script run by its path (`./scripts/clean.sh`): judged by what it holds."""
    _script_file(walk, arg, state, words, line)


def _script_file(walk: Walk, arg: Arg, state: State, words: str, line: int, search: bool = False) -> None:
    """A shell script named on the command line is read and judged like the command itself. bash
    (`search`) looks a name without a slash up on PATH when the folder has no such file, and refuses
    a binary file (a NUL byte before the first newline of its first 80 bytes): nothing runs."""
    if arg.text is None:
        walk.add(Finding(UNKNOWN, f"`{words}` runs a script named only when it runs", arg.raw, line=line))
        return
    if arg.text.startswith(("http://", "https://")):
        walk.add(Finding(IRREVERSIBLE, f"`{words}` runs code fetched from the network", arg.raw, line=line))
        return
    path = walk.ctx.absolute(arg.text, state.cwd or walk.ctx.cwd)
    if search and "/" not in arg.text and not os.path.exists(path):
        import shutil

        path = shutil.which(arg.text, mode=os.F_OK, path=walk.ctx.env.get("PATH", "")) or path
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_SCRIPT + 1)
    except OSError:
        walk.add(
            Finding(
                UNKNOWN,
                f"`{words}`: the script {arg.text} cannot be read, so what it does is unknown",
                arg.raw,
                line=line,
            )
        )
        return
    if search and b"\0" in data[:80].partition(b"\n")[0]:
        walk.add(
            Finding(SAFE, f"`{words}`: bash refuses to run {path}, a binary file, as a script", arg.raw, line=line)
        )
        return
    if len(data) > MAX_SCRIPT or b"\0" in data:
        walk.add(Finding(UNKNOWN, f"`{words}`: the script {arg.text} is too large or not text", arg.raw, line=line))
        return
    walk.script(data.decode("utf-8", "surrogateescape"), state.copy(), line)


def _python(walk: Walk, args: list[Arg], cmd: Cmd, state: State, upstream: Cmd | None, words: str) -> None:
    from pylon.guard.commands.pycode import judge_python

    for i, a in enumerate(args[1:], 1):
        if a.text == "-c":
            code = args[i + 1] if i + 1 < len(args) else None
            if code is None or code.text is None:
                walk.add(Finding(UNKNOWN, f"`{words}` runs Python code known only when it runs", words, line=cmd.line))
            else:
                judge_python(walk, code.text, state, words, cmd.line)
            return
        if a.text is None or a.text in ("-m",) or not (a.text or "").startswith("-") or a.text == "-":
            if a.text == "-":
                break
            return  # a script or a module: not analysed (docs/explanation/guard.md)
    _reads_stdin(walk, cmd, state, upstream, words, lambda body: judge_python(walk, body, state, words, cmd.line))


def _other_code(
    walk: Walk, args: list[Arg], cmd: Cmd, state: State, upstream: Cmd | None, words: str, name: str
) -> None:
    """perl/ruby/node one-liners: `-i` edits files in place; inline code pylon cannot parse is
    unknown when it uses a word that can destroy (unlink, system, open, ...), else safe."""
    if name in ("perl", "ruby"):
        from pylon.guard.inplace import read_line

        read = read_line("perl", [a.text for a in args[1:]])  # ruby's one-liner options read alike
        if read.in_place:
            destroyed(
                walk,
                state,
                [args[1 + i] for i in read.files],
                verb="edits in place",
                words=words,
                line=cmd.line,
                recursive=False,
            )
            return
    code = [
        args[i + 1]
        for i, a in enumerate(args[:-1])
        if a.text in ("-e", "-E", "--eval", "-p", "-r")
        or (a.text or "").startswith("-")
        and (a.text or "").endswith("e")
        and not (a.text or "").startswith("--")
    ]
    for c in code:
        if c.text is None or any(w in c.text for w in _RISKY_CODE):
            walk.add(
                Finding(
                    UNKNOWN,
                    f"`{words}` runs {name} code that pylon does not analyse and that can delete or overwrite files",
                    c.raw[:200],
                    line=cmd.line,
                )
            )
    if not code and len([a for a in args[1:] if not (a.text or "-").startswith("-")]) == 0:
        _reads_stdin(
            walk,
            cmd,
            state,
            upstream,
            words,
            lambda body: walk.add(
                Finding(
                    UNKNOWN,
                    f"`{words}` runs {name} code from its input, which pylon does not analyse",
                    words,
                    line=cmd.line,
                )
            ),
        )


__all__ = ["FETCHERS", "SHELLS", "fetched", "judge_interp", "os", "run_script"]
