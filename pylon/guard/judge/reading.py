"""Each simple command of a shell line as the guard reads it, for a reader other than the guard's
judge: canon's agent hook asks which paths a command names and writes. One reading of shell text
for both: the same parser (tree-sitter-bash, shell.py), the same walk (variables it knows, `cd`,
aliases, `bash -c` strings, subshells) and the same peeling of wrappers (`sudo`, `env -C DIR`,
`timeout 5`, `uv run`). What the guard then judges stays in rules.py; this module only reports."""

from __future__ import annotations

from pylon.guard.readout import Reading, Simple, remember, remembered
from pylon.guard.walk import Walk
from pylon.guard.words import SHELLS, Arg, State, basename

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.model import Cmd
    from pylon.guard.walk import Judge

BUDGET = 1.0  # seconds: a hook after a tool call reads, it never waits long for a reading
MAX_COMMAND = 1 << 20  # characters; a longer text is not read as shell


def read(text: str, cwd: str) -> Reading:
    """Read `text` as a shell script run in `cwd`. Never raises on bad shell: what cannot be read
    is returned whole in `unread`, and a reading past its budget keeps what it had."""
    known = remembered(text, cwd)  # the hook reads one command for paths, then for verbs
    if known is not None:
        return known
    if "\0" in text or len(text) > MAX_COMMAND:
        return Reading([], [text[:MAX_COMMAND]])
    from pylon.guard.context import Context

    commands: list[Simple] = []
    walk = Walk(Context(cwd, tmp_dirs=[]), _recorder(commands))
    walk.run(text, State(walk.ctx.cwd, {}, -1), BUDGET)
    reading = Reading(commands, walk.unread)
    remember(text, cwd, reading)
    return reading


def _recorder(commands: list[Simple]) -> Judge:
    def judge(walk: Walk, args: list[Arg], cmd: Cmd, state: State, upstream: Cmd | None) -> None:
        from pylon.guard.commands.wrappers import unwrap

        redirs = [
            (r.op, a.text)
            for r in cmd.redirs
            if r.target is not None and not _duplicates(r.op, r.target.value)
            for a in walk.resolve(r.target, state)
        ]  # a loop's variable: a target per value
        wrapped = unwrap(args)
        words = wrapped.args if not wrapped.unknown else args
        here = state
        if wrapped.chdir is not None:  # `env -C DIR cmd`: cmd runs there, the walk stays
            here = state.copy()
            walk.change_dir([Arg("cd", False, "cd"), wrapped.chdir], here)
        argv = _expanded(words, here.cwd or walk.ctx.cwd)
        commands.append(Simple(argv, here.cwd, redirs))
        name = basename(argv[0]) if argv and argv[0] else ""
        if name in ("cd", "pushd", "popd"):
            walk.change_dir(words, state)
        elif name in SHELLS:
            script = _shell_string(argv)
            if script is not None:
                walk.script(script, here.copy(), cmd.line)  # a child shell: its `cd` stays inside
        elif name == "eval" and all(w is not None for w in argv[1:]):
            walk.script(" ".join(w or "" for w in argv[1:]), here, cmd.line)

    return judge


def _duplicates(op: str, target: str | None) -> bool:
    # `2>&1`, `>&-`, `<&3`: a descriptor copied or closed, no file named
    return op in (">&", "<&") and target is not None and (target.isdigit() or target == "-")


def _expanded(args: list[Arg], cwd: str) -> list[str | None]:
    from pylon.guard.patterns import expand

    out: list[str | None] = []
    for a in args:
        if a.text is None:
            out.append(None)
        elif a.glob:
            out.extend(expand(a, cwd))
        else:
            out.append(a.text)
    return out


def _shell_string(argv: list[str | None]) -> str | None:
    """The script of `bash -c SCRIPT` (`-c` alone or among short options: `-ec`, `-lc`)."""
    for i, word in enumerate(argv[1:], 1):
        if word is None or not word.startswith("-") or word.startswith("--"):
            return None
        if "c" in word[1:]:
            return argv[i + 1] if i + 1 < len(argv) else None
    return None
