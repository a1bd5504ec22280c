"""The walk over a parsed script: state (current folder, known variables) flows through
sequences, is copied into subshells and pipeline parts, and every simple command is handed to
the judge (rules.judge, given by classify.py) once its words are resolved."""

from __future__ import annotations

import os

from pylon.guard.context import Context
from pylon.guard.model import DYN, LIT, VAR, Cmd, Loop, Node, Opaque, Part, Pipe, Seq, Sub, Word, check_deadline
from pylon.guard.verdict import UNKNOWN, Finding
from pylon.guard.words import MAX_EXPANSIONS, Arg, State

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    Judge = Callable[["Walk", list[Arg], Cmd, State, "Cmd | None"], None]

MAX_DEPTH = 8  # bash -c 'bash -c ...' nesting followed before giving up (unknown)


class Walk:
    """One classification: the context, and the findings and command lines collected so far."""

    def __init__(self, ctx: Context, judge: Judge, parser: Callable[[str], Node] | None = None) -> None:
        self.ctx = ctx
        self.judge = judge
        self.parser = parser  # None: tree-sitter-bash (shell.parse); bench/guard.py plugs bashlex in
        self.findings: list[Finding] = []
        self.commands: list[list[str]] = []
        self.unread: list[str] = []  # the text of each region the parser could not read

    def run(self, text: str, state: State, budget: float) -> str:
        """Walk the script `text` within `budget` seconds: "" when the walk ended, else why it
        stopped early (past its budget, nested too deeply, no parser installed)."""
        import gc
        import time

        from pylon.guard import model

        collecting = gc.isenabled()
        gc.disable()  # the parse makes many small objects: the cyclic collector would make it quadratic
        previous, model.DEADLINE[0] = model.DEADLINE[0], time.monotonic() + budget
        try:
            self.script(text, state)
        except model.OverBudget:
            return f"the command could not be read within {budget:g} s"
        except RecursionError:
            return "the command is nested too deeply to analyse"
        except ImportError as exc:  # the parser is not installed: never guess
            return f"the shell parser is not available ({exc.name})"
        finally:
            model.DEADLINE[0] = previous
            if collecting:
                gc.enable()
        return ""

    def add(self, finding: Finding) -> None:
        self.findings.append(finding)

    def script(self, text: str, state: State, line: int = 0) -> None:
        """Parse `text` as shell and walk it (bash -c strings, scripts, eval of literals)."""
        if state.depth > MAX_DEPTH:
            self.add(Finding(UNKNOWN, "shell strings nested too deeply to follow", text[:200], line=line))
            return
        if self.parser is None:
            from pylon.guard.shell import parse

            self.parser = parse
        inner = State(state.cwd, state.vars, state.depth + 1, state.aliases)
        self.node(self.parser(text), inner)
        state.cwd = inner.cwd

    def node(self, node: Node, state: State, upstream: Cmd | None = None) -> None:
        check_deadline()
        if isinstance(node, Cmd):
            self.cmd(node, state, upstream)
        elif isinstance(node, Seq):
            for item in node.items:
                self.node(item, state)
        elif isinstance(node, Pipe):
            prev: Cmd | None = None
            for item in node.items:
                self.node(item, state.copy(), prev)  # every part of a pipeline runs in a subshell
                prev = _last_cmd(item)
        elif isinstance(node, Sub):
            self.node(node.body, state.copy())
        elif isinstance(node, Loop):
            self.loop(node, state)
        elif isinstance(node, Opaque):
            self.unread.append(node.text)
            self.add(Finding(UNKNOWN, node.reason, node.text[:200]))

    def loop(self, loop: Loop, state: State) -> None:
        inner = state.copy()
        if loop.values is None:
            inner.vars.pop(loop.var, None)  # `for x; do` iterates "$@": unknown
        else:
            values: list[str] = []
            for w in loop.values:
                for a in self.resolve(w, state):
                    if a.text is None:
                        inner.vars.pop(loop.var, None)
                        values = []
                        break
                    from pylon.guard.patterns import expand

                    values.extend(expand(a, state.cwd or self.ctx.cwd) if a.glob else [a.text])
                else:
                    continue
                break
            else:
                inner.vars[loop.var] = values
        self.node(loop.body, inner)
        state.cwd = inner.cwd

    def cmd(self, cmd: Cmd, state: State, upstream: Cmd | None) -> None:
        if not cmd.words:
            for name, word in cmd.assigns:  # X=value: later words may use it
                values = self.resolve(word, state, split=False)
                fresh = temp_file(word, self.ctx.env)
                if fresh is not None:  # `tmp=$(mktemp)`: a new file under the temporary folder
                    state.vars[name] = [fresh]
                elif len(values) == 1 and values[0].text is not None:
                    state.vars[name] = [values[0].text]
                else:
                    state.vars.pop(name, None)
            self.judge(self, [], cmd, state, upstream)
            return
        alias = _alias(cmd, state)
        if alias is not None:  # an alias defined earlier in the script: its text, then the other words
            if state.depth > MAX_DEPTH:
                self.add(Finding(UNKNOWN, "aliases nested too deeply to follow", alias[:200], line=cmd.line))
                return
            self.alias(cmd, alias, state, upstream)
            return
        args: list[Arg] = []
        for word in cmd.words:
            check_deadline()
            args.extend(self.resolve(word, state))
        argv = [a.raw if a.text is None else a.text for a in args]
        self.commands.append(argv)
        before = len(self.findings)
        self.judge(self, args, cmd, state, upstream)
        for finding in self.findings[before:]:
            finding.argv = finding.argv or argv

    def alias(self, cmd: Cmd, text: str, state: State, upstream: Cmd | None) -> None:
        if self.parser is None:
            from pylon.guard.shell import parse

            self.parser = parse
        node = self.parser(text + " " + " ".join(w.raw for w in cmd.words[1:]) if len(cmd.words) > 1 else text)
        inner = State(
            state.cwd, state.vars, state.depth + 1, {k: v for k, v in state.aliases.items() if k != cmd.words[0].value}
        )
        only = node.items[0] if isinstance(node, Seq) and len(node.items) == 1 else node
        if isinstance(only, Cmd):  # keep the command's own redirections and assignments
            only.redirs.extend(cmd.redirs)
            only.assigns[:0] = cmd.assigns
            self.cmd(only, inner, upstream)
        else:
            self.node(node, inner, upstream)
        state.cwd = inner.cwd

    def change_dir(self, args: list[Arg], state: State) -> None:
        """`cd`/`pushd`/`popd`: the folder the walk is in afterwards (None when known only at run time)."""
        rest = [a for a in args[1:] if not (a.text or "").startswith("-") or a.text == "-"]
        if args[0].text in ("popd",) or not rest:
            state.cwd = self.ctx.home if args[0].text == "cd" and not rest else None
            return
        target = rest[0]
        if target.text is None or target.text == "-" or target.glob or state.cwd is None:
            state.cwd = None if target.text is None or target.text == "-" or target.glob else state.cwd
            if state.cwd is None and target.text is not None and os.path.isabs(target.text):
                state.cwd = self.ctx.absolute(target.text, "/")
            return
        state.cwd = self.ctx.absolute(target.text, state.cwd)

    def tilde(self, text: str, state: State) -> str | None:
        """Tilde expansion of a word's unquoted start, as bash does it: `~` and `~/x` the home
        folder, `~user/x` that user's home (a name no account has stays as written), `~+` the
        current folder; `~-` (the previous folder) and a home not known here give None."""
        head, sep, tail = text.partition("/")
        name = head[1:]
        if name == "":
            home: str | None = self.ctx.home or None
        elif name == "+":
            home = state.cwd
        elif name == "-" or not all(c.isalnum() or c in "._-" for c in name):
            return None if name == "-" else text
        else:
            home = _home_of(name)
            if home is None:
                return text  # bash leaves `~nosuch` as it is
        return None if home is None else home + sep + tail

    def resolve(self, word: Word, state: State, split: bool = True) -> list[Arg]:
        """Expand the variables the walk knows; anything else leaves the word dynamic."""
        combos = [""]
        glob = False
        for part in word.parts:
            found = self._part(part, part is word.parts[0], state)
            if found is None:
                return [Arg(None, False, word.raw, bare=not part.quoted and part.kind != LIT)]
            values, pattern = found
            glob = glob or pattern
            combos = [c + v for c in combos for v in values][:MAX_EXPANSIONS]
        if not split and len(combos) > 1:
            return [Arg(" ".join(combos), glob, word.raw)]
        if split and len(word.parts) == 1 and word.parts[0].kind == VAR and not word.parts[0].quoted:
            # bash splits an unquoted expansion on IFS (space, tab, newline): `$x` may be several words
            return [Arg(w, glob, word.raw) for c in combos for w in c.split()]
        return [Arg(c, glob, word.raw) for c in combos]

    def _part(self, part: Part, first: bool, state: State) -> tuple[list[str], bool] | None:
        """(the texts one part of a word stands for, whether they hold a pattern); None when it is
        known only at run time."""
        if part.kind == LIT:
            text = part.text
            if not part.quoted and first and text.startswith("~"):
                tilde = self.tilde(text, state)
                if tilde is None:
                    return None
                text = tilde
            return [text], not part.quoted and any(c in text for c in "*?[{")
        if part.kind == VAR and (part.text in state.vars or self.ctx.var(part.text) is not None):
            values = state.vars.get(part.text)
            if values is None:
                values = [self.ctx.var(part.text) or ""]
            return values, not part.quoted and any(any(ch in v for ch in "*?[") for v in values)
        if part.text in ("$(pwd)", "`pwd`", "PWD", "${PWD}") and state.cwd is not None:
            return [state.cwd], False  # the folder the walk is in
        return None


