"""The one parser: reads a command line against the registry and returns typed values.

Every invocation, plain or odd, goes through `parse`. A repeated single-value option, an unknown
option, a bad value or a wrong number of arguments is a usage error (exit 2) naming the
command's usage line; nothing is silently dropped or last-wins. `-h/--help` at any level asks for
help, which help.py renders from the same declarations.
"""

from __future__ import annotations

from pylon.cli import commands as registry
from pylon.cli.spec import ANY, FLAG, FLOAT, INT, MANY, ONE, OPTIONAL, PAIR, REST, Command, Group, Opt
from pylon.errors import UsageError

HELP = ("-h", "--help")


def option_like(word: str) -> bool:
    """A word an option value must not be without `--` before it or `=`: it reads as an option
    (`--json`, `--limit=3`). `---` (front matter) or `-- note` read as text and pass."""
    name = word[2:].partition("=")[0]
    return (
        word.startswith("--") and name[:1].isalnum() and name.isascii() and all(c.isalnum() or c in "-_" for c in name)
    )


class Args:
    """The parsed values of one command line: one attribute per declared argument and option.

    Handlers type it with a Protocol of their own (see pylon/cli/canon/core.py); tests check that every
    Protocol names exactly the registry's attributes.
    """

    def __init__(self, values: dict[str, object]) -> None:
        self.__dict__.update(values)

    def __repr__(self) -> str:
        return f"Args({self.__dict__!r})"


class Parsed:
    """What a command line asks for: a command with its Args, help on a command or group, or the
    version. `target` is None for the root itself."""

    __slots__ = ("target", "args", "directory", "color", "help", "version", "notes")

    def __init__(self, target: Command | Group | None, directory: list[str], color: str) -> None:
        self.target, self.directory, self.color = target, directory, color
        self.args: Args | None = None
        self.help = ""  # "asked" (-h/--help, exit 0) or "bare" (a group without a command, exit 2)
        self.version = False
        self.notes: list[str] = []  # deprecation warnings for stderr (an old option spelling was used)


def shown_name(words: str, prog: str) -> str:
    """`ws diff` as the user typed it: `pylon ws diff`, or `canon read` for the canon script."""
    if prog == "canon":
        return words or "canon"
    return f"pylon {words}".strip()


def usage_line(target: Command | Group | None, prog: str) -> str:
    """`usage: pylon ws diff [OPTIONS] [PATH]...`, from the declaration."""
    name = shown_name(target.name if target is not None else "", prog)
    if not isinstance(target, Command):
        return f"usage: {name} [OPTIONS] COMMAND [ARGS]..."
    parts = [name, "[OPTIONS]"] if target.opts else [name]
    for arg in target.args:
        parts.append(f"[--] {arg.metavar}" if arg.count == REST else arg.metavar)
    return "usage: " + " ".join(parts)


def _fail(message: str, target: Command | Group | None, prog: str) -> UsageError:
    name = shown_name(target.name if target is not None else "", prog)
    return UsageError("usage", message, f"{name} --help", details={"usage": usage_line(target, prog)})


