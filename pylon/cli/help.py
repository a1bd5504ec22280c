"""Help and shell completion: typer apps generated from the registry.

typer renders help and drives completion, which it does well; it never parses a command that
runs (argv.py does, from the same declarations), so its import cost (~60-100 ms) is paid only
here. Each command becomes a function whose signature is built from its Opt/Arg entries; the
function is never called.
"""

from __future__ import annotations

import inspect
from enum import Enum
from pathlib import Path
from typing import Any

import typer

from pylon.cli import commands as registry
from pylon.cli.spec import ANY, FLAG, FLOAT, INT, MANY, OPTIONAL, PAIR, REST, Arg, Command, Group, Opt

_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
_TYPES: dict[str, type] = {INT: int, FLOAT: float, FLAG: bool}
# Positional metavars that name files: completion offers paths for them.
_PATHS = ("PATH", "[PATH]...", "PATH...", "ADDRESS", "[ADDRESS]...", "[PREFIX]")


def _option(opt: Opt) -> inspect.Parameter:
    base: Any = Enum(opt.dest, {c: c for c in opt.choices}) if opt.choices else _TYPES.get(opt.kind, str)
    kind: Any = list[str] if opt.repeat else tuple[str, str] if opt.kind == PAIR else base
    default = None if opt.repeat else opt.default
    info = typer.Option(
        default,
        opt.name,
        help=opt.help + _bounds(opt),
        metavar=opt.metavar or None,
        hidden=opt.hidden,
        show_default=opt.default not in (None, False, ""),
    )
    return inspect.Parameter(opt.dest, inspect.Parameter.KEYWORD_ONLY, default=info, annotation=kind)


def _bounds(opt: Opt) -> str:
    from pylon.cli.argv import plain

    if opt.min is not None and opt.max is not None:
        return f" From {plain(opt.min)} to {plain(opt.max)}."
    if opt.min is not None:
        return f" At least {plain(opt.min)}."
    return f" At most {plain(opt.max)}." if opt.max is not None else ""


def _argument(arg: Arg) -> inspect.Parameter:
    many = arg.count in (MANY, ANY, REST)
    default = None if arg.count in (ANY, OPTIONAL) else ...
    base: Any = Path if arg.metavar in _PATHS else str  # typer completes file names for Path
    info = typer.Argument(default, metavar=arg.metavar, help=arg.help, show_default=False)
    kind: Any = list[base] if many else base
    return inspect.Parameter(arg.dest, inspect.Parameter.KEYWORD_ONLY, default=info, annotation=kind)


def _function(name: str, params: list[inspect.Parameter], doc: str) -> Any:
    def declared(**_values: Any) -> None:  # help and completion only: argv.py runs commands
        return None

    setattr(declared, "__signature__", inspect.Signature(params))  # noqa: B010 - what typer reads; not a declared attribute
    declared.__annotations__ = {p.name: p.annotation for p in params}
    declared.__doc__ = doc
    declared.__name__ = name.replace(" ", "_")
    return declared


def _doc(entry: Command | Group) -> str:
    text = entry.summary
    if isinstance(entry, Command) and entry.description:
        text += "\n\n" + entry.description
    return text


def _epilog(entry: Command | Group) -> str:
    return f"\b\nExample:\n  {entry.example}"


def _typer(prog: str, group: Group | None, expand: str | None) -> typer.Typer:
    """The typer app of `group` (None: the root), with the children of every group on the way to
    `expand` (None: all of them) declared; other groups are listed with their summary only."""
    prefix = group.name if group is not None else ""
    root_opts = [_option(o) for o in registry.ROOT_OPTS] if group is None or prog == "canon" else []
    top = group if group is not None else registry.ROOT
    app = typer.Typer(
        name=prog if group is None else top.words[-1],
        help=_doc(top),
        epilog=_epilog(top),
        add_completion=False,
        rich_markup_mode=None,
        pretty_exceptions_enable=False,
        context_settings=_SETTINGS,
        cls=_sorted_group(),
    )
    app.callback(invoke_without_command=True)(_function(top.name, root_opts, _doc(top)))
    for child in registry.children(prefix):
        if isinstance(child, Group):
            wanted = expand is None or expand == child.name or expand.startswith(child.name + " ")
            sub = _typer(prog, child, expand) if wanted else None
            if sub is None:
                sub = typer.Typer(
                    name=child.words[-1],
                    help=child.summary,
                    add_completion=False,
                    rich_markup_mode=None,
                    context_settings=_SETTINGS,
                    cls=_sorted_group(),
                )
                sub.callback()(_function(child.name, [], child.summary))
            app.add_typer(sub, name=child.words[-1], help=child.summary, short_help=child.summary)
            continue
        params = [_argument(a) for a in child.args] + [_option(o) for o in child.opts]
        settings = dict(_SETTINGS, allow_interspersed_args=not any(a.count == REST for a in child.args))
        app.command(
            child.words[-1],
            help=_doc(child),
            short_help=child.summary,
            epilog=_epilog(child),
            context_settings=settings,
            cls=_command_class(child),
        )(_function(child.name, params, _doc(child)))
    return app


def click_command(prog: str, expand: str | None = None) -> Any:
    """The click command tree (through typer) for `prog`: "pylon", or "canon" rooted at its group."""
    from typer.main import get_command

    root = registry.lookup("canon") if prog == "canon" else None
    assert root is None or isinstance(root, Group)
    return get_command(_typer(prog, root, expand))


def _sorted_group() -> Any:
    """A group that lists its commands and sub-groups together, by name."""
    from typer.core import TyperGroup

    class Sorted(TyperGroup):
        def list_commands(self, ctx: Any) -> list[str]:
            return sorted(super().list_commands(ctx))

    return Sorted


def _command_class(command: Command) -> Any:
    """A typer command class whose usage line is the registry's (the one usage errors print), and
    whose repeatable PAIR options take their two values (typer has no list-of-pairs type)."""
    from typer.core import TyperCommand

    from pylon.cli.argv import usage_line

    pairs = {o.name for o in command.opts if o.kind == PAIR}
    pieces = usage_line(command, "pylon").split()[2 + len(command.words) :]

    class Declared(TyperCommand):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            for param in self.params:
                if pairs & set(param.opts):
                    param.nargs = 2

        def collect_usage_pieces(self, ctx: Any) -> list[str]:
            return list(pieces)

    return Declared


def show_help(prog: str, target: Command | Group | None, bare: bool = False) -> int:
    """Print the help of `target` (None: the root); exit status 2 for a bare group, like a usage error."""
    words = target.words if target is not None else []
    if prog == "canon" and words[:1] == ["canon"]:
        words = words[1:]
    command = click_command(prog, target.name if target is not None else "")
    code = command.main(args=[*words, "--help"], prog_name=prog, standalone_mode=False)
    return 2 if bare else int(code or 0)


def complete(prog: str) -> int:
    """Answer the shell's completion request (`_PYLON_COMPLETE=complete_bash ...`)."""
    from typer._completion_classes import completion_init

    completion_init()
    try:
        click_command(prog).main(args=[], prog_name=prog, complete_var=f"_{prog.upper()}_COMPLETE")
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0
    return 0


def completion_script(shell: str) -> str:
    """The script that makes `shell` complete both `pylon` and `canon`."""
    from typer._completion_shared import get_completion_script

    return (
        "\n\n".join(
            get_completion_script(prog_name=prog, complete_var=f"_{prog.upper()}_COMPLETE", shell=shell)
            for prog in ("pylon", "canon")
        )
        + "\n"
    )