_MKTEMP_FLAGS = frozenset({"-d", "--directory", "-u", "--dry-run", "-q", "--quiet"})


def temp_file(word: Word, env: dict[str, str]) -> str | None:
    """The path `$(mktemp ...)` makes, when it lies under the temporary folder: no template, or one
    with `-t`/`--tmpdir` (`mktemp TEMPLATE` alone makes it in the current folder: None)."""
    import shlex

    if len(word.parts) != 1 or word.parts[0].kind != DYN:
        return None
    text = word.parts[0].text.strip()
    inner = (
        text[2:-1]
        if text.startswith("$(") and text.endswith(")")
        else text[1:-1]
        if text.startswith("`") and text.endswith("`")
        else None
    )
    try:
        argv = shlex.split(inner) if inner is not None else []
    except ValueError:
        return None
    if not argv or argv[0].rsplit("/", 1)[-1] != "mktemp":
        return None
    in_tmp, template = False, False
    for arg in argv[1:]:
        if arg in ("-t", "--tmpdir"):
            in_tmp = True
        elif arg.startswith("--suffix=") or arg in _MKTEMP_FLAGS:
            continue
        elif arg.startswith("-"):
            return None  # -p DIR, --tmpdir=DIR and the rest: a folder pylon does not place here
        else:
            template = True
    if template and not in_tmp:
        return None
    folder = env.get("TMPDIR") or "/tmp"
    return os.path.join(folder if os.path.isabs(folder) else "/tmp", "tmp.pylon-mktemp")


def _alias(cmd: Cmd, state: State) -> str | None:
    """The alias text when the command word is an unquoted name aliased earlier in the script."""
    if not state.aliases or not cmd.words:
        return None
    first = cmd.words[0]
    if len(first.parts) != 1 or first.parts[0].kind != LIT or first.parts[0].quoted or "\\" in first.raw:
        return None
    return state.aliases.get(first.parts[0].text)


def _home_of(user: str) -> str | None:
    import pwd

    try:
        return pwd.getpwnam(user).pw_dir
    except (KeyError, OSError):
        return None


def _last_cmd(node: Node) -> Cmd | None:
    if isinstance(node, Cmd):
        return node
    if isinstance(node, (Seq, Pipe)) and node.items:
        return _last_cmd(node.items[-1])
    if isinstance(node, (Sub, Loop)):
        return _last_cmd(node.body)
    return None
