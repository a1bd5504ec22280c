"""The shapes of a command declaration: Command, Group, Arg and Opt (plain data, nothing heavy).

The registry (commands.py) is written in these; the parser (argv.py), help and completion
(help.py) and the docs test all read them. Nothing here imports more than the interpreter has.
"""

from __future__ import annotations

# Value kinds of an option. PAIR takes two words (`--replace 3 TEXT`); FLAG takes none.
FLAG, STR, INT, FLOAT, PAIR = "flag", "str", "int", "float", "pair"
# How many words a positional takes: exactly one, zero or one, one or more, zero or more, or the
# rest of the command line from its first word on (`ws run make -j4`).
ONE, OPTIONAL, MANY, ANY, REST = "one", "optional", "many", "any", "rest"


class Opt:
    """One `--name` option. `repeat`: every occurrence is kept, in order (a list); otherwise a
    second occurrence is a usage error. `dest` is the attribute the handler reads. `aliases`: old
    spellings still accepted, with a deprecation warning on stderr (docs/reference/cli.md, one name per idea)."""

    __slots__ = (
        "name",
        "kind",
        "default",
        "help",
        "metavar",
        "min",
        "max",
        "choices",
        "repeat",
        "hidden",
        "dest",
        "aliases",
    )

    def __init__(
        self,
        name: str,
        kind: str = FLAG,
        help: str = "",
        *,
        default: object = None,
        metavar: str = "",
        min: float | None = None,
        max: float | None = None,
        choices: tuple[str, ...] = (),
        repeat: bool = False,
        hidden: bool = False,
        dest: str = "",
        aliases: tuple[str, ...] = (),
    ) -> None:
        self.name, self.kind, self.help, self.metavar = name, kind, help, metavar
        self.default = False if kind == FLAG else default
        self.min, self.max, self.choices, self.repeat, self.hidden = min, max, choices, repeat, hidden
        self.dest = dest or name.lstrip("-").replace("-", "_")
        self.aliases = aliases


class Arg:
    """A positional argument; `count` is one of ONE, OPTIONAL, MANY, ANY, REST."""

    __slots__ = ("dest", "metavar", "count", "help", "default", "choices")

    def __init__(
        self,
        dest: str,
        metavar: str,
        help: str,
        count: str = ONE,
        default: object = None,
        choices: tuple[str, ...] = (),
    ) -> None:
        self.dest, self.metavar, self.help, self.count, self.default = dest, metavar, help, count, default
        self.choices = choices  # a ONE/OPTIONAL word must be one of these (when given)


class Tool:
    """A command offered as an MCP tool by `pylon mcp` (pylon/mcp/), named after its words
    (`canon read` -> `canon_read`). `stdin`: (name, help) of a text argument the tool adds, given
    to the command as its standard input (the server's own stdin carries the protocol)."""

    __slots__ = ("stdin",)

    def __init__(self, stdin: tuple[str, str] | None = None) -> None:
        self.stdin = stdin


class Command:
    """A command that runs: its words (`ws diff`), a one-line summary, an example, a longer
    description, its arguments and options, its handler as "module:function", and `mcp`: how
    `pylon mcp` offers it as a tool (None: it does not)."""

    __slots__ = ("name", "summary", "example", "args", "opts", "handler", "description", "mcp")

    def __init__(
        self,
        name: str,
        summary: str,
        example: str,
        handler: str,
        *,
        args: tuple[Arg, ...] = (),
        opts: tuple[Opt, ...] = (),
        description: str = "",
        mcp: Tool | None = None,
    ) -> None:
        self.name, self.summary, self.example, self.handler = name, summary, example, handler
        self.args, self.opts, self.description, self.mcp = args, opts, description, mcp

    @property
    def words(self) -> list[str]:
        return self.name.split()

    def option(self, name: str) -> Opt | None:
        for opt in self.opts:
            if opt.name == name:
                return opt
        return None


class Group:
    """A word that only leads to commands (`canon`, `ws`)."""

    __slots__ = ("name", "summary", "example")

    def __init__(self, name: str, summary: str, example: str) -> None:
        self.name, self.summary, self.example = name, summary, example

    @property
    def words(self) -> list[str]:
        return self.name.split()