def _suggest(word: str, choices: list[str]) -> str:
    from difflib import get_close_matches  # only on the error path

    close = get_close_matches(word, choices, n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def _number(opt: Opt, raw: str) -> int | float | None:
    body = raw[1:] if raw.startswith("-") else raw
    if opt.kind == INT:
        return int(raw) if body.isascii() and body.isdigit() else None
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if value == value and abs(value) != float("inf") and raw.strip() == raw else None


def _convert(opt: Opt, raw: str, target: Command | Group | None, prog: str) -> object:
    meta = f" {opt.metavar}" if opt.metavar else ""
    if opt.choices:
        if raw not in opt.choices:
            listed = ", ".join(opt.choices[:-1]) + f" or {opt.choices[-1]}"
            raise _fail(f"{opt.name} takes {listed}, not {raw!r}.", target, prog)
        return raw
    if opt.kind not in (INT, FLOAT):
        return raw
    value = _number(opt, raw)
    if value is None:
        what = "a whole number" if opt.kind == INT else "a number"
        raise _fail(f"{opt.name}{meta} takes {what}, not {raw!r}.", target, prog)
    if opt.min is not None and value < opt.min:
        raise _fail(f"{opt.name} must be at least {plain(opt.min)}, not {raw}.", target, prog)
    if opt.max is not None and value > opt.max:
        raise _fail(f"{opt.name} must be at most {plain(opt.max)}, not {raw}.", target, prog)
    return value


def plain(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


def _options(
    args: list[str],
    opts: tuple[Opt, ...],
    target: Command | Group | None,
    prog: str,
    stop: str = "",
    head: list[str] | None = None,
    notes: list[str] | None = None,
) -> tuple[dict[str, object], list[str]] | None:
    """Option values and positional words; None when help was asked for.

    `stop`: "rest" keeps every word from the first positional on as it is (`ws run make --json`);
    "word" stops at the first positional (the root options end at the command word). `head`: the
    words before `args` (the program and command words), for the corrected line of a refusal."""
    head = head if head is not None else [prog]
    by_name = {o.name: o for o in opts}
    old_names = {alias: o for o in opts for alias in o.aliases}
    values: dict[str, object] = {o.dest: o.default for o in opts if not o.repeat}
    lists: dict[str, list[object]] = {o.dest: [] for o in opts if o.repeat}
    values.update(lists)
    given: dict[str, str] = {}
    words: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--" and stop != "word":
            words += args[i + 1 :]
            break
        if (stop == "rest" and words) or (stop == "word" and not arg.startswith("-")):
            words += args[i:]
            break
        if arg in HELP:
            return None
        if not arg.startswith("-") or arg == "-":
            words.append(arg)
            i += 1
            continue
        name, eq, inline = arg.partition("=")
        if not arg.startswith("--") and len(arg) > 2 and arg[:2] in by_name:  # -Cdir, like git
            name, eq, inline = arg[:2], "=", arg[2:]
        opt = by_name.get(name)
        if opt is None and name in old_names:
            opt = old_names[name]
            if notes is not None and not any(name in n for n in notes):
                notes.append(f"{name} is deprecated and will go in a coming release; use {opt.name} (the same option).")
            arg = opt.name + arg[len(name) :]
            name = opt.name
        if opt is None:
            visible = [o.name for o in opts if not o.hidden]
            raise _fail(f"No such option: {name}{_suggest(name, visible)}.", target, prog)
        if opt.kind == FLAG:
            if eq:
                raise _fail(f"{name} is a flag and takes no value (write {name}, not {arg}).", target, prog)
            values[opt.dest] = True
            i += 1
            continue
        if name in given and not opt.repeat:
            raise _fail(
                f"{name} was given twice ({given[name]!r}, then {(inline if eq else _peek(args, i))!r}); "
                "it takes one value.",
                target,
                prog,
            )
        count = 2 if opt.kind == PAIR else 1
        if eq and count == 2:
            raise _fail(f"{name} takes two values ({opt.metavar}): write `{name} {opt.metavar}`.", target, prog)
        if eq:
            raw, i = [inline], i + 1
        else:
            raw, i = _values(args, i, opt, count, head, target, prog)
        given[name] = raw[0]
        value = tuple(raw) if count == 2 else _convert(opt, raw[0], target, prog)
        if opt.repeat:
            lists[opt.dest].append(value)
        else:
            values[opt.dest] = value
    return values, words


def _values(
    args: list[str], i: int, opt: Opt, count: int, head: list[str], target: Command | Group | None, prog: str
) -> tuple[list[str], int]:
    """The `count` value words of the option at args[i], and the index after them.

    A value word that reads as an option (option_like) is an option the user meant, not a value
    (`--replace 1 --json`): it is refused unless `--` stands before it (`--replace 1 -- --json`)
    or, for a one-value option, it is attached with `=` (`--grep=--json`)."""
    raw: list[str] = []
    j = i + 1
    while len(raw) < count:
        if j >= len(args):
            raise _fail(f"{opt.name} needs {'two values' if count == 2 else 'a value'} ({opt.metavar}).", target, prog)
        word = args[j]
        if word == "--" and j + 1 < len(args):
            raw.append(args[j + 1])
            j += 2
            continue
        if option_like(word):
            fixed = (
                args[:j] + ["--"] + args[j:] if count == 2 else args[: j - 1] + [f"{opt.name}={word}"] + args[j + 1 :]
            )
            import shlex  # only on the error path

            error = _fail(
                f"{opt.name} takes {opt.metavar}, and {word!r} looks like an option, not its value; "
                f"to give it as the value, write the line in the hint.",
                target,
                prog,
            )
            error.hint = shlex.join(head + fixed)
            error.details["corrected"] = error.hint
            raise error
        raw.append(word)
        j += 1
    return raw, j


def _peek(args: list[str], i: int) -> str:
    return args[i + 1] if i + 1 < len(args) else ""


def _positionals(command: Command, words: list[str], values: dict[str, object], prog: str) -> None:
    fixed = [a for a in command.args if a.count in (ONE, OPTIONAL)]
    tail = next((a for a in command.args if a.count in (MANY, ANY, REST)), None)
    required = sum(1 for a in command.args if a.count in (ONE, MANY, REST))
    if len(words) < required:
        missing = [a.metavar for a in command.args if a.count in (ONE, MANY, REST)][len(words) :] or ["ARGS"]
        raise _fail(f"Missing argument {missing[0]}.", command, prog)
    if tail is None and len(words) > len(fixed):
        extra = " ".join(words[len(fixed) :])
        raise _fail(
            f"Got unexpected extra argument{'s' if len(words) - len(fixed) > 1 else ''} ({extra}).", command, prog
        )
    # Fixed arguments take one word each (an OPTIONAL one only if words remain for the tail's minimum).
    spare = len(words) - required
    pos = 0
    for arg in command.args:
        if (
            arg.choices
            and arg.count in (ONE, OPTIONAL)
            and pos < len(words)
            and words[pos] not in arg.choices
            and (arg.count == ONE or spare > 0)
        ):
            listed = ", ".join(arg.choices[:-1]) + f" or {arg.choices[-1]}"
            raise _fail(
                f"{arg.metavar} is {listed}, not {words[pos]!r}{_suggest(words[pos], list(arg.choices))}.",
                command,
                prog,
            )
        if arg.count == ONE:
            values[arg.dest] = words[pos]
            pos += 1
        elif arg.count == OPTIONAL:
            if spare > 0 and pos < len(words):
                values[arg.dest] = words[pos]
                pos += 1
                spare -= 1
            else:
                values[arg.dest] = arg.default
        else:
            values[arg.dest] = words[pos:]
            pos = len(words)


def parse(prog: str, argv: list[str]) -> Parsed:
    """Parse `argv` (without the program name) for `prog` ("pylon" or "canon")."""
    root = registry.lookup("canon") if prog == "canon" else None
    for word in argv:
        if "\0" in word:  # no command line the OS passes can hold one; a caller in-process could
            raise _fail(f"An argument holds a NUL byte ({word[:40]!r}); no argument can.", root, prog)
    got = _options(argv, registry.ROOT_OPTS, root, prog, stop="word")
    if got is None:
        parsed = Parsed(root, [], "auto")
        parsed.help = "asked"
        return parsed
    values, argv = got
    directory = values["directory"]
    parsed = Parsed(root, [str(d) for d in directory] if isinstance(directory, list) else [], str(values["color"]))
    parsed.version = values["version"] is True
    if parsed.version:
        return parsed
    i = 0
    target: Command | Group | None = parsed.target
    while not isinstance(target, Command):
        prefix = target.name if target is not None else ""
        if i >= len(argv):
            parsed.target, parsed.help = target, "bare"
            return parsed
        word = argv[i]
        i += 1
        if word in HELP:
            parsed.target, parsed.help = target, "asked"
            return parsed
        found = registry.lookup(f"{prefix} {word}".strip())
        if found is None:
            names = [c.words[-1] for c in registry.children(prefix)]
            what = "option" if word.startswith("-") else "command"
            raise _fail(f"No such {what}: {word}{_suggest(word, names)}.", target, prog)
        target = found
    parsed.target = target
    rest = any(a.count == REST for a in target.args)
    got = _options(argv[i:], target.opts, target, prog, "rest" if rest else "", [prog, *argv[:i]], parsed.notes)
    if got is None:
        parsed.help = "asked"
        return parsed
    values, words = got
    _positionals(target, words, values, prog)
    parsed.args = Args(values)
    return parsed
